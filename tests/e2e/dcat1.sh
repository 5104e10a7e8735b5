# TestDCat1: `dcat --plain --cfg none F` prints F byte for byte.
# Usage: bash dcat1.sh a|b|c positional|files
. "$(dirname "$0")/lib.sh"
need_compat
which=${1:?a, b or c}; mode=${2:?positional or files}
need_bin dcat
in=$COMPAT/dcat1$which.txt
need_input "$in"

case $mode in
  positional) run dcat1 dcat --plain --cfg none "$in" ;;
  files)      run dcat1 dcat --plain --cfg none --files "$in" ;;
  *) die "unknown mode $mode" ;;
esac
expect_rc dcat1 0
expect_bytes dcat1 "$OUT" "$in"
# DTail compares stdout+stderr combined: nothing else may be printed.
expect_empty "dcat1 stderr" "$ERR"
finish
