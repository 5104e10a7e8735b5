# TestDGrep1, TestDGrep2, TestDGrepContext1, TestDGrepContext2 (byte-exact).
# Usage: bash dgrep_cases.sh dgrep1|dgrep2|dgrepcontext1|dgrepcontext2
. "$(dirname "$0")/lib.sh"
need_compat
case=${1:?case}
need_bin dgrep
exp=$COMPAT/$case.txt.expected
need_input "$M" "$exp"

case $case in
  dgrep1)        args=(--grep 1002-071947) ;;
  dgrep2)        args=(--grep '1002-07194[789]') ;;
  dgrepcontext1) args=(--grep 1002-071947 --before 2 --after 3) ;;
  dgrepcontext2) args=(--grep 1002-071947 --before 2 --after 3 --invert) ;;
  *) die "unknown case $case" ;;
esac
run "$case" dgrep --plain --cfg none "${args[@]}" "$M"
expect_rc "$case" 0
expect_bytes "$case" "$OUT" "$exp"
expect_empty "$case stderr" "$ERR"
finish
