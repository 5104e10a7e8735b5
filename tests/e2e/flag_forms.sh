# Flags accept -x and --x, and --x VALUE and --x=VALUE; --regex is --grep.
. "$(dirname "$0")/lib.sh"
need_bin dgrep dcat
need_input "$M"
exp=$T/dgrep.want
grep -F 1002-071947 "$M" >"$exp" || die "the fixture has no line of 1002-071947"
# A line longer than --maxLineLength is cut into pieces of that length.
long=$T/long.txt
awk 'BEGIN { s = ""; for (i = 0; i < 2615; i++) s = s substr("0123456789abcdef", i % 16 + 1, 1)
             print "a short line"; print s; print "another short line" }' >"$long"
fold -b -w 1024 "$long" >"$T/long.want"

i=0
check() {
  i=$((i + 1))
  run "form$i" dgrep "$@" "$M"
  expect_rc "form$i [$*]" 0
  expect_bytes "form$i [$*]" "$OUT" "$exp"
}
check --plain --cfg none --grep 1002-071947
check -plain -cfg none -grep 1002-071947
check --plain --cfg=none --grep=1002-071947
check -plain -cfg=none -grep=1002-071947
check --plain --cfg none --regex 1002-071947
check --plain --cfg none --regex=1002-071947
check -plain -cfg none -regex 1002-071947
check --plain --noColor --quiet --logLevel error --cfg none --grep 1002-071947
check --plain --logLevel=error --cfg none --grep 1002-071947
# A value that starts with `-` is still the flag's value.
check --plain --cfg none --grep -071947
check --plain --cfg none --grep=-071947
# Flags after the file are not required; files before flags are: the file
# comes last in check(), so also test a file given through --files=.
run files_eq dgrep --plain --cfg none --grep 1002-071947 --files="$M"
expect_rc files_eq 0
expect_bytes files_eq "$OUT" "$exp"
run mll_eq dcat --plain --logLevel error --cfg none --maxLineLength=1024 "$long"
expect_rc mll_eq 0
expect_bytes mll_eq "$OUT" "$T/long.want"
run mll_single dcat -plain -logLevel error -cfg none -maxLineLength 1024 "$long"
expect_rc mll_single 0
expect_bytes mll_single "$OUT" "$T/long.want"
finish
