# The query language's extensions (query_ext.sh): DuckDB as the oracle,
# serverless and through a dserver, division by zero, escapes and the
# errors of every new keyword.
foreach(c oracle server divzero escapes errors selct spill)
  dtail_e2e(query_ext_${c} query_ext ${c} TIMEOUT 120)
endforeach()
