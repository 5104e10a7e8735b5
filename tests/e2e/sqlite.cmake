# SQLite export (dmap `outfile X.sqlite`): tests/e2e/sqlite_export.sh.
foreach(m 1a 1b 1c 1d 2 stdin append fail_dir mismatch suffixes)
  dtail_e2e(sqlite_export_${m} sqlite_export ${m} TIMEOUT 120)
endforeach()
