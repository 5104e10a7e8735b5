# dmap, serverless: DTail's acceptance cases (TestDMap1a-d, TestDMap2,
# TestDMapOutfileArbitraryPath, TestDMap4Append) as DTail compares them
# (multiset CSV, .query file equal to the query), from a file argument and
# from stdin; plus query errors (exit 2 before any input is read), the
# terminal table, and the parallel path against the sequential one.
# 1a..2 compare with DTail's files (need_compat); `oracle` runs the same
# queries over the project's generated STATS log against stats_oracle.awk,
# and so do the other modes that check results.
# Usage: bash dmap.sh 1a|1b|1c|1d|2|oracle|abspath|append|stdin|error|table|parallel|noquery|tables|interval|switch|huge|timeout
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
need_input "$M"

# check_csv LABEL QUERY EXPECTED [stdin]: run the query with outfile,
# compare the CSV as a multiset and the .query file exactly. EXPECTED is
# a file, or q1|q1b|q1c|q1d|q2: the oracle's answer for $M.
check_csv() {
  local label=$1 q=$2 exp=$3 how=${4:-file}
  local out=$T/$label.csv
  want_csv "$label" "$exp"
  exp=$WANT
  need_input "$exp"
  if [ "$how" = stdin ]; then
    RUN_STDIN=$M run "$label" dmap --cfg none --logLevel warn --noColor --query "$q outfile $out"
  else
    run "$label" dmap --cfg none --logLevel warn --noColor --query "$q outfile $out" "$M"
  fi
  expect_rc "$label" 0
  [ -f "$out" ] || { fail "$label: $out was not written"; return; }
  expect_multiset "$label csv" "$out" "$exp"
  if [ "$(cat "$out.query")" != "$q outfile $out" ]; then
    fail "$label: $out.query does not hold the query"
  fi
  [ -e "$out.tmp" ] && fail "$label: temporary file left behind"
  return 0
}

