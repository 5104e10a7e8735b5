# What dserver never serves and how it refuses (secrets.sh, harness
# server_lib.sh; docs/dserver.md, Hardening).
foreach(c secrets oracle glob glob_cap search mounts)
  dtail_e2e(secrets_${c} secrets ${c} TIMEOUT 120)
endforeach()
