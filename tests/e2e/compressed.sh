# gzip and zstd input, recognised by magic bytes (with or without suffix),
# give the same output as the plain file.
# Usage: bash compressed.sh gz|zst|gz_nosuffix|zst_nosuffix|gz_multimember|zst_multiframe|
#                           gz_large|zst_large|gz_empty|zst_empty|gz_truncated|zst_truncated
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep
need_input "$M"

compress() { # compress gz|zst IN OUT
  case $1 in
    gz)  gzip -c -6 "$2" >"$3" ;;
    zst) zstd -q -c "$2" >"$3" ;;
  esac || die "cannot run $1 compression"
}

check_same() { # check_same LABEL FILE PLAINFILE
  run "$1_dcat" dcat --plain --cfg none "$2"
  expect_rc "$1 dcat" 0
  expect_bytes "$1 dcat" "$OUT" "$3"
  expect_empty "$1 dcat stderr" "$ERR"
}

check_grep() { # check_grep LABEL FILE
  run "$1_dgrep" dgrep --plain --cfg none --grep 1002-071947 "$2"
  expect_rc "$1 dgrep" 0
  grep -F 1002-071947 "$M" >"$T/lit.exp"
  expect_bytes "$1 dgrep" "$OUT" "$T/lit.exp"
  grep -E '1002-07194[789]' "$M" >"$T/re.exp"
  run "$1_dgrep_re" dgrep --plain --cfg none --grep '1002-07194[789]' "$2"
  expect_rc "$1 dgrep regex" 0
  expect_bytes "$1 dgrep regex" "$OUT" "$T/re.exp"
}

case $mode in
  gz|zst)
    compress "$mode" "$M" "$T/mapr.log.$mode"
    check_same "$mode" "$T/mapr.log.$mode" "$M"
    check_grep "$mode" "$T/mapr.log.$mode"
    # Through --files too.
    run "${mode}_files" dcat --plain --cfg none --files "$T/mapr.log.$mode"
    expect_rc "$mode --files" 0
    expect_bytes "$mode --files" "$OUT" "$M"
    ;;
  gz_nosuffix|zst_nosuffix)
    kind=${mode%_nosuffix}
    compress "$kind" "$M" "$T/mapr_compressed.log"
    check_same "$mode" "$T/mapr_compressed.log" "$M"
    check_grep "$mode" "$T/mapr_compressed.log"
    ;;
  gz_multimember|zst_multiframe)
    kind=${mode%_*}
    compress "$kind" "$LINES_TXT" "$T/p1"
    compress "$kind" "$CRLF_TXT" "$T/p2"
    cat "$T/p1" "$T/p2" >"$T/multi.$kind"
    cat "$LINES_TXT" "$CRLF_TXT" >"$T/multi.exp"
    check_same "$mode" "$T/multi.$kind" "$T/multi.exp"
    ;;
  gz_large|zst_large)
    kind=${mode%_large}
    # About 13 MB uncompressed: many read buffers.
    for i in $(seq 200); do cat "$M"; done >"$T/big.log"
    compress "$kind" "$T/big.log" "$T/big.log.$kind"
    check_same "$mode" "$T/big.log.$kind" "$T/big.log"
    grep -F 1002-071947 "$T/big.log" >"$T/big.exp"
    run big_grep dgrep --plain --cfg none --grep 1002-071947 "$T/big.log.$kind"
    expect_rc "$mode dgrep" 0
    expect_bytes "$mode dgrep" "$OUT" "$T/big.exp"
    ;;
  gz_empty|zst_empty)
    kind=${mode%_empty}
    : >"$T/empty"
    compress "$kind" "$T/empty" "$T/empty.$kind"
    run empty dcat --plain --cfg none "$T/empty.$kind"
    expect_rc "$mode" 0
    expect_empty "$mode output" "$OUT"
    ;;
  gz_truncated|zst_truncated)
    # A damaged stream is an input that cannot be read: exit 1, the file
    # named on stderr, the other file still printed, and no hang.
    kind=${mode%_truncated}
    for i in $(seq 20); do cat "$M"; done >"$T/big.log"
    compress "$kind" "$T/big.log" "$T/full.$kind"
    size=$(wc -c <"$T/full.$kind")
    head -c $((size / 2)) "$T/full.$kind" >"$T/broken.$kind"
    run broken dcat --plain --cfg none "$T/broken.$kind" "$BLANK_TXT"
    expect_rc "$mode" 1
    expect_contains "$mode: stderr names the file" "$ERR" "broken.$kind"
    expect_contains "$mode: the other file is printed" "$OUT" "$(tail -n 1 "$BLANK_TXT")"
    # Whatever was printed from the damaged file is a prefix of the data
    # (the last, maybe partial, line aside).
    grep -v -F -x -f "$BLANK_TXT" "$OUT" | grep -v '^$' | head -n -1 >"$T/part" || true
    head -c "$(wc -c <"$T/part")" "$T/big.log" | cmp -s - "$T/part" \
      || fail "$mode: the output of the damaged file is not a prefix of its data"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
