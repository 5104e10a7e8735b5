# dserver against idle, stalled and hostile peers (hardening.sh).
foreach(c halfopen idle_yield idle_timeout stalled write_timeout health refused_retry protocol example_config authtries follow_many)
  dtail_e2e(hardening_${c} hardening ${c} TIMEOUT 180)
endforeach()
