# dmap's interactive prompt (REPL) through a pseudo-terminal with the real
# libedit: tests/support/ptydrive.c types into it and waits for output.
# Usage: bash repl.sh MODE (see the case list below)
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap ptydrive
need_input "$M"
export HOME=$T TERM=vt100 DTAIL_HOSTNAME_OVERRIDE=integrationtest

# drive LABEL SCRIPT-TEXT [DMAP ARGS...]: runs dmap --noColor ARGS on a pty
# through the steps; the transcript is $T/LABEL.out.
drive() {
  local label=$1 steps=$2; shift 2
  printf '%s\n' "$steps" >"$T/$label.steps"
  RUN_TIMEOUT=${DRIVE_TIMEOUT:-40} run "$label" "$DTAIL_BIN/ptydrive" -t "${STEP_TIMEOUT:-10}" \
    -o "$T/$label.tty" "$T/$label.steps" -- "$DTAIL_BIN/dmap" --cfg none --noColor "$@"
  if [ "$RC" -ne 0 ]; then
    fail "$label: a step failed (ptydrive exit $RC)"
    show_stderr
  fi
  OUT=$T/$label.tty
}

# The table of `from STATS select count($line),$hostname group by $hostname`.
stats_facts
ROW=$(printf '%13s | integrationtest' "$M_N")

case $mode in
  query)
    drive q 'expect dmap> 
send from STATS select count($line),$hostname group by $hostname;\r
expect  count($line) |       $hostname
expect '"$ROW"'
expect dmap> 
send \x04
exit 0' "$M"
    ;;
  complete)
    # A keyword (fro -> from), a $variable ($hostn -> $hostname) and a field
    # of the data (lifetimeConn -> lifetimeConnections); the query that runs
    # names them whole, so the header proves the completion.
    drive c 'expect dmap> 
send fro\t
sleep 200
send STATS sel\t
sleep 200
send max(lifetimeConn\t
sleep 200
send ) group by $hostn\t
sleep 200
send ;\r
expect max(lifetimeConnections)
expect dmap> 
send \x04
exit 0' "$M"
    expect_contains "completed query ran" "$OUT" "max(lifetimeConnections)"
    # An ambiguous prefix lists the candidates.
    drive c2 'expect dmap> 
send from STATS select p\t
expect percentage(
send \x15\x04
exit 0' "$M"
    expect_contains "candidates listed" "$OUT" "percentile("
    ;;
  multiline)
    drive m 'expect dmap> 
send from STATS\r
expect ...> 
send select count($line),$hostname\r
expect ...> 
send group by $hostname\r
expect ...> 
send \r
expect '"$ROW"'
send select count($line),$hostname\r
send from STATS group by $hostname;\r
expect '"$ROW"'
expect dmap> 
send \x04
exit 0' "$M"
    ;;
  error)
    drive e 'expect dmap> 
send select cnt($line) from STATS;\r
expect did you mean count? (at byte 7)
expect        ^
expect dmap> 
send from STATS select count($line),$hostname group by $hostname;\r
expect '"$ROW"'
send .nonsense\r
expect unknown command .nonsense
expect dmap> 
send \x04
exit 0' "$M"
    ;;
  output)
    command -v sqlite3 >/dev/null || skip "the sqlite3 CLI is not installed"
    drive o "expect dmap> 
send .output $T/x.sqlite\\r
expect results go to $T/x.sqlite (SQLite)
send from STATS select count(\$line),\$hostname group by \$hostname;\\r
expect wrote $T/x.sqlite
send .output $T/x.csv\\r
send from STATS select count(\$line),\$hostname group by \$hostname;\\r
expect wrote $T/x.csv
send .output append $T/series.sqlite\\r
expect appended
send from STATS select count(\$line),\$hostname group by \$hostname;\\r
expect appended to $T/series.sqlite
send from STATS select count(\$line),\$hostname group by \$hostname;\\r
expect appended to $T/series.sqlite
send .output\\r
expect results go to the terminal
send from STATS select count(\$line),\$hostname group by \$hostname;\\r
expect $ROW
expect dmap> 
send \\x04
exit 0" "$M"
    [ -f "$T/x.sqlite" ] || fail "x.sqlite was not written"
    got=$(sqlite3 "$T/x.sqlite" 'select typeof("count($line)"), "count($line)", "$hostname" from STATS' 2>&1)
    [ "$got" = "integer|$M_N|integrationtest" ] || fail "sqlite rows: '$got'"
    got=$(sqlite3 "$T/x.sqlite" 'select count(*), max(query) from queries' 2>&1)
    case $got in 1\|*'select count($line)'*) ;; *) fail "queries table: '$got'" ;; esac
    got=$(sqlite3 "$T/series.sqlite" 'select group_concat(run_id), sum("count($line)") from STATS' 2>&1)
    [ "$got" = "1,2|$((2 * M_N))" ] || fail "append series: '$got'"
    printf 'count($line),$hostname\n%s,integrationtest\n' "$M_N" >"$T/want.csv"
    expect_bytes "x.csv" "$T/x.csv" "$T/want.csv"
    ;;
  output_dest)
    # .output to a FIFO: the query fails naming it, the FIFO stays, the
    # prompt comes back; through a link the link's target gets the result.
    mkfifo "$T/p.csv"
    ln -s real.csv "$T/l.csv"
    drive od "expect dmap> 
