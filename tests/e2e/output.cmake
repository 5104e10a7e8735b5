# Results on stdout for a pipe (output.sh): dmap's and dtail --query's
# --output csv|tsv|json|table serverless and through a dserver, checked by
# parsing them and against DuckDB (tests/support/duckdb); `outfile -`;
# --query-file; the REPL's .mode, .read and piped input.
foreach(m csv tsv json table outfile_stdout query_file errors dtail repl_mode repl_read repl_pipe)
  dtail_e2e(output_${m} output ${m} TIMEOUT 120)
endforeach()
