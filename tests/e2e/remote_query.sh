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

# Until every server follows its data.log from the end: lines written from
# here on count.
wait_requests() {
  local i
  for i in "${!FANOUT_PIDS[@]}"; do
    wait_follow_new "$i" 1 || { cat "$T/bg.err" >&2; die "server $i did not start following"; }
  done
}

stop_bg() {
  bg_stop TERM 30
  expect_rc "dtail after SIGTERM" 0
}

# stats N GRP: N DTail STATS lines of group GRP, lat 1..N.
stats() {
  awk -v n="$1" -v g="$2" 'BEGIN { for (i = 1; i <= n; i++)
    printf "INFO|1002-071100|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|grp=%s|lat=%d\n", g, i }'
}

# sums GRP FROM [FILE]: count and sum(lat) over the rows of group GRP in
# every table after line FROM of FILE (the output; "0 0" without any).
sums() {
  local s
  s=$(table_sums "${3:-$T/bg.out}" "$2" "^ *$1 *[|]")
  echo "${s:-0 0}"
}

# group_twice QUERY: some table of the output has a group in two rows
# (deltas of several servers in one interval must be one row per group).
group_twice() {
  awk -v q="$1" '$0 == q { split("", seen); next }
    /^ *[a-z]+ *[|]/ { if (seen[$1]++) found = 1 }
    END { exit !found }' "$T/bg.out"
}

case ${1:-} in
intervals)
  # Lines appended on three servers show up in the interval tables with
  # their total, one row per group; the tables after the first batch was
  # reported hold only the second batch. Each server sends its delta at its
  # own interval (from its request's start), so a batch may be reported in
  # one table or spread over two: the checks add the tables up. The parts
  # of a batch differ in size and each is one write, so no two tables are
  # the same (an unchanged table is not printed again).
  start 3
  Q='from STATS select grp,count($line),sum(lat) group by grp interval 2'
  start_bg --files data.log --query "$Q"
  wait_requests
  stats 10 a >"$T/b0"
  stats 20 a >"$T/b1"
  { stats 30 a; stats 4 b; } >"$T/b2"
  for s in 0 1 2; do cat "$T/b$s" >>"$SRV/s$s/data.log"; done
  # a: 60 lines, sum 55+210+465 = 730; b: 4 lines, sum 10.
  first_reported() {
    local a b
    a=$(sums a 0) b=$(sums b 0)
    [ "${a% *}" -ge 60 ] && [ "${b% *}" -ge 4 ]
  }
  poll 30 first_reported || fail "waited 30 s for the first batch's 64 lines to be reported"
  # A report takes what it prints from the client's table: lines written
  # from now on are in a later interval.
  from=$(wc -l <"$T/bg.out")
  head -n "$from" "$T/bg.out" >"$T/first"
  for s in 0 1 2; do stats $((5 + s)) a >"$T/b$s"; cat "$T/b$s" >>"$SRV/s$s/data.log"; done
  # 18 lines, sum 15+21+28 = 64 (cumulative would say 78 / 794).
  second_reported() { local a; a=$(sums a "$from"); [ "${a% *}" -ge 18 ]; }
  poll 30 second_reported || fail "waited 30 s for the second batch's 18 lines to be reported"
  stop_bg
  [ "$(sums a 0 "$T/first")" = "60 730" ] ||
    fail "the first batch's a rows sum to '$(sums a 0 "$T/first")', want '60 730' (3 servers' lines)"
  [ "$(sums b 0 "$T/first")" = "4 10" ] ||
    fail "the first batch's b rows sum to '$(sums b 0 "$T/first")', want '4 10'"
  [ "$(sums a "$from")" = "18 64" ] ||
    fail "later a rows sum to '$(sums a "$from")', want '18 64' (the second batch alone, not cumulative)"
  [ "$(sums b "$from")" = "0 0" ] || fail "a b row after the first batch was reported (cumulative)"
  group_twice "$Q" && fail "a table has a group in two rows (the servers' deltas not merged)"
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
  csv_total() { [ "$(awk -F, 'NR > 1 { n += $2 } END { print n + 0 }' "$T/remote.csv" 2>/dev/null)" = "$total" ]; }
  for round in 1 2 3; do
    for s in 0 1 2; do
      stats $((round * 7 + s)) "g$(( (round + s) % 3 ))" >"$T/batch"
      cat "$T/batch" >>"$SRV/s$s/data.log"
      cat "$T/batch" >>"$T/all.log"
    done
    # The round is in the outfile before the next is written: the rounds
    # fall in different intervals, which the outfile must add up.
    total=$(wc -l <"$T/all.log")
    poll 30 csv_total || fail "waited 30 s for round $round's $total lines in the outfile"
  done
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