send .output $T/p.csv\\r
expect results go to $T/p.csv
send from STATS select count(\$line),\$hostname group by \$hostname;\\r
expect outfile $T/p.csv: is a FIFO
expect dmap> 
send .output $T/l.csv\\r
expect results go to $T/l.csv
send from STATS select count(\$line),\$hostname group by \$hostname;\\r
expect wrote $T/l.csv
expect dmap> 
send \\x04
exit 0" "$M"
    [ -p "$T/p.csv" ] || fail "the FIFO was replaced"
    [ -L "$T/l.csv" ] || fail "the link was replaced"
    printf 'count($line),$hostname\n%s,integrationtest\n' "$M_N" >"$T/want.csv"
    expect_bytes "link target" "$T/real.csv" "$T/want.csv"
    ;;
  cancel)
    # A query of seconds on these inputs (three keys of 16 nested md5sum and
    # a backtracking regex), so that Ctrl-C comes while it runs.
    M16='md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum(md5sum($line))))))))))))))))'
    SLOW="select count(\$line) group by $M16, ${M16/\$line/maskdigits(\$line)}, ${M16/\$line/md5sum(\$line)}, regex(\$line, \"^(.*?[0-9]+)*\\\\|\", 1);"
    # > 64 MiB: re-scanned by the query; Ctrl-C stops it.
    for i in $(seq 1 16); do cat "$M"; done >"$T/block"
    for i in $(seq 1 100); do cat "$T/block"; done >"$T/big.log"
    drive k 'expect dmap> 
send '"$SLOW"'\r
sleep 700
send \x03
expect Query cancelled.
expect dmap> 
send .files\r
expect re-scanned by each query
send from STATS select count($line),$hostname group by $hostname;\r
expect '"$(printf '%13s | integrationtest' $((1601 * M_N)))"'
expect dmap> 
send \x04
exit 0' "$T/big.log" "$M"
    # 50 MB: kept in memory; the same query, cancelled there too.
    head -c 50000000 "$T/big.log" >"$T/mid.log"
    drive k2 'expect dmap> 
send .files\r
expect in memory (read once)
expect dmap> 
send '"$SLOW"'\r
sleep 500
send \x03
expect Query cancelled.
expect dmap> 
send \x04
exit 0' "$T/mid.log"
    ;;
  ctrl_d)
    drive d 'expect dmap> 
send from STATS select count($line),$hostname group by $hostname;\r
expect '"$ROW"'
send from STATS\r
expect ...> 
send \x03
expect dmap> 
send \x04
exit 0' "$M"
    [ -f "$T/.dtail_history" ] || fail "no history file in HOME"
    expect_contains "history" "$T/.dtail_history" 'group\040by\040$hostname;'
    # The history is read again by the next session (Up recalls it).
    drive d2 'expect dmap> 
send \x1b[A\r
expect '"$ROW"'
expect dmap> 
send \x04
exit 0' "$M"
    ;;
  dot)
    drive t 'expect dmap> 
send .files\r
expect in memory (read once)
send .schema\r
expect $goroutines
expect lifetimeConnections
send .format json\r
send from STATS select count($line),$hostname group by $hostname;\r
expect {"count($line)":'"$M_N"',"$hostname":"integrationtest"}
send .format csv\r
send from STATS select count($line),$hostname group by $hostname;\r
expect '"$M_N"',integrationtest
send .timer on\r
send .format table\r
send from STATS select count($line),$hostname group by $hostname;\r
expect lines read
send .help\r
expect .schema [LOGFORMAT]
send .quit\r
exit 0' "$M"
    ;;
  pipe)
    # Without a terminal: no query and no --repl keeps dmap's usage error;
    # --repl reads queries from the pipe, line by line.
    run nq dmap --cfg none "$M"
    expect_rc nq 2
    expect_contains "no query" "$ERR" "No mapreduce query specified"
    printf 'from STATS select count($line),$hostname group by $hostname;\n.quit\n' >"$T/in"
    RUN_STDIN=$T/in run rp dmap --cfg none --noColor --repl "$M"
    expect_rc rp 0
    expect_contains "repl from a pipe" "$OUT" "$ROW"
    run rq dmap --cfg none --repl --query 'select count($line)' "$M"
    expect_rc "--repl with a query" 2
    run rs dmap --cfg none --repl
    expect_rc "--repl without input" 2
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
