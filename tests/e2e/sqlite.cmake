# SQLite export (dmap `outfile X.sqlite`): tests/e2e/sqlite_export.sh.
foreach(m 1a 1b 1c 1d 2 stdin append fail_dir mismatch suffixes)
  dtail_e2e(sqlite_export_${m} sqlite_export ${m} TIMEOUT 120)
endforeach()
# What an outfile (CSV or SQLite) does to links, FIFOs, directories and
# devices at its path, `outfile -`, and failed writes: tests/e2e/outfile_dest.sh.
foreach(m link_csv link_sqlite dangling fifo dir device stdout fail dtail remote)
  dtail_e2e(outfile_dest_${m} outfile_dest ${m} TIMEOUT 120)
endforeach()
# What the SQLite outfile records about a run (bytes, inputs, partial
# results): tests/e2e/sqlite_accounting.sh.
foreach(m bytes missing remote failed)
  dtail_e2e(sqlite_accounting_${m} sqlite_accounting ${m} TIMEOUT 120)
endforeach()
