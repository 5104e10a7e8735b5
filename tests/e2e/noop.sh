# Patterns that match everything (reference 4.3): "", "." and ".*" are
# no-ops, and dgrep without a pattern prints every line.
# Usage: bash noop.sh match_all|invert
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dgrep
need_input "$M"
printf 'one\n\nthree\n' >"$T/gaps.log"

case $mode in
  match_all)
    for p in '' '.' '.*'; do
      run "noop" dgrep --plain --cfg none --grep "$p" "$M"
      expect_rc "--grep '$p'" 0
      expect_bytes "--grep '$p'" "$OUT" "$M"
      # Empty lines too (DTail's no-op matches every line).
      run "noop_gaps" dgrep --plain --cfg none --grep "$p" "$T/gaps.log"
      expect_bytes "--grep '$p' with an empty line" "$OUT" "$T/gaps.log"
    done
    run nopat dgrep --plain --cfg none "$M"
    expect_rc "no pattern" 0
    expect_bytes "no pattern" "$OUT" "$M"
    ;;
  invert)
    # DTail: with a no-op pattern --invert has no effect.
    for p in '' '.' '.*'; do
      run "noop_inv" dgrep --plain --cfg none --invert --grep "$p" "$M"
      expect_rc "--invert --grep '$p'" 0
      expect_bytes "--invert --grep '$p' (no-op: all lines)" "$OUT" "$M"
    done
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
