# Reading stdin: TestDGrepPipeToStdin (a pipe, no file, within 5 s), `-` as
# the file, and dcat from a redirected file.
# Usage: bash stdin.sh dgrep_pipe|dgrep_dash|dcat_redirect|dcat_format|empty|dash_and_file
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep
need_input "$M" "$LINES_TXT" "$BLANK_TXT" "$CRLF_TXT"

case $mode in
  dgrep_pipe)
    need_compat
    RUN_TIMEOUT=5 run_sh pipe "cat '$M' | '$DTAIL_BIN/dgrep' --plain --cfg none --grep 1002-071947"
    expect_rc pipe 0
    expect_bytes pipe "$OUT" "$COMPAT/dgrep1.txt.expected"
    expect_empty "pipe stderr" "$ERR"
    ;;
  dgrep_dash)
    need_compat
    RUN_TIMEOUT=5 run_sh dash "cat '$M' | '$DTAIL_BIN/dgrep' --plain --cfg none --grep 1002-071947 -"
    expect_rc dash 0
    expect_bytes dash "$OUT" "$COMPAT/dgrep1.txt.expected"
    expect_empty "dash stderr" "$ERR"
    ;;
  dcat_redirect)
    # stdin a regular file (not a tty): read it.
    for p in "$LINES_TXT" "$BLANK_TXT" "$CRLF_TXT"; do
      f=$(basename "$p" .txt)
      RUN_STDIN=$p run "$f" dcat --plain --cfg none
      expect_rc "$f" 0
      expect_bytes "$f" "$OUT" "$p"
      RUN_STDIN=$p run "${f}_dash" dcat --plain --cfg none -
      expect_rc "${f}_dash" 0
      expect_bytes "${f}_dash" "$OUT" "$p"
    done
    ;;
  dcat_format)
    # Non-plain lines from stdin have the source `-`.
    printf 'alpha\nbeta\n' >"$T/in"
    printf 'REMOTE|h1|100|1|-|alpha\nREMOTE|h1|100|2|-|beta\n' >"$T/exp"
    DTAIL_HOSTNAME_OVERRIDE=h1 RUN_STDIN=$T/in run fmt dcat --cfg none --noColor
    expect_rc fmt 0
    expect_bytes fmt "$OUT" "$T/exp"
    ;;
  empty)
    # Empty stdin and an empty file: no output, exit 0.
    : >"$T/empty.log"
    RUN_STDIN=$T/empty.log run empty_stdin dcat --plain --cfg none
    expect_rc empty_stdin 0
    expect_empty empty_stdin "$OUT"
    run empty_file dcat --plain --cfg none "$T/empty.log"
    expect_rc empty_file 0
    expect_empty empty_file "$OUT"
    run empty_grep dgrep --plain --cfg none --grep x "$T/empty.log"
    expect_rc empty_grep 0
    expect_empty empty_grep "$OUT"
    ;;
  dash_and_file)
    # `-` among files: stdin is one of the inputs.
    cat "$BLANK_TXT" "$CRLF_TXT" >"$T/exp"
    RUN_STDIN=$BLANK_TXT run df dcat --plain --cfg none - "$CRLF_TXT"
    expect_rc df 0
    expect_multiset "- and a file" "$OUT" "$T/exp"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
