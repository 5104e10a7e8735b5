# Lines longer than the maximum are split into chunks of exactly that many
# bytes, each its own line (reference 4.2); memory stays bounded.
# Usage: bash long_lines.sh flag|default|grep|warning|memory
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep

# chunks N FILE: the expected split of FILE at N bytes per line.
chunks() {
  awk -v n="$1" '{ while (length($0) > n) { print substr($0, 1, n); $0 = substr($0, n + 1) } print }' "$2"
}

case $mode in
  flag)
    { echo short
      awk 'BEGIN { s = ""; for (i = 0; i < 105; i++) s = s sprintf("%010d", i); print s }'   # 1050 bytes
      echo "exactly fifty bytes of text ......................"
      awk 'BEGIN { s = ""; for (i = 0; i < 25; i++) s = s sprintf("%010d", i); print s }'    # 250 bytes
      printf 'tail' ; } >"$T/in.log"
    chunks 100 "$T/in.log" >"$T/exp"
    [ "$(wc -l <"$T/exp")" -eq 17 ] || die "expected 17 lines, generator broken"
    run split dcat --plain --logLevel error --cfg none --maxLineLength 100 "$T/in.log"
    expect_rc split 0
    expect_bytes "--maxLineLength 100" "$OUT" "$T/exp"
    expect_empty "stderr at --logLevel error" "$ERR"
    ;;
  default)
    # Default maximum 1 MiB: a 3 MiB + 100 byte line gives 4 lines.
    awk 'BEGIN { s = "0123456789abcdef"; while (length(s) < 3145728) s = s s; printf "%s", substr(s, 1, 3145728);
                 for (i = 0; i < 10; i++) printf "0123456789"; printf "\nnext\n" }' >"$T/in.log"
    chunks 1048576 "$T/in.log" >"$T/exp"
    [ "$(wc -l <"$T/exp")" -eq 5 ] || die "expected 5 lines, generator broken"
    run split dcat --plain --logLevel error --cfg none "$T/in.log"
    expect_rc split 0
    expect_bytes "default max line length (1 MiB)" "$OUT" "$T/exp"
    ;;
  grep)
    # Each chunk is filtered on its own: a match inside the third chunk
    # prints that chunk only.
    awk 'BEGIN { for (i = 0; i < 250; i++) printf "a"; printf "NEEDLE"; for (i = 0; i < 100; i++) printf "b"; print ""; print "NEEDLE short" }' >"$T/in.log"
    chunks 100 "$T/in.log" | grep -F NEEDLE >"$T/exp"
    [ "$(wc -l <"$T/exp")" -eq 2 ] || die "generator broken"
    run g dgrep --plain --logLevel error --cfg none --maxLineLength 100 --grep NEEDLE "$T/in.log"
    expect_rc g 0
    expect_bytes "dgrep on split chunks" "$OUT" "$T/exp"
    ;;
  warning)
    # One warning per file, not per line; never in --plain stdout.
    for i in 1 2 3; do
      awk 'BEGIN { for (i = 0; i < 300; i++) printf "x"; print "" }'
      echo ok
    done >"$T/in.log"
    chunks 100 "$T/in.log" >"$T/exp"
    run w dcat --plain --cfg none --logLevel warn --maxLineLength 100 "$T/in.log"
    expect_rc w 0
    expect_bytes "--plain stdout with warnings on" "$OUT" "$T/exp"
    n=$(grep -c -i 'long log line' "$ERR")
    [ "$n" -le 1 ] || fail "$n long-line warnings for one file, want at most 1"
    ;;
  memory)
    # A 64 MiB + 10 byte line without newline: memory must stay bounded.
    head -c 67108874 /dev/zero | tr '\0' 'z' >"$T/in.log"
    sanitized=0
    grep -qa -e __asan_init -e __ubsan_handle "$DTAIL_BIN/dcat" && sanitized=1
    timeout -k 2 20 /usr/bin/time -f '%M' -o "$T/rss" "$DTAIL_BIN/dcat" --plain --logLevel error --cfg none "$T/in.log" \
      2>"$T/err" | wc -l >"$T/lines"
    RC=$?; OUT=$T/lines; ERR=$T/err; E2E_RUNS=$((E2E_RUNS + 1))
    expect_rc memory 0
    [ "$(cat "$T/lines")" -eq 65 ] || fail "64 MiB + 10 byte line: $(cat "$T/lines") output lines, want 65"
    if [ "$sanitized" -eq 1 ]; then
      note "sanitizer build: RSS bound not checked"
      finish
    fi
    rss=$(tail -n 1 "$T/rss")
    note "peak RSS ${rss} KiB"
    [ "$rss" -le 65536 ] || fail "peak RSS ${rss} KiB for one 64 MiB line, want <= 64 MiB"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
