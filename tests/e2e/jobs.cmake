# dserver's scheduled and continuous jobs (jobs.sh, harness server_lib.sh).
foreach(c schedule continuous bad_job)
  dtail_e2e(jobs_${c} jobs ${c} TIMEOUT 90)
endforeach()
