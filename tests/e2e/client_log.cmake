# The clients' log file and logging flags (client_log.sh).
foreach(c file payload rotation refused dmap remote)
  dtail_e2e(client_log_${c} client_log ${c} TIMEOUT 90)
endforeach()
