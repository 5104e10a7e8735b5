# Exact bytes through dcat --plain: CRLF, empty lines, a final line without
# newline (which gets one), NUL and non-UTF-8 bytes; and the same lines
# through dgrep.
. "$(dirname "$0")/lib.sh"
need_bin dcat dgrep

printf 'crlf one\r\ncrlf two\r\n\r\n\nplain\n\n\ttab\there\nno newline at end' >"$T/a.log"
{ cat "$T/a.log"; printf '\n'; } >"$T/a.exp"
run a dcat --plain --cfg none "$T/a.log"
expect_rc a 0
expect_bytes "crlf/empty/no-final-newline" "$OUT" "$T/a.exp"

# Only a final line without newline.
printf 'lonely' >"$T/b.log"
printf 'lonely\n' >"$T/b.exp"
run b dcat --plain --cfg none "$T/b.log"
expect_rc b 0
expect_bytes "single line without newline" "$OUT" "$T/b.exp"

# Only newlines.
printf '\n\n\n' >"$T/c.log"
run c dcat --plain --cfg none "$T/c.log"
expect_rc c 0
expect_bytes "only empty lines" "$OUT" "$T/c.log"

# Binary-ish bytes: NUL, 0xff, 0xac (DTail's wire delimiter), UTF-8.
printf 'nul\000byte\n\377\376 invalid utf8\n\254 not-sign\ncaf\303\251 ok\n' >"$T/d.log"
run d dcat --plain --cfg none "$T/d.log"
expect_rc d 0
expect_bytes "NUL and non-UTF-8 bytes" "$OUT" "$T/d.log"

# dgrep keeps CRLF and adds the missing final newline.
printf 'crlf one\r\ncrlf two\r\n' >"$T/e.exp"
run e dgrep --plain --cfg none --grep crlf "$T/a.log"
expect_rc e 0
expect_bytes "dgrep CRLF lines" "$OUT" "$T/e.exp"
printf 'no newline at end\n' >"$T/f.exp"
run f dgrep --plain --cfg none --grep 'newline at' "$T/a.log"
expect_rc f 0
expect_bytes "dgrep last line without newline (literal)" "$OUT" "$T/f.exp"
run g dgrep --plain --cfg none --grep 'new[a-z]+ at' "$T/a.log"
expect_rc g 0
expect_bytes "dgrep last line without newline (regex)" "$OUT" "$T/f.exp"
# A regex over lines with invalid UTF-8 bytes.
printf '\377\376 invalid utf8\n' >"$T/h.exp"
run h dgrep --plain --cfg none --grep 'in.alid' "$T/d.log"
expect_rc h 0
expect_bytes "regex on a line with invalid UTF-8" "$OUT" "$T/h.exp"
finish
