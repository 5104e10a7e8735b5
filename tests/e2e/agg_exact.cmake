# Exact quantiles, count(distinct) and top against DuckDB, serverless,
# through three dservers, spilled; estimates past the bounds said
# (agg_exact.sh).
foreach(m serverless fanout spill approx)
  dtail_e2e(agg_exact_${m} agg_exact ${m} TIMEOUT 180)
endforeach()
