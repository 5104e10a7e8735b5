# `$` matches at the end of a line (DTail's defect D5 fixed), compared with
# GNU grep -E on the same input, including CRLF lines and a last line
# without newline.
. "$(dirname "$0")/lib.sh"
need_bin dgrep
need_input "$M"

grep -E 'lifetimeConnections=5$' "$M" >"$T/exp1"
[ "$(wc -l <"$T/exp1")" -gt 0 ] || die "grep found nothing; input changed?"
run d1 dgrep --plain --cfg none --grep 'lifetimeConnections=5$' "$M"
expect_rc d1 0
expect_bytes "lifetimeConnections=5\$" "$OUT" "$T/exp1"

grep -E '^INFO.*=6$' "$M" >"$T/exp2"
[ "$(wc -l <"$T/exp2")" -gt 0 ] || die "grep found nothing for ^INFO.*=6\$"
run d2 dgrep --plain --cfg none --grep '^INFO.*=6$' "$M"
expect_rc d2 0
expect_bytes "^INFO.*=6\$" "$OUT" "$T/exp2"

# Anchored at both ends on short lines; the last line has no newline.
printf 'end\nthe end\nend of it\nend\r\nx\nend' >"$T/in.log"
printf 'end\nthe end\nend\n' >"$T/exp3"
run d3 dgrep --plain --cfg none --grep 'end$' "$T/in.log"
expect_rc d3 0
expect_bytes "end\$ (mixed endings)" "$OUT" "$T/exp3"
printf 'end\nend\n' >"$T/exp4"
run d4 dgrep --plain --cfg none --grep '^end$' "$T/in.log"
expect_rc d4 0
expect_bytes "^end\$" "$OUT" "$T/exp4"
# --invert with $.
grep -v -E 'lifetimeConnections=5$' "$M" >"$T/exp5"
run d5 dgrep --plain --cfg none --invert --grep 'lifetimeConnections=5$' "$M"
expect_rc d5 0
expect_bytes "invert lifetimeConnections=5\$" "$OUT" "$T/exp5"
finish
