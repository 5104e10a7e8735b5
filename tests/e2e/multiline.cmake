# Multi-line records (dgrep/dcat/dtail --multiline): serverless and through
# a real dserver against the oracle of multiline.py (multiline.sh).
foreach(c grep server bound follow)
  dtail_e2e(multiline_${c} multiline ${c} TIMEOUT 120)
endforeach()
