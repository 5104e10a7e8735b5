# dmap --timezone (timezone.sh): against zoneinfo, through dservers in
# another zone, and the zones refused.
foreach(c oracle servers errors)
  dtail_e2e(timezone_${c} timezone ${c} TIMEOUT 120)
endforeach()
