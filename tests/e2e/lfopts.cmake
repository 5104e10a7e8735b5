# The options after `logformat NAME` (lfopts.sh): the errors of each, and
# a timeformat and a pattern through a dserver (their results against
# oracles are logformats.sh's pattern and csvsemi cases).
foreach(c errors server)
  dtail_e2e(lfopts_${c} lfopts ${c} TIMEOUT 120)
endforeach()