case $mode in
  1a) need_compat; check_csv 1a "$COMPAT_Q1" "$COMPAT/dmap1a.csv.expected" ;;
  1b) need_compat; check_csv 1b "$COMPAT_Q1 where lifetimeConnections >= 3" "$COMPAT/dmap1b.csv.expected" ;;
  1c) need_compat; check_csv 1c "$COMPAT_Q1 where \$time eq \"1002-071949\"" "$COMPAT/dmap1c.csv.expected" ;;
  1d) need_compat; check_csv 1d "$COMPAT_Q1D" "$COMPAT/dmap1d.csv.expected" ;;
  2) need_compat; check_csv 2 "$COMPAT_Q2" "$COMPAT/dmap2.csv.expected" ;;
  oracle)
    check_csv o1a "$COMPAT_Q1" q1
    check_csv o1b "$COMPAT_Q1 where lifetimeConnections >= 3" q1b
    check_csv o1c "$COMPAT_Q1 where \$time eq \"1002-071949\"" q1c
    check_csv o1d "$COMPAT_Q1D" q1d
    check_csv o2 "$COMPAT_Q2" q2
    ;;
  stdin)
    check_csv stdin_1a "$COMPAT_Q1" q1 stdin
    check_csv stdin_2 "$COMPAT_Q2" q2 stdin
    ;;
  abspath)
    mkdir -p "$T/deep/er"
    check_csv abs "$COMPAT_Q2" q2
    ;;
  append)
    # DTail's TestDMap4Append: `outfile append:X` names a file literally
    # called "append:X", so X stays as the first step wrote it.
    oracle_csv q2 "$T/q2.want"
    stats_facts
    cd "$T" || die "cd"
    X=dmap4.csv
    run s1 dmap --cfg none --query "$COMPAT_Q2 outfile $X" "$M"
    expect_rc s1 0
    expect_multiset "step 1" "$X" "$T/q2.want"
    run s2 dmap --cfg none --query "$COMPAT_Q2_AVG_REVERSE outfile append:$X" "$M"
    expect_rc s2 0
    expect_multiset "step 2" "$X" "$T/q2.want"
    run s3 dmap --cfg none --query "select count(\$line),\$hostname group by \$hostname outfile append:$X" "$M"
    expect_rc s3 0
    expect_multiset "step 3" "$X" "$T/q2.want"
    [ "$(cat "$X.query")" = "$COMPAT_Q2 outfile $X" ] || fail "the .query file changed"
    [ -f "append:$X" ] || fail "append:$X was not written"
    # Real append mode: header once, each result once (DTail's D14 fixed).
    run a1 dmap --cfg none --query "$COMPAT_Q1 outfile append real.csv" "$M"
    run a2 dmap --cfg none --query "$COMPAT_Q1 outfile append real.csv" "$M"
    expect_rc a2 0
    [ "$(grep -c '^count' real.csv)" -eq 1 ] || fail "append wrote the header twice"
    [ "$(grep -c "^$M_N," real.csv)" -eq 2 ] || fail "append: want two result rows"
    ;;
  error)
    # A query error exits 2 before reading input: stdin never closes here.
    RUN_STDIN=/dev/zero RUN_TIMEOUT=5 run err dmap --cfg none 'from STATS select cnt($line)'
    expect_rc err 2
    expect_contains "error names the problem" "$ERR" "did you mean count?"
    expect_contains "caret line" "$ERR" "^"
    run bad dmap --cfg none --query 'from STATS select count($line) order by avg($x)' "$M"
    expect_rc bad 2
    ;;
  noquery)
    run nq dmap --cfg none "$M"
    expect_rc nq 2
    expect_contains "no query" "$ERR" "No mapreduce query specified"
    ;;
  table)
    # DTail's terminal table (§2.12), byte for byte.
    stats_facts
    [ "$M_TOP_TIES" = 0 ] || die "the busiest second of $M is not unique"
    run t dmap --cfg none --quiet --noColor --query 'select count($line),$hostname,avg($goroutines) from STATS group by $hostname' "$M"
    expect_rc t 0
    printf ' count($line) |       $hostname | avg($goroutines) \n--------------|-----------------|------------------\n%13s | integrationtest | %16s \n' "$M_N" "$M_AVG_GOR" >"$T/want"
    DTAIL_HOSTNAME_OVERRIDE=integrationtest run t2 dmap --cfg none --quiet --query 'select count($line),$hostname,avg($goroutines) from STATS group by $hostname' "$M"
    expect_bytes "table" "$OUT" "$T/want"
    # Colours as DTail paints the table: header bold, the order-by column
    # underlined, group-by columns reversed, delimiters dim; the query above.
    run c dmap --cfg none --quiet --color always --query 'from STATS select count($line),$time group by $time order by count($line) limit 1' "$M"
    expect_rc c 0
    printf '\033[36m\033[40m\033[2mfrom STATS select count($line),$time group by $time order by count($line) limit 1\033[0m\033[49m\033[39m\n' >"$T/cwant"
    printf '\033[37m\033[44m\033[1m\033[4m count($line) \033[0m\033[49m\033[39m\033[37m\033[44m\033[2m|\033[0m\033[49m\033[39m\033[37m\033[44m\033[1m\033[7m       $time \033[0m\033[49m\033[39m\n' >>"$T/cwant"
    printf '\033[37m\033[44m\033[2m--------------\033[0m\033[49m\033[39m\033[37m\033[44m\033[2m|\033[0m\033[49m\033[39m\033[37m\033[44m\033[2m-------------\033[0m\033[49m\033[39m\n' >>"$T/cwant"
    printf '\033[37m\033[44m %12s \033[49m\033[39m\033[37m\033[44m\033[2m|\033[0m\033[49m\033[39m\033[37m\033[44m %s \033[49m\033[39m\n' "$M_TOP_N" "$M_TOP_TIME" >>"$T/cwant"
    expect_bytes "coloured table" "$OUT" "$T/cwant"
    run nc dmap --cfg none --quiet --noColor --color always --query 'from STATS select count($line) limit 1' "$M"
    if grep -q $'\033' "$OUT"; then fail "--noColor must win over --color always"; fi
    # More than 10 rows without limit: 10 shown and DTail's warning.
    run l dmap --cfg none --query "$COMPAT_Q2" "$M"
    expect_rc l 0
    [ "$(wc -l <"$OUT")" -eq 12 ] || fail "want header, rule and 10 rows, got $(wc -l <"$OUT") lines"
    expect_contains "limit warning" "$ERR" "Got $M_TIMES results but limited terminal output to 10 rows!"
    ;;
  parallel)
    # A file large enough for both cores gives exactly what the sequential
    # (stdin) path gives, last() included.
    for i in $(seq 1 300); do cat "$M"; done >"$T/big.log"
    sed 's/currentConnections=/currentConnections=1/' "$M" >>"$T/big.log"
    q='from STATS select count($line),last($time),last(currentConnections),avg($goroutines),p90($goroutines),max(lifetimeConnections) group by $time order by count($line)'
    run par dmap --cfg none --quiet --query "$q outfile $T/par.csv" "$T/big.log"
    expect_rc par 0
    RUN_STDIN=$T/big.log run seq dmap --cfg none --quiet --query "$q outfile $T/seq.csv"
    expect_rc seq 0
    expect_bytes "parallel == sequential" "$T/par.csv" "$T/seq.csv"
    stats_facts
    grep -q ",$M_LAST_TIME,1$M_LAST_CUR," "$T/par.csv" || fail "last() must come from the last line of the file"
    ;;
  tables)
    # `from STATS` reads only MAPREDUCE:STATS records of a mixed log; lines
    # of other tables and other formats are counted, not aggregated.
    { cat "$M"
      printf 'INFO|1002-071950|1|x.go:1|8|99|7|0.1|1h|MAPREDUCE:OTHER|hostname=x|currentConnections=0\n'
      printf 'WARN|1002-071950|some ordinary log line\n'; } >"$T/mixed.log"
    run t dmap --cfg none --query "$COMPAT_Q1 outfile $T/t.csv" "$T/mixed.log"
    expect_rc t 0
    oracle_csv q1 "$T/t.want"
    expect_multiset "only STATS lines" "$T/t.csv" "$T/t.want"
    stats_facts
    expect_contains "summary counts" "$ERR" "$((M_LINES + 2)) lines read, $M_N matched"
    ;;
  interval)
    # `interval 1`: while stdin is still open, the table so far is printed
    # every second; the final table follows at the end of input. The rest
    # of the input is written only once the interim table of the first 100
    # lines is out, so neither batch can fall into the other's table.
    mkfifo "$T/iv.in"
    exec 5<>"$T/iv.in"
    OUT=$T/iv.out ERR=$T/iv.err
    timeout -k 2 60 "$DTAIL_BIN/dmap" --cfg none --quiet --noColor 'from STATS select count($line) interval 1' \
      <"$T/iv.in" >"$OUT" 2>"$ERR" 5>&- &
    ivpid=$!
    E2E_RUNS=$((E2E_RUNS + 1))
    n1=$(head -n 100 "$M" | stats_records)
    stats_facts
    head -n 100 "$M" >&5
    poll 30 grep -q "^ *$n1 \$" "$OUT" || fail "no interim table of the first 100 lines ($n1 records) within 30 s"
    tail -n +101 "$M" >&5
    exec 5>&-
    wait "$ivpid"
    RC=$?
    expect_rc iv 0
    n100=$(grep -c "^ *$n1 \$" "$OUT")
    nall=$(grep -c "^ *$M_N \$" "$OUT")
    [ "$n100" -ge 1 ] || fail "no interim table with the first 100 lines"
    [ "$nall" -eq 1 ] || fail "want exactly one final table with $M_N, got $nall"
    [ "$(tail -n 1 "$OUT")" = "$(printf '%13s ' "$M_N")" ] || fail "the final table must come last"
    ;;
  switch)
    # Blocks that alternate between STATS records and other lines make the
    # scan switch between checking the table in the extractor and searching
    # for it first; every STATS line must count exactly once either way.
    awk 'BEGIN { for (b = 0; b < 24; b++) for (i = 0; i < 30000; i++) {
                   if (b % 2 == 0) printf "INFO|1002-071143|1|s.go:1|8|%d|7|0.1|1h|MAPREDUCE:STATS|hostname=h%d\n", i % 50, i % 7;
                   else if (i % 3 == 0) printf "INFO|1002-071143|1|s.go:1|8|%d|7|0.1|1h|MAPREDUCE:OTHER|hostname=h%d\n", i % 50, i % 7;
                   else printf "WARN|1002-071143|a line about |MAPREDUCE:STATS| in text %d\n", i } }' >"$T/alt.log"
    want_n=$(grep -c '^INFO|.*|MAPREDUCE:STATS|' "$T/alt.log")
    want_sum=$(awk -F'|' '$10 == "MAPREDUCE:STATS" { s += $6 } END { print s }' "$T/alt.log")
    run sw dmap --cfg none --quiet --query "from STATS select count(\$line),sum(\$goroutines) outfile $T/sw.csv" "$T/alt.log"
    expect_rc sw 0
    printf 'count($line),sum($goroutines)\n%s,%s.000000\n' "$want_n" "$want_sum" >"$T/sw.want"
    expect_bytes "STATS lines counted once in every mode" "$T/sw.csv" "$T/sw.want"
    RUN_STDIN=$T/alt.log run sw2 dmap --cfg none --quiet --query "from STATS select count(\$line),sum(\$goroutines) outfile $T/sw2.csv"
    expect_bytes "stdin gives the same" "$T/sw2.csv" "$T/sw.want"
    ;;
  huge)
    # Numbers as wide as a double goes are printed whole, as printf's %f
    # prints them (cells were once cut at 63 characters).
    printf 'v\n1e300\n5e299\n-1e-7\n' >"$T/huge.csv"
    run h dmap --cfg none --query "select sum(v),max(v),min(v),count(\$line) logformat csv outfile $T/h.csv" "$T/huge.csv"
    expect_rc h 0
    { echo 'sum(v),max(v),min(v),count($line)'
      # awk computes in doubles, as dmap does (bash's printf would use long double).
      awk 'BEGIN { printf "%f,%f,%f,3\n", 1e300 + 5e299 + -1e-7, 1e300, -1e-7 }'; } >"$T/want"
    expect_bytes "huge values" "$T/h.csv" "$T/want"
    ;;
  timeout)
    # --timeout ends the reading while input could still come: 40 lines
    # wait in a pipe that the test holds open, so the input never ends;
    # dmap stops after 1 s with the table of exactly those lines, a warning
    # and exit 0. The bound tells a deadline kept from none.
    mkfifo "$T/to.in"
    exec 5<>"$T/to.in"
    head -n 40 "$M" >&5
    start=$SECONDS
    RUN_STDIN=$T/to.in run to dmap --cfg none --noColor --timeout 1 --query 'select count($line)'
    took=$((SECONDS - start))
    exec 5>&-
    expect_rc to 0
    [ "$took" -le 10 ] || fail "--timeout 1 took $took s"
    n=$(awk 'NR == 3 { print $1 }' "$OUT")
    [ "$n" = 40 ] || fail "want the count of the 40 lines read, got: $(cat "$OUT")"
    expect_contains "timeout warning" "$ERR" "--timeout 1 s reached: the result covers only what was read until then"
    # A pipe that stalls (no byte for 30 s) cannot hold the run past it
    # either: the wait for input ends at the deadline.
    stall_start "$T/stall" 30 "$M"
    start=$SECONDS
    RUN_STDIN=$T/stall run stall dmap --cfg none --noColor --timeout 1 --query 'select count($line)'
    took=$((SECONDS - start))
    stall_stop
    expect_rc stall 0
    [ "$took" -le 10 ] || fail "a stalled pipe held --timeout 1 for $took s"
    expect_contains "stall warning" "$ERR" "--timeout 1 s reached"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
