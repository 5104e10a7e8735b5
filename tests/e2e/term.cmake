# Terminal safety (term.sh): dcat, dgrep, dtail and dmap (and its REPL) on
# a pseudo-terminal (ptydrive, from repl.cmake) over a log of control
# bytes and invalid UTF-8, serverless and through a dserver.
foreach(m dcat dgrep dtail dmap remote)
  dtail_e2e(term_${m} term ${m} TIMEOUT 240)
endforeach()
dtail_e2e(palette palette TIMEOUT 120)
