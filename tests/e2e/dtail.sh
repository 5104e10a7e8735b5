# End-to-end tests of dtail, serverless: following files as they grow.
# Usage: bash dtail.sh colortable|checkhealth|follow|grep|rotate|truncate|
#                      glob|stdin|query|query_outfile|timeout|signal
#
# Background dtail runs (start_bg) write to $T/bg.out; lib.sh's wait_lines
# polls that file with a deadline, and `stop_bg` ends the run with SIGTERM
# and asserts it exits 0 within a bound. Every wait is for an event (a line
# in the output, dtail holding a file open at its end); the bounds only
# guard against hangs.
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dtail

start_bg() { bg_start dtail "$@"; }   # start_bg ARGS...: dtail in the background

stop_bg() {
  bg_stop TERM 30
  expect_rc "dtail after SIGTERM" 0
}

# following FILE: until the background dtail has FILE open at its end, so
# that a line appended from now on is new to it. The files it follows
# from their end start with a line (old_line): a follower logs, opens and
# then seeks, and at offset 0 of an empty file "opened" and "at the end"
# look the same.
following() { wait_following "$BG_PID" "$1"; }
old_line() { echo "an old line, before dtail started"; }

case "$mode" in
  colortable)
    need_compat
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
    following "$T/app.log"
    for i in 1 2 3; do printf 'new %d\n' "$i" >>"$T/app.log"; done
    printf 'partial' >>"$T/app.log"
    wait_lines 3 30
    # The unended line has been read (dtail is at the end) before its end
    # comes: it must be held, not printed as a line of its own.
    following "$T/app.log"
    printf ' line\n' >>"$T/app.log"
    wait_lines 4 30
    stop_bg
    printf 'new 1\nnew 2\nnew 3\npartial line\n' >"$T/want"
    expect_bytes "followed lines" "$T/bg.out" "$T/want"
    # The REMOTE format with the source id, and an empty line kept
    # (DTail drops empty lines in tail mode: D25).
    old_line >"$T/r.log"
    DTAIL_HOSTNAME_OVERRIDE=h start_bg --noColor --files "$T/r.log"
    following "$T/r.log"
    printf 'one\n\ntwo\n' >>"$T/r.log"
    wait_lines 3 30
    stop_bg
    printf 'REMOTE|h|100|1|r.log|one\nREMOTE|h|100|2|r.log|\nREMOTE|h|100|3|r.log|two\n' >"$T/want"
    expect_bytes "REMOTE lines" "$T/bg.out" "$T/want"
    ;;
  grep)
    old_line >"$T/g.log"
    start_bg --plain --grep 'ERROR [0-9]+$' --files "$T/g.log"
    following "$T/g.log"
    printf 'INFO 1\nERROR 2\nERROR x\nWARN 3\nERROR 4\n' >>"$T/g.log"
    wait_lines 2 30
    # Everything was read: a line that should not match would be out by
    # the time the output is flushed, at the end of the file.
    following "$T/g.log"
    sleep 0.3
    stop_bg
    printf 'ERROR 2\nERROR 4\n' >"$T/want"
    expect_bytes "grep" "$T/bg.out" "$T/want"
    ;;
  rotate)
    # 1M lines written while the file is rotated (rename and create) three
    # times and truncated once (after its lines were seen): every line is
    # delivered exactly once.
    old_line >"$T/rot.log"
    start_bg --plain --files "$T/rot.log"
    rotate_check rotation "$T/rot.log" "$BG_PID"
    ;;
  truncate)
    # copytruncate: the file is copied and emptied in place; new lines
    # after it are read from the start. A line the truncation cut ("half",
    # read before its end came) is dropped, never shown as a line, and the
    # truncation is told on stderr as tail -F tells it.
    printf 'before\n' >"$T/t.log"
    start_bg --plain --files "$T/t.log"
    following "$T/t.log"
    printf 'a1\na2\nhalf' >>"$T/t.log"
    wait_lines 2 30
    following "$T/t.log"   # "half" was read too
    cp "$T/t.log" "$T/t.log.1"
    : >"$T/t.log"
    # Growth right after the truncation is read from the start whether or
    # not dtail looked in between (exec/scan/follow.c compares the bytes
    # before its offset), so no wait here.
    printf 'b1\nb2\n' >>"$T/t.log"
    wait_lines 4 30
    stop_bg
    printf 'a1\na2\nb1\nb2\n' >"$T/want"
    expect_contains "truncation told" "$ERR" "dtail: $T/t.log: file truncated; its unfinished last line was dropped"
    expect_bytes "copytruncate" "$T/bg.out" "$T/want"
    ;;
  glob)
    # A file that appears later and matches the glob is followed from its
    # start; a file rotated away under a matching name is not read again.
    mkdir "$T/logs"
    : >"$T/logs/a.log"
    DTAIL_HOSTNAME_OVERRIDE=h start_bg --noColor --files "$T/logs/*.log"
    following "$T/logs/a.log"
    printf 'a first\n' >>"$T/logs/a.log"
    printf 'b first\nb second\n' >"$T/logs/b.log"
    wait_lines 3 30
    mv "$T/logs/a.log" "$T/logs/a-old.log"
    printf 'a again\n' >"$T/logs/a.log"
    wait_lines 4 30
    # A negative check: the glob is expanded again every second, and
    # a-old.log must not be read again as a new file then.
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
    grep -F 1002-071947 "$M" >"$T/stdin.want" || die "no line of 1002-071947 in $M"
    expect_bytes "stdin" "$OUT" "$T/stdin.want"
    ;;
  query)
    # Interval reports of the lines appended in each interval.
    old_line >"$T/q.log"
    start_bg --noColor --files "$T/q.log" --query 'from STATS select count($line),max($goroutines) group by $hostname interval 1'
    following "$T/q.log"
    head -n 100 "$M" >>"$T/q.log"
    row=$(printf '%13s |' "$(head -n 100 "$M" | stats_records)")
    wait_out "$row" 30
    stop_bg
    expect_contains "query line" "$T/bg.out" 'from STATS select count($line),max($goroutines) group by $hostname interval 1'
    expect_contains "table row" "$T/bg.out" "$row"
    ;;
  query_outfile)
    # With an outfile the result is cumulative, rewritten every interval.
    old_line >"$T/q.log"
    start_bg --files "$T/q.log" --query "from STATS select count(\$line),max(\$goroutines) group by \$hostname interval 1 outfile $T/q.csv"
    following "$T/q.log"
    head -n 100 "$M" >>"$T/q.log"
    # One interval's outfile holds the first 100 lines; the next ones must
    # add to it.
    n1=$(head -n 100 "$M" | stats_records)
    stats_facts
    poll 30 grep -qs "^$n1," "$T/q.csv" || fail "no outfile with the first 100 lines ($n1 records) within 30 s"
    tail -n +101 "$M" >>"$T/q.log"
    poll 30 grep -qs "^$M_N," "$T/q.csv"
    stop_bg
    printf 'count($line),max($goroutines)\n%s,%s\n' "$M_N" "$M_MAX_GOR" >"$T/want"
    expect_bytes "cumulative outfile" "$T/q.csv" "$T/want"
    ;;
  timeout)
    : >"$T/o.log"
    start=$SECONDS
    run to dtail --plain --timeout 1 --files "$T/o.log"
    expect_rc to 0
    # The bound tells a deadline kept from none (run's own bound is 20 s).
    [ $((SECONDS - start)) -le 10 ] || fail "--timeout 1 took $((SECONDS - start)) s"
    run sa dtail --plain --shutdownAfter 1 --files "$T/o.log"
    expect_rc sa 0
    # A piped stdin that stalls ends at the deadline too, with or without
    # a query (it used to be waited for until it sent something). The pipe
    # stalls for 30 s, so the bound tells the deadline from the stall on a
    # machine of any speed.
    for q in "" "from STATS select count(\$line)"; do
      stall_start "$T/stall" 30 "$M"
      start=$SECONDS
      RUN_STDIN=$T/stall run stall dtail --plain --timeout 1 ${q:+--query "$q"}
      took=$((SECONDS - start))
      stall_stop
      rm -f "$T/stall"
      expect_rc stall 0
      [ "$took" -le 10 ] || fail "a stalled stdin held dtail --timeout 1 ${q:+--query} for $took s"
    done
    ;;
  signal)
    # A first SIGINT only prints a hint; a second within 3 s ends the run.
    old_line >"$T/s.log"
    start_bg --plain --files "$T/s.log"
    following "$T/s.log"   # the handlers are installed before files open
    kill -INT "$BG_PID"
    # The hint shows the first SIGINT was taken; a second sent before that
    # could merge with it into one pending signal.
    poll 30 grep -qF "Hint: Hit Ctrl+C again to exit" "$T/bg.err" ||
      fail "no hint on stderr within 30 s of the first SIGINT"
    kill -0 "$BG_PID" 2>/dev/null || fail "dtail exited on the first SIGINT"
    # The second SIGINT, within 3 s of the first: dtail must exit.
    bg_stop INT 10
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
