# systemd journal targets (journal.sh, journal_lib.sh): journal files the
# test writes with systemd-journal-remote, compared with journalctl.
foreach(c serverless errors server denied follow follow_server dt41)
  dtail_e2e(journal_${c} journal ${c} TIMEOUT 120)
endforeach()
