# End-to-end tests of dtail, serverless: following files as they grow.
# Usage: bash dtail.sh colortable|checkhealth|follow|grep|rotate|truncate|
#                      glob|stdin|query|query_outfile|timeout|signal
#
# Background dtail runs (start_bg) write to $T/bg.out; lib.sh's wait_lines
# polls that file with a deadline, and `stop_bg` ends the run with SIGTERM
# and asserts it exits 0 within a bound.
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dtail

start_bg() { bg_start dtail "$@"; }   # start_bg ARGS...: dtail in the background

stop_bg() {
  bg_stop TERM 5
  expect_rc "dtail after SIGTERM" 0
}

# Gives a started dtail time to open its files and seek to their ends.
settle() { sleep 0.5; }

case "$mode" in
  colortable)
    run ct dtail --colorTable
    expect_rc ct 0
    expect_bytes "colour table" "$OUT" "$COMPAT/dtailcolortable.expected"
    run ctp dtail --colorTable --plain --timeout 1 --files "$M"
    expect_rc ctp 0
    # DTail's server-mode case: the table, with no connection made.
    run cts dtail --colorTable --servers 127.0.0.1:1 --trustAllHosts
    expect_rc cts 0
    expect_bytes "colour table (servers given)" "$OUT" "$COMPAT/dtailcolortable.expected"
    ;;
  checkhealth)
    run ch dtail --checkHealth
    expect_rc ch 1
    expect_contains "deprecation" "$OUT" "WARN: DTail health check has moved to separate binary dtailhealth"
    ;;
  follow)
    # Lines already in the file are not shown; lines appended are, in order.
    printf 'old 1\nold 2\n' >"$T/app.log"
    start_bg --plain --files "$T/app.log"
    settle
    for i in 1 2 3; do printf 'new %d\n' "$i" >>"$T/app.log"; done
    printf 'partial' >>"$T/app.log"
    wait_lines 3 10
    sleep 0.3
    printf ' line\n' >>"$T/app.log"
    wait_lines 4 10
    stop_bg
    printf 'new 1\nnew 2\nnew 3\npartial line\n' >"$T/want"
    expect_bytes "followed lines" "$T/bg.out" "$T/want"
    # The REMOTE format with the source id, and an empty line kept
    # (DTail drops empty lines in tail mode: D25).
    : >"$T/r.log"
    DTAIL_HOSTNAME_OVERRIDE=h start_bg --noColor --files "$T/r.log"
    settle
    printf 'one\n\ntwo\n' >>"$T/r.log"
    wait_lines 3 10
    stop_bg
    printf 'REMOTE|h|100|1|r.log|one\nREMOTE|h|100|2|r.log|\nREMOTE|h|100|3|r.log|two\n' >"$T/want"
    expect_bytes "REMOTE lines" "$T/bg.out" "$T/want"
    ;;
  grep)
    : >"$T/g.log"
    start_bg --plain --grep 'ERROR [0-9]+$' --files "$T/g.log"
    settle
    printf 'INFO 1\nERROR 2\nERROR x\nWARN 3\nERROR 4\n' >>"$T/g.log"
    wait_lines 2 10
    sleep 0.3
    stop_bg
    printf 'ERROR 2\nERROR 4\n' >"$T/want"
    expect_bytes "grep" "$T/bg.out" "$T/want"
    ;;
  rotate)
    # 1M lines written while the file is rotated (rename and create) three
    # times and truncated once (after its lines were seen): every line is
    # delivered exactly once.
    : >"$T/rot.log"
    start_bg --plain --files "$T/rot.log"
    settle
    rotate_check rotation "$T/rot.log"
    ;;
  truncate)
    # copytruncate: the file is copied and emptied in place; new lines
    # after it are read from the start, and a line cut by it is ended.
    printf 'before\n' >"$T/t.log"
    start_bg --plain --files "$T/t.log"
    settle
    printf 'a1\na2\nhalf' >>"$T/t.log"
    wait_lines 2 10
    sleep 0.3
    cp "$T/t.log" "$T/t.log.1"
    : >"$T/t.log"
    sleep 0.5
    printf 'b1\nb2\n' >>"$T/t.log"
    wait_lines 5 10
    stop_bg
    printf 'a1\na2\nhalf\nb1\nb2\n' >"$T/want"
    expect_bytes "copytruncate" "$T/bg.out" "$T/want"
    ;;
  glob)
    # A file that appears later and matches the glob is followed from its
    # start; a file rotated away under a matching name is not read again.
    mkdir "$T/logs"
    : >"$T/logs/a.log"
    DTAIL_HOSTNAME_OVERRIDE=h start_bg --noColor --files "$T/logs/*.log"
    settle
    printf 'a first\n' >>"$T/logs/a.log"
    printf 'b first\nb second\n' >"$T/logs/b.log"
    wait_lines 3 10
    mv "$T/logs/a.log" "$T/logs/a-old.log"
    printf 'a again\n' >"$T/logs/a.log"
    wait_lines 4 10
    sleep 1.5
    stop_bg
    sort "$T/bg.out" >"$T/got"
    # Line numbers go on across a rotation: they count the lines of the path.
    printf 'REMOTE|h|100|2|a.log|a again\nREMOTE|h|100|1|a.log|a first\nREMOTE|h|100|1|b.log|b first\nREMOTE|h|100|2|b.log|b second\n' | sort >"$T/want"
    expect_bytes "glob" "$T/got" "$T/want"
    ;;
  stdin)
    # A piped stdin is read to its end, then dtail exits.
    RUN_STDIN=$M run in dtail --plain --grep 1002-071947
    expect_rc in 0
    expect_bytes "stdin" "$OUT" "$COMPAT/dgrep1.txt.expected"
    ;;
  query)
    # Interval reports of the lines appended in each interval.
    : >"$T/q.log"
    start_bg --noColor --files "$T/q.log" --query 'from STATS select count($line),max($goroutines) group by $hostname interval 1'
    settle
    head -n 100 "$M" >>"$T/q.log"
    wait_lines 3 10
    stop_bg
    expect_contains "query line" "$T/bg.out" 'from STATS select count($line),max($goroutines) group by $hostname interval 1'
    expect_contains "table row" "$T/bg.out" '          100 |'
    ;;
  query_outfile)
    # With an outfile the result is cumulative, rewritten every interval.
    : >"$T/q.log"
    start_bg --files "$T/q.log" --query "from STATS select count(\$line),max(\$goroutines) group by \$hostname interval 1 outfile $T/q.csv"
    settle
    head -n 100 "$M" >>"$T/q.log"
    sleep 1.5
    tail -n +101 "$M" >>"$T/q.log"
    poll 10 grep -qs '^597,' "$T/q.csv"
    stop_bg
    printf 'count($line),max($goroutines)\n597,17.000000\n' >"$T/want"
    expect_bytes "cumulative outfile" "$T/q.csv" "$T/want"
    ;;
  timeout)
    : >"$T/o.log"
    start=$SECONDS
    run to dtail --plain --timeout 1 --files "$T/o.log"
    expect_rc to 0
    [ $((SECONDS - start)) -le 4 ] || fail "--timeout 1 took $((SECONDS - start)) s"
    run sa dtail --plain --shutdownAfter 1 --files "$T/o.log"
    expect_rc sa 0
    # A piped stdin that stalls ends at the deadline too, with or without
    # a query (it used to be waited for until it sent something).
    for q in "" "from STATS select count(\$line)"; do
      stall_start "$T/stall" 5 "$M"
      start=$SECONDS
      RUN_STDIN=$T/stall run stall dtail --plain --timeout 1 ${q:+--query "$q"}
      took=$((SECONDS - start))
      stall_stop
      rm -f "$T/stall"
      expect_rc stall 0
      [ "$took" -le 3 ] || fail "a stalled stdin held dtail --timeout 1 ${q:+--query} for $took s"
    done
    ;;
  signal)
    # A first SIGINT only prints a hint; a second within 3 s ends the run.
    : >"$T/s.log"
    start_bg --plain --files "$T/s.log"
    settle
    kill -INT "$BG_PID"
    sleep 0.3
    kill -0 "$BG_PID" 2>/dev/null || fail "dtail exited on the first SIGINT"
    # The second SIGINT: dtail must exit within 5 s.
    bg_stop INT 5
    expect_contains "hint" "$T/bg.err" "Hint: Hit Ctrl+C again to exit"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
