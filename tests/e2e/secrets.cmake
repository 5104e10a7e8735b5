# How dserver refuses files (secrets.sh, harness server_lib.sh;
# docs/dserver.md, Hardening).
foreach(c oracle glob glob_cap)
  dtail_e2e(secrets_${c} secrets ${c} TIMEOUT 120)
endforeach()
