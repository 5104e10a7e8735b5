# The generated differential test of the query language: DuckDB as the
# oracle, and the same bytes serverless, through one and three dservers
# (query_diff.sh, query_diff.py).
foreach(m oracle fanout)
  dtail_e2e(query_diff_${m} query_diff ${m} TIMEOUT 300)
endforeach()
