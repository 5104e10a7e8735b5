# Fan-out over several dservers (fanout.sh, harness fanout_lib.sh).
foreach(c targets cat map refused blackhole badkey denied sigint nolibssh exitcodes tls)
  dtail_e2e(fanout_${c} fanout ${c} TIMEOUT 90)
endforeach()
# 400k groups through a server: 48 s once under heavy load.
dtail_e2e(fanout_large fanout large TIMEOUT 180)
dtail_e2e(fanout_dies fanout dies TIMEOUT 120)
dtail_e2e(fanout_tail fanout tail TIMEOUT 90)
