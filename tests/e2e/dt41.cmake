# DTail 4.1 interop (dt41.sh): the Go clients of ../shared/peers against our
# dserver and against the Go dserver; skipped without ../shared/peers.
foreach(c cat grep tail health map c2go_lines c2go_health c2go_map session authkey ext)
  dtail_e2e(dt41_${c} dt41 ${c} TIMEOUT 120)
endforeach()
