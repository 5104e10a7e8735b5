# Each log format end to end (logformats.sh, data and Python oracle in
# logformats.py, DuckDB through tests/support/duckdb): serverless, through
# one and three dservers, against the oracle, the summary's counts exact.
foreach(f logfmt nginx apache syslog tsv csvnoheader json k8s pattern csvsemi)
  dtail_e2e(logformats_${f} logformats ${f} TIMEOUT 180)
endforeach()
