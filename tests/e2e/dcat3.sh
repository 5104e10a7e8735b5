# TestDCat3: a 2615-byte line is split into 1024/1024/567 with the maximum
# line length 1024, set by flag or by DTail's integration-test mode.
# Usage: bash dcat3.sh flag|env
. "$(dirname "$0")/lib.sh"
need_compat
mode=${1:?flag or env}
need_bin dcat
in=$COMPAT/dcat3.txt
exp=$COMPAT/dcat3.txt.expected
need_input "$in" "$exp"

case $mode in
  flag)
    run dcat3 dcat --plain --logLevel error --cfg none --maxLineLength 1024 "$in" ;;
  env)
    export DTAIL_INTEGRATION_TEST_RUN_MODE=yes
    run dcat3 dcat --plain --logLevel error --cfg none "$in" ;;
  *) die "unknown mode $mode" ;;
esac
expect_rc dcat3 0
expect_multiset dcat3 "$OUT" "$exp"
# The order is known too: the chunks come out in file order.
expect_bytes "dcat3 (order)" "$OUT" "$exp"
expect_empty "dcat3 stderr" "$ERR"
finish
