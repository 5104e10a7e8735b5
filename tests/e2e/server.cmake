# dserver end to end (server.sh, harness server_lib.sh).
foreach(c health health_compat early unauthorized password maxconn openssh openssh_end ciphers log_rotation from_key logformat sigterm shutdown_after hostkeys stats root)
  dtail_e2e(server_${c} server ${c} TIMEOUT 60)
endforeach()
dtail_e2e(server_handshake server handshake TIMEOUT 90)
