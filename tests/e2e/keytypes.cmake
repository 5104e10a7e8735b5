# Every key type logs in every time, against dserver and OpenSSH's sshd
# (keytypes.sh, harness server_lib.sh).
foreach(c dserver sshd)
  dtail_e2e(keytypes_${c} keytypes ${c} TIMEOUT 300)
endforeach()
