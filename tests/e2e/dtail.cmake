# dtail (serverless follow), see dtail.sh.
foreach(m colortable checkhealth follow grep truncate glob stdin query query_outfile timeout signal)
  dtail_e2e(dtail_${m} dtail ${m} TIMEOUT 60)
endforeach()
dtail_e2e(dtail_rotate dtail rotate TIMEOUT 240)
