# --before/--after against GNU grep -B/-A (DTail prints no `--` separators,
# hence --no-group-separator). DTail's semantics (reference 4.4) give the
# same lines as grep when --max is not used.
# Usage: bash context.sh CASE
. "$(dirname "$0")/lib.sh"
case=${1:?case}
need_bin dgrep
need_input "$M"

dense=$T/dense.log
awk 'BEGIN { for (i = 1; i <= 3000; i++)
  if (i % 7 == 0 || i % 7 == 1 || i % 11 == 0 || i % 97 < 3) print "hit " i; else print "line " i }' >"$dense"

inv=0
case $case in
  m_before)   f=$M; p='lifetimeConnections=6'; b=3; a=0 ;;
  m_after)    f=$M; p='lifetimeConnections=6'; b=0; a=4 ;;
  m_both)     f=$M; p='currentConnections=1'; b=2; a=2 ;;
  dense_both) f=$dense; p='^hit'; b=3; a=2 ;;
  dense_big)  f=$dense; p='^hit [0-9]*5$'; b=6; a=9 ;;
  invert)     f=$M; p='currentConnections=0'; b=1; a=1; inv=1 ;;
  *) die "unknown case $case" ;;
esac

gargs=(-E --no-group-separator)
dargs=()
[ "$b" -gt 0 ] && { gargs+=(-B "$b"); dargs+=(--before "$b"); }
[ "$a" -gt 0 ] && { gargs+=(-A "$a"); dargs+=(--after "$a"); }
[ "$inv" -eq 1 ] && { gargs+=(-v); dargs+=(--invert); }
grep "${gargs[@]}" -- "$p" "$f" >"$T/exp"
[ -s "$T/exp" ] || die "grep found nothing"
cmp -s "$T/exp" "$f" && die "the case selects the whole file; choose another"

run ctx dgrep --plain --cfg none "${dargs[@]}" --grep "$p" "$f"
expect_rc "dgrep ${dargs[*]} '$p'" 0
expect_bytes "dgrep ${dargs[*]} '$p' vs grep ${gargs[*]}" "$OUT" "$T/exp"

# Non-plain: the context lines carry their own line numbers.
DTAIL_HOSTNAME_OVERRIDE=h run ctx_fmt dgrep --cfg none --noColor "${dargs[@]}" --grep "$p" "$f"
expect_rc "REMOTE form" 0
src=$(basename "$f")
grep -n "${gargs[@]}" -- "$p" "$f" \
  | sed -E "s/^([0-9]+)[:-]/REMOTE|h|100|\\1|$src|/" >"$T/exp_fmt"
expect_bytes "REMOTE form with line numbers" "$OUT" "$T/exp_fmt"
finish
