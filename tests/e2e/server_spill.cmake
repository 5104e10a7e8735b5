# Server.MapMemoryLimit: map requests spill in dserver (server_spill.sh).
foreach(c same rss badcfg)
  dtail_e2e(server_spill_${c} server_spill ${c} TIMEOUT 300)
endforeach()
