# The REMOTE|<host>|100|<lineno>|<source>|<line> form (not --plain).
# Usage: bash format.sh dcat|dgrep|multi|hostname
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep
need_input "$LINES_TXT" "$BLANK_TXT" "$CRLF_TXT" "$M"

remote() { # remote HOST FILE: the expected REMOTE lines for a whole file
  awk -v h="$1" -v s="$(basename "$2")" '{ print "REMOTE|" h "|100|" NR "|" s "|" $0 }' "$2"
}

case $mode in
  dcat)
    export DTAIL_HOSTNAME_OVERRIDE=myhost
    for p in "$LINES_TXT" "$BLANK_TXT" "$CRLF_TXT"; do
      f=$(basename "$p" .txt)
      remote myhost "$p" >"$T/$f.exp"
      run "$f" dcat --cfg none --noColor "$p"
      expect_rc "$f" 0
      expect_bytes "REMOTE form of $f.txt" "$OUT" "$T/$f.exp"
    done
    # A last line without newline gets one.
    printf 'one\ntwo' >"$T/nonl.log"
    printf 'REMOTE|myhost|100|1|nonl.log|one\nREMOTE|myhost|100|2|nonl.log|two\n' >"$T/nonl.exp"
    run nonl dcat --cfg none --noColor "$T/nonl.log"
    expect_rc nonl 0
    expect_bytes "REMOTE form, no final newline" "$OUT" "$T/nonl.exp"
    ;;
  dgrep)
    export DTAIL_HOSTNAME_OVERRIDE=myhost
    src=$(basename "$M")
    grep -n 1002-071947 "$M" | sed -E "s/^([0-9]+):/REMOTE|myhost|100|\\1|$src|/" >"$T/exp"
    [ "$(wc -l <"$T/exp")" -ge 2 ] || die "want lines of 1002-071947 in $M"
    run g dgrep --cfg none --noColor --grep 1002-071947 "$M"
    expect_rc g 0
    expect_bytes "dgrep REMOTE form with the files' line numbers" "$OUT" "$T/exp"
    grep -n -E '=6$' "$M" | sed -E "s/^([0-9]+):/REMOTE|myhost|100|\\1|$src|/" >"$T/exp2"
    [ -s "$T/exp2" ] || die "want lines ending in =6 in $M"
    run g2 dgrep --cfg none --noColor --grep '=6$' "$M"
    expect_rc g2 0
    expect_bytes "dgrep REMOTE form, regex" "$OUT" "$T/exp2"
    ;;
  multi)
    # Line numbers restart with every file; sources are the basenames.
    export DTAIL_HOSTNAME_OVERRIDE=myhost
    { remote myhost "$BLANK_TXT"; remote myhost "$CRLF_TXT"; } >"$T/exp"
    run m dcat --cfg none --noColor "$BLANK_TXT" "$CRLF_TXT"
    expect_rc m 0
    expect_multiset "two files in REMOTE form" "$OUT" "$T/exp"
    ;;
  hostname)
    # Without an override: the machine's short host name.
    h=$(hostname 2>/dev/null || cat /proc/sys/kernel/hostname)
    h=${h%%.*}
    [ -n "$h" ] || skip "no host name"
    remote "$h" "$BLANK_TXT" >"$T/exp"
    run h dcat --cfg none --noColor "$BLANK_TXT"
    expect_rc h 0
    expect_bytes "REMOTE form with the real short host name" "$OUT" "$T/exp"
    # DTAIL_HOSTNAME_OVERRIDE wins over integration mode? Not specified; only
    # check that the override is used.
    DTAIL_HOSTNAME_OVERRIDE=other run o dcat --cfg none --noColor "$BLANK_TXT"
    remote other "$BLANK_TXT" >"$T/exp2"
    expect_bytes "DTAIL_HOSTNAME_OVERRIDE" "$OUT" "$T/exp2"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
