# Group-by spill under dmap --memory-limit: tests/e2e/spill.sh.
foreach(m same order sqlite bad error kill)
  dtail_e2e(spill_${m} spill ${m} TIMEOUT 120)
endforeach()
