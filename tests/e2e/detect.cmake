# Log format detection for dmap queries without logformat and from
# (detect.sh): serverless and through a real dserver.
foreach(c serverless server)
  dtail_e2e(detect_${c} detect ${c} TIMEOUT 120)
endforeach()
