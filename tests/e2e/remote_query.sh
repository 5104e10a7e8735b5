# dtail --query through several dservers (harness fanout_lib.sh): each
# server follows its own data.log with the query and sends a delta every
# interval; the client merges them per interval (non-cumulative), or
# cumulatively when the query has an outfile.
# Usage: remote_query.sh intervals|outfile
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/fanout_lib.sh"
. "$(dirname "$0")/interactive_lib.sh"

need_bin dtail dmap

start() {   # start N: N servers on 127.0.0.1..N, each with an empty data.log
  follow_servers "$1"
}

start_bg() {   # start_bg ARGS...: dtail through the servers, in the background
  bg_start dtail "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" "$@"
}

all_following() {   # every server has started the tail request
  local log
  for log in "${FANOUT_LOGS[@]}"; do
    grep -q '|Start reading|' "$log" || return 1
  done
}

# Until every server has started the tail request (then it follows from
# the end of data.log: lines written from here on count).
wait_requests() {
  if poll 15 all_following; then
    sleep 0.3
    return 0
  fi
  local log
  for log in "${FANOUT_LOGS[@]}"; do tail -n 5 "$log" >&2; done
  cat "$T/bg.err" >&2
  die "the servers did not start following within 15 s"
}

stop_bg() {
  bg_stop TERM 5
  expect_rc "dtail after SIGTERM" 0
}

# stats N GRP [SERVER]: N DTail STATS lines of group GRP, lat 1..N.
stats() {
  awk -v n="$1" -v g="$2" 'BEGIN { for (i = 1; i <= n; i++)
    printf "INFO|1002-071100|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|grp=%s|lat=%d\n", g, i }'
}


case ${1:-} in
intervals)
  # Lines appended on three servers show up in one interval's table with
  # their total; the next interval shows only its own lines.
  start 3
  Q='from STATS select grp,count($line),sum(lat) group by grp interval 2'
  start_bg --files data.log --query "$Q"
  wait_requests
  stats 10 a >>"$SRV/s0/data.log"
  stats 20 a >>"$SRV/s1/data.log"
  stats 30 a >>"$SRV/s2/data.log"
  stats 4 b >>"$SRV/s2/data.log"
  # a: 60 lines, sum 55+210+465 = 730; b: 4 lines, sum 10.
  wait_out ' 730.000000 ' 10
  sleep 2.5   # an interval boundary between the two batches
  stats 5 a >>"$SRV/s0/data.log"
  stats 5 a >>"$SRV/s1/data.log"
  stats 5 a >>"$SRV/s2/data.log"
  # 15 lines, sum 45: the interval alone (cumulative would say 75 / 775).
  wait_out ' 45.000000 ' 10
  stop_bg
  grep -E '^ *a *\| *60 *\| *730' "$T/bg.out" >/dev/null ||
    fail "no table row 'a | 60 | 730' (3 servers' first batch merged)"
  grep -E '^ *b *\| *4 *\| *10' "$T/bg.out" >/dev/null || fail "no table row 'b | 4 | 10'"
  grep -E '^ *a *\| *15 *\| *45' "$T/bg.out" >/dev/null ||
    fail "no table row 'a | 15 | 45' (the second interval alone)"
  grep -E '\| *(75|775)[ .]' "$T/bg.out" >/dev/null && fail "a cumulative row (75 or 775) was printed"
  expect_contains "query above the table" "$T/bg.out" "$Q"
  fanout_stop_all
  ;;
outfile)
  # With an outfile the result is cumulative; at the end it equals
  # serverless dmap over all the lines the servers' files got.
  start 3
  Q='from STATS select grp,count($line),sum(lat),min(lat),max(lat),avg(lat) group by grp order by grp interval 1'
  start_bg --files data.log --query "$Q outfile $T/remote.csv"
  wait_requests
  : >"$T/all.log"
  for round in 1 2 3; do
    for s in 0 1 2; do
      stats $((round * 7 + s)) "g$(( (round + s) % 3 ))" >"$T/batch"
      cat "$T/batch" >>"$SRV/s$s/data.log"
      cat "$T/batch" >>"$T/all.log"
    done
    sleep 1.2
  done
  total=$(wc -l <"$T/all.log")
  csv_total() { [ "$(awk -F, 'NR > 1 { n += $2 } END { print n + 0 }' "$T/remote.csv" 2>/dev/null)" = "$total" ]; }
  poll 10 csv_total
  stop_bg
  run local dmap --noColor --files "$T/all.log" --query "$Q outfile $T/local.csv"
  expect_rc local 0
  expect_bytes "cumulative outfile" "$T/remote.csv" "$T/local.csv"
  fanout_stop_all
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
