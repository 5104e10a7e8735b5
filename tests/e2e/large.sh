# A large file (about 30 MB, many read buffers, and large enough to be
# searched in two ranges): output identical to cat/grep and in file order.
# Usage: bash large.sh dcat|literal_rare|literal_common|regex|invert|max|numbers|
#                      context|max_middle|invert_context|longlines|stdin_pipe|
#                      pipe_close|rss
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep

big=$T/big.log
awk 'BEGIN {
  srand(42);
  for (i = 1; i <= 400000; i++) {
    lvl = (i % 5 == 0) ? "ERROR" : ((i % 3 == 0) ? "WARN" : "INFO");
    pad = substr("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 1, int(rand() * 64));
    tok = (i % 1499 == 0) ? " token-rare-7777" : "";
    printf "%s|1002-%06d|user%d|request %d%s|%s\n", lvl, i % 1000000, int(rand() * 100000), i, tok, pad;
  }
  printf "ERROR|last line without newline user77 token-rare-7777";
}' >"$big"
need_input "$big"
printf '\n' >"$T/nl"
cat "$big" "$T/nl" >"$T/big.full"   # what a reader prints: the last line gets its newline

case $mode in
  dcat)
    run dcat dcat --plain --cfg none "$big"
    expect_rc dcat 0
    expect_bytes "dcat large file" "$OUT" "$T/big.full"
    ;;
  literal_rare)
    grep -F token-rare-7777 "$T/big.full" >"$T/exp"
    run lr dgrep --plain --cfg none --grep token-rare-7777 "$big"
    expect_rc lr 0
    expect_bytes "rare literal" "$OUT" "$T/exp"
    ;;
  literal_common)
    grep -F ERROR "$T/big.full" >"$T/exp"
    run lc dgrep --plain --cfg none --grep ERROR "$big"
    expect_rc lc 0
    expect_bytes "common literal" "$OUT" "$T/exp"
    ;;
  regex)
    grep -E 'ERROR.*user[0-9]*77\|' "$T/big.full" >"$T/exp"
    run re dgrep --plain --cfg none --grep 'ERROR.*user[0-9]*77\|' "$big"
    expect_rc re 0
    expect_bytes "regex" "$OUT" "$T/exp"
    ;;
  invert)
    grep -v -F INFO "$T/big.full" >"$T/exp"
    run inv dgrep --plain --cfg none --invert --grep INFO "$big"
    expect_rc inv 0
    expect_bytes "--invert literal" "$OUT" "$T/exp"
    ;;
  max)
    grep -m 5 -F token-rare "$T/big.full" >"$T/exp"
    run max dgrep --plain --cfg none --max 5 --grep token-rare "$big"
    expect_rc max 0
    expect_bytes "--max 5" "$OUT" "$T/exp"
    ;;
  numbers)
    grep -n -F token-rare-7777 "$T/big.full" | sed -E 's/^([0-9]+):/REMOTE|h|100|\1|big.log|/' >"$T/exp"
    DTAIL_HOSTNAME_OVERRIDE=h run num dgrep --cfg none --noColor --grep token-rare-7777 "$big"
    expect_rc num 0
    expect_bytes "line numbers in a large file" "$OUT" "$T/exp"
    ;;
  context)
    # Context around matches all over the file (also across the middle, in
    # case the file is searched in two ranges).
    grep -E --no-group-separator -B 3 -A 2 'token-rare-7777' "$T/big.full" >"$T/exp"
    run ctx dgrep --plain --cfg none --before 3 --after 2 --grep token-rare-7777 "$big"
    expect_rc ctx 0
    expect_bytes "--before 3 --after 2" "$OUT" "$T/exp"
    grep -E --no-group-separator -B 1 -A 1 'user[0-9]*999\|' "$T/big.full" >"$T/exp2"
    run ctx2 dgrep --plain --cfg none --before 1 --after 1 --grep 'user[0-9]*999\|' "$big"
    expect_rc ctx2 0
    expect_bytes "--before 1 --after 1 (regex)" "$OUT" "$T/exp2"
    ;;
  max_middle)
    # --max counts in file order; the 60000th ERROR is at 3/4 of the file.
    grep -m 60000 -F ERROR "$T/big.full" >"$T/exp"
    run mm dgrep --plain --cfg none --max 60000 --grep ERROR "$big"
    expect_rc mm 0
    expect_bytes "--max 60000" "$OUT" "$T/exp"
    ;;
  invert_context)
    # Selects the users ending in 0 (about 10 %) and the last line.
    grep -v -E --no-group-separator -B 2 -A 2 'user[0-9]*[1-9]\|' "$T/big.full" >"$T/exp"
    [ "$(wc -l <"$T/exp")" -ge 1000 ] || die "expected many lines"
    run ic dgrep --plain --cfg none --invert --before 2 --after 2 --grep 'user[0-9]*[1-9]\|' "$big"
    expect_rc ic 0
    expect_bytes "--invert with context" "$OUT" "$T/exp"
    ;;
  longlines)
    # About 30 MB in 100-200 KB lines: line ends far from any buffer edge.
    awk 'BEGIN { srand(7); x = "abcdefghij"; while (length(x) < 200000) x = x x;
      for (i = 1; i <= 200; i++) { n = 100000 + int(rand() * 100000);
        printf "%d %s%s\n", i, substr(x, 1, n), (i % 17 == 0) ? " NEEDLE" : "" } }' >"$T/long.log"
    grep -F NEEDLE "$T/long.log" >"$T/exp"
    [ "$(wc -l <"$T/exp")" -eq 11 ] || die "generator broken"
    run ll dgrep --plain --cfg none --grep NEEDLE "$T/long.log"
    expect_rc ll 0
    expect_bytes "long lines, literal" "$OUT" "$T/exp"
    run ll2 dgrep --plain --cfg none --grep '[a-j] NEEDLE$' "$T/long.log"
    expect_rc ll2 0
    expect_bytes "long lines, regex" "$OUT" "$T/exp"
    run ll3 dcat --plain --cfg none "$T/long.log"
    expect_rc ll3 0
    expect_bytes "long lines, dcat" "$OUT" "$T/long.log"
    ;;
  stdin_pipe)
    run_sh sp "cat '$big' | '$DTAIL_BIN/dcat' --plain --cfg none"
    expect_rc "dcat from a pipe" 0
    expect_bytes "dcat from a pipe" "$OUT" "$T/big.full"
    grep -F token-rare-7777 "$T/big.full" >"$T/exp"
    run_sh sp2 "cat '$big' | '$DTAIL_BIN/dgrep' --plain --cfg none --grep token-rare-7777"
    expect_rc "dgrep from a pipe" 0
    expect_bytes "dgrep from a pipe" "$OUT" "$T/exp"
    ;;
  pipe_close)
    # The reader of the output goes away: dcat must end promptly.
    head -n 1 "$big" >"$T/exp"
    run_sh pc "'$DTAIL_BIN/dcat' --plain --cfg none '$big' '$big' '$big' | head -n 1
               s=(\"\${PIPESTATUS[@]}\"); echo \"\${s[0]}\" >'$T/dcat_rc'; exit \"\${s[1]}\""
    expect_rc "dcat | head -n 1" 0
    expect_bytes "dcat | head -n 1" "$OUT" "$T/exp"
    drc=$(cat "$T/dcat_rc" 2>/dev/null)
    case $drc in
      0|1|141) ;;  # done, write error reported, or SIGPIPE
      *) fail "dcat | head -n 1: dcat ended with status '$drc' (want 0, 1 or 141 for SIGPIPE)" ;;
    esac
    ;;
  rss)
    # Peak RSS stays within 64 MiB whatever the file size.
    grep -qa -e __asan_init -e __ubsan_handle "$DTAIL_BIN/dcat" && skip "sanitizer build: RSS not meaningful"
    for c in "dcat --plain --cfg none" "dgrep --plain --cfg none --grep ERROR" \
             "dgrep --cfg none --noColor --grep INFO" "dgrep --plain --cfg none --before 2 --after 2 --grep token-rare"; do
      set -- $c
      b=$1; shift
      timeout -k 2 20 /usr/bin/time -f '%M' -o "$T/rss" "$DTAIL_BIN/$b" "$@" "$big" "$big" 2>"$T/err" | cksum >/dev/null
      RC=$?; ERR=$T/err; E2E_RUNS=$((E2E_RUNS + 1))
      expect_rc "$c" 0
      rss=$(tail -n 1 "$T/rss")
      note "$c: peak RSS $rss KiB"
      [ "$rss" -le 65536 ] || fail "$c: peak RSS $rss KiB, want <= 65536"
    done
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
