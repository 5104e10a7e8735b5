# The same queries and greps serverless, through one dserver and through
# three holding a split of the input (differential.sh).
foreach(c map lines)
  dtail_e2e(differential_${c} differential ${c} TIMEOUT 180)
endforeach()
