# dtail --query through servers (remote_query.sh) and --interactive-query
# (interactive.sh), both over real dservers (harness fanout_lib.sh).
foreach(c intervals outfile)
  dtail_e2e(remote_query_${c} remote_query ${c} TIMEOUT 90)
endforeach()
foreach(c dtail boundary dgrep query commands notty)
  dtail_e2e(interactive_${c} interactive ${c} TIMEOUT 90)
endforeach()
