# TestDCat2: dcat2.txt given 100 times; the lines are those of dcat2.txt
# repeated 100 times, in any order.
# Usage: bash dcat2.sh positional|files
. "$(dirname "$0")/lib.sh"
need_compat
mode=${1:?positional or files}
need_bin dcat
in=$COMPAT/dcat2.txt
need_input "$in"

args=()
list=
for i in $(seq 100); do
  args+=("$in")
  list=${list:+$list,}$in
done
for i in $(seq 100); do cat "$in"; done >"$T/expected"
[ "$(wc -l <"$T/expected")" -eq 50000 ] || die "expected file should have 50000 lines"

case $mode in
  positional) run dcat2 dcat --plain --logLevel error --cfg none "${args[@]}" ;;
  files)      run dcat2 dcat --plain --logLevel error --cfg none --files "$list" ;;
  *) die "unknown mode $mode" ;;
esac
expect_rc dcat2 0
expect_multiset dcat2 "$OUT" "$T/expected"
expect_empty "dcat2 stderr" "$ERR"
finish
