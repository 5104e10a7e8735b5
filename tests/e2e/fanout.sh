# Fan-out end to end: one client, several real dservers on 127.0.0.1,
# 127.0.0.2, 127.0.0.3 (their own ports). Each server works in its own
# directory, so the relative name data.log is a different file on each:
# that is how the tests split data across servers.
# Usage: fanout.sh CASE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/fanout_lib.sh"

need_bin dcat dgrep dmap dtail

# gen SEED LINES: DTail STATS lines with a group (grp=gN) and an integer
# value (lat) drawn at random.
gen() {
  awk -v seed="$1" -v n="$2" 'BEGIN { srand(seed);
    for (i = 0; i < n; i++) {
      g = int(rand() * 7); v = int(rand() * 10000); s = i % 60;
      printf "INFO|1002-0711%02d|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|grp=g%d|lat=%d|seq=%d\n", s, g, v, i
    } }'
}

# split SEED FILE N: each line of FILE to the data.log of a random server.
split_random() {
  awk -v seed="$1" -v n="$3" -v srv="$SRV" 'BEGIN { srand(seed) }
    { k = int(rand() * n); print > (srv "/s" k "/data.log") }' "$2"
}

case ${1:-} in
tls)
  # A connection thread's memory: thread-local storage is zeroed into
  # every thread as it starts (a client's thread per server, a dserver's
  # per session), so no binary may keep buffers there (docs/fanout.md,
  # "Memory per server"; dmap's and dserver's TLS was 72 KiB).
  command -v readelf >/dev/null || skip "readelf (binutils) is not installed"
  need_bin dserver
  for b in dcat dgrep dmap dtail dserver; do
    run "tls_$b" readelf -lW "$DTAIL_BIN/$b"
    expect_rc "tls_$b" 0
    hex=$(awk '$1 == "TLS" { print $6 }' "$OUT")
    size=$((${hex:-0}))
    [ "${size:-0}" -le 1024 ] || fail "$b: $size bytes of thread-local storage per thread, want <= 1024"
  done
  ;;
targets)
  fanout_start_n 2
  S0=${FANOUT_SERVERS[0]} S1=${FANOUT_SERVERS[1]}
  echo a >"$SRV/s0/data.log"
  echo b >"$SRV/s1/data.log"
  # A file of servers: comments, blank lines, a duplicate.
  printf '# the servers\n\n%s\n  %s  # second\n%s\n' "$S0" "$S1" "$S0" >"$T/servers.txt"
  run file dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "$T/servers.txt" --files data.log
  expect_rc file 0
  printf 'a\nb\n' >"$T/ab"
  expect_multiset file "$OUT" "$T/ab"
  # A comma list with duplicates (the same host:port twice): read once.
  run dup dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "$S0,$S1,$S1,$S0" --files data.log
  expect_rc dup 0
  expect_multiset dup "$OUT" "$T/ab"
  # The summary counts de-duplicated servers.
  run dup_summary dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$S0,$S1,$S1" --files data.log
  expect_contains dup_summary "$ERR" "|SUMMARY|servers=2|ok=2|failed=0|unfinished=0"
  # --discovery COMMA and FILE, and a /regex/ filter over their lists.
  run disc_comma dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --discovery "COMMA:$S0,$S1" --files data.log
  expect_rc disc_comma 0
  expect_multiset disc_comma "$OUT" "$T/ab"
  run disc_file dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --discovery FILE --servers "$T/servers.txt" --files data.log
  expect_rc disc_file 0
  expect_multiset disc_file "$OUT" "$T/ab"
  run disc_regex dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --discovery "FILE:$T/servers.txt" --servers '/^127\.0\.0\.2:/' --files data.log
  expect_rc disc_regex 0
  echo b >"$T/b"
  expect_bytes disc_regex "$OUT" "$T/b"
  # Usage errors exit 2 before connecting and name what is wrong.
  printf '%s\nhost:notaport\n' "$S0" >"$T/bad.txt"
  run bad_line dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$T/bad.txt" --files data.log
  expect_rc bad_line 2
  expect_contains bad_line "$ERR" "bad.txt line 2"
  run bad_module dcat "${SERVER_CLIENT_FLAGS[@]}" --discovery DNS --files data.log
  expect_rc bad_module 2
  expect_contains bad_module "$ERR" 'unknown module "DNS"'
  run regex_alone dcat "${SERVER_CLIENT_FLAGS[@]}" --servers '/x/' --files data.log
  expect_rc regex_alone 2
  run regex_empty dcat "${SERVER_CLIENT_FLAGS[@]}" --discovery "COMMA:$S0" --servers '/^nomatch/' --files data.log
  expect_rc regex_empty 2
  expect_contains regex_empty "$ERR" "no server to connect to"
  run bad_port dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$S0,[::1]:99999" --files data.log
  expect_rc bad_port 2
  # IPv6 literals in brackets (if this machine has ::1).
  if "$DTAIL_BIN/dserver" --help >/dev/null 2>&1 && ip -6 addr show lo 2>/dev/null | grep -q '::1'; then
    fanout_start ::1
    echo c >"$SRV/s2/data.log"
    run v6 dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "${FANOUT_SERVERS[2]}" --files data.log
    expect_rc v6 0
    expect_lines v6 "$OUT" 1
  else
    note "no ::1 on this machine: IPv6 case skipped"
  fi
  fanout_stop_all
  ;;
cat)
  fanout_start_n 3
  gen 7 30000 >"$T/all.log"
  split_random 11 "$T/all.log" 3
  need_input "$SRV/s0/data.log" "$SRV/s1/data.log" "$SRV/s2/data.log"
  run plain dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "$(fanout_list)" --files data.log
  expect_rc plain 0
  expect_multiset plain "$OUT" "$T/all.log"
  # REMOTE lines: every line whole, in DTail's format.
  run remote dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log
  expect_rc remote 0
  expect_lines remote "$OUT" 30000
  bad=$(grep -cv '^REMOTE|[^|]*|100|[0-9]*|[^|]*|INFO|1002-0711[0-9][0-9]|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|grp=g[0-9]|lat=[0-9]*|seq=[0-9]*$' "$OUT")
  [ "$bad" -eq 0 ] || fail "remote: $bad lines are not whole REMOTE lines"
  expect_contains remote "$ERR" "|SUMMARY|servers=3|ok=3|failed=0|unfinished=0"
  # dgrep through all of them.
  run grep dgrep "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "$(fanout_list)" --files data.log --regex 'grp=g3\|'
  expect_rc grep 0
  grep 'grp=g3|' "$T/all.log" >"$T/g3"
  need_input "$T/g3"
  expect_multiset grep "$OUT" "$T/g3"
  # Compressed lines give the same bytes.
  run zstd dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --compress --servers "$(fanout_list)" --files data.log
  expect_rc zstd 0
  expect_multiset zstd "$OUT" "$T/all.log"
  fanout_stop_all
  ;;
map)
  # Property: for random splits of random data over 3 servers, dmap through
  # all of them equals serverless dmap over the whole data.
  fanout_start_n 3
  Q='from STATS select grp,count($line),sum(lat),min(lat),max(lat),avg(lat),percentage(lat),percentile(lat),p50(lat),p99(lat),quantile(lat,0.75),$line,last(seq) group by grp'
  for seed in 1 2 3; do
    rm -f "$SRV"/s*/data.log
    gen "$seed" $((5000 + seed * 3000)) >"$T/all.log"
    split_random "$((seed + 100))" "$T/all.log" 3
    for f in "$SRV"/s*/data.log; do need_input "$f"; done
    run "local$seed" dmap --noColor --files "$T/all.log" --query "$Q outfile $T/local$seed.csv"
    expect_rc "local$seed" 0
    run "fan$seed" dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log --query "$Q outfile $T/fan$seed.csv"
    expect_rc "fan$seed" 0
    need_input "$T/local$seed.csv" "$T/fan$seed.csv"
    # Exact columns 1-8 (grp count sum min max avg percentage percentile)
    # and the header; quantiles (9-11) within 2 %; $line is any line of the
    # group, last(seq) the last seq of the group on one of the servers.
    head -n 1 "$T/local$seed.csv" >"$T/h.l"
    head -n 1 "$T/fan$seed.csv" >"$T/h.f"
    expect_bytes "header$seed" "$T/h.f" "$T/h.l"
    tail -n +2 "$T/local$seed.csv" | sort -t, -k1,1 >"$T/l.rows"
    tail -n +2 "$T/fan$seed.csv" | sort -t, -k1,1 >"$T/f.rows"
    cut -d, -f1-8 "$T/l.rows" >"$T/l.exact"
    cut -d, -f1-8 "$T/f.rows" >"$T/f.exact"
    expect_bytes "exact$seed" "$T/f.exact" "$T/l.exact"
    expect_lines "groups$seed" "$T/f.rows" 7
    paste -d, "$T/l.rows" "$T/f.rows" | awk -F, -v n=13 '
      { for (c = 9; c <= 11; c++) { a = $c; b = $(c + n);
          if (a == 0 ? b != 0 : (a - b) / a > 0.02 || (b - a) / a > 0.02) {
            print "quantile column " c " of " $1 ": " b " vs " a; bad++ } } }
      END { exit bad > 0 }' >"$T/q.err" || fail "quantiles$seed: $(head -n 3 "$T/q.err" | tr '\n' ' ')"
    # last(seq): the last seq of that group in one server's part.
    for f in "$SRV"/s*/data.log; do
      awk -F'|' '{ g = $11; sub("grp=", "", g); s = $13; sub("seq=", "", s); last[g] = s }
        END { for (g in last) print g "," last[g] }' "$f"
    done | sort >"$T/lasts"
    awk -F, '{ print $1 "," $13 }' "$T/f.rows" | sort >"$T/f.last"
    missing=$(comm -23 "$T/f.last" "$T/lasts" | head -n 3)
    [ -z "$missing" ] || fail "last$seed: not the last seq of any server's part: $missing"
  done
  # The table on the terminal form (no outfile) as serverless: the same
  # groups and values.
  Q2='from STATS select count($line),sum(lat),max(lat) group by grp order by count($line)'
  run local_table dmap --noColor --files "$T/all.log" --query "$Q2"
  run fan_table dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log --query "$Q2"
  expect_rc fan_table 0
  expect_bytes fan_table "$T/fan_table.out" "$T/local_table.out"
  fanout_stop_all
  ;;
refused)
  # A port nothing listens on: reported at once, the others carry on.
  fanout_start_n 2
  echo a >"$SRV/s0/data.log"
  echo b >"$SRV/s1/data.log"
  fanout_kill 1
  DEAD=${FANOUT_SERVERS[1]}
  run refused dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "${FANOUT_SERVERS[0]},$DEAD" --files data.log
  expect_rc refused 1
  echo a >"$T/a"
  expect_bytes refused "$OUT" "$T/a"
  expect_contains refused "$ERR" "$DEAD|cannot connect"
  # Not plain: the CLIENT line and the summary naming it.
  run summary dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "${FANOUT_SERVERS[0]},$DEAD" --files data.log
  expect_rc summary 1
  expect_contains summary "$ERR" "|ERROR|$DEAD|cannot connect"
  expect_contains summary "$ERR" "|SUMMARY|servers=2|ok=1|failed=1|unfinished=0"
  expect_contains summary "$ERR" "|ERROR|SUMMARY|$DEAD|cannot connect"
  # --quiet: no summary, the failure still reported, still exit 1.
  run quiet dcat "${SERVER_CLIENT_FLAGS[@]}" --quiet --servers "${FANOUT_SERVERS[0]},$DEAD" --files data.log
  expect_rc quiet 1
  grep -q SUMMARY "$ERR" && fail "quiet: a summary was printed"
  expect_contains quiet "$ERR" "|ERROR|$DEAD|cannot connect"
  # dmap: the result of the servers that answered, exit 1.
  run map dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "${FANOUT_SERVERS[0]},$DEAD" --files data.log --query 'select count($line)'
  expect_rc map 1
  expect_contains map "$OUT" "            1"
  fanout_stop_all
  ;;
blackhole)
  # A server that accepts TCP but never speaks (stopped): the handshake
  # times out after Common.SSHConnectTimeoutMs; the other server's output
  # is complete long before.
  fanout_start_n 2
  echo a >"$SRV/s0/data.log"
  echo b >"$SRV/s1/data.log"
  kill -STOP "${FANOUT_PIDS[1]}"
  printf '{"Common": {"SSHConnectTimeoutMs": 1500}}\n' >"$T/client.json"
  t0=$(date +%s%N)
  RUN_TIMEOUT=60 run hole dcat "${SERVER_CLIENT_FLAGS[@]}" --cfg "$T/client.json" --servers "$(fanout_list)" --files data.log
  t1=$(date +%s%N)
  kill -CONT "${FANOUT_PIDS[1]}"
  expect_rc hole 1
  expect_contains hole "$OUT" "|a"
  expect_contains hole "$ERR" "|ERROR|${FANOUT_SERVERS[1]}|"
  ms=$(((t1 - t0) / 1000000))
  note "blackhole run took $ms ms (connect timeout 1500 ms)"
  # Not before the timeout; the upper bound only tells a handshake that
  # waits for ever (or far past the timeout) from one cut at it.
  [ "$ms" -ge 1400 ] && [ "$ms" -lt 30000 ] || fail "hole: took $ms ms, want 1.5 s or a little more"
  # dtailhealth gives up on it too, within its --connectTimeout, naming it.
  kill -STOP "${FANOUT_PIDS[1]}"
  t0=$(date +%s%N)
  RUN_TIMEOUT=60 run health "$DTAIL_BIN/dtailhealth" --server "${FANOUT_SERVERS[1]}" --connectTimeout 1000
  t1=$(date +%s%N)
  kill -CONT "${FANOUT_PIDS[1]}"
  expect_rc health 2
  cat "$OUT" "$ERR" >"$T/health.all"
  expect_contains health "$T/health.all" "CRITICAL"
  expect_contains health "$T/health.all" "${FANOUT_SERVERS[1]}"
  ms=$(((t1 - t0) / 1000000))
  [ "$ms" -lt 30000 ] || fail "health: took $ms ms with --connectTimeout 1000"
  fanout_stop_all
  ;;
badkey)
  # One server knows another key: its refusal is reported, the other reads.
  fanout_start_n 1
  ssh-keygen -q -t ed25519 -N '' -f "$T/other" || die "ssh-keygen"
  mkdir -p "$SRV/cache2" && chmod 755 "$SRV/cache2"
  cp "$T/other.pub" "$SRV/cache2/$SERVER_USER.authorized_keys"
  chmod 644 "$SRV/cache2/$SERVER_USER.authorized_keys"
  sed "s#$SRV/cache\"#$SRV/cache2\"#" "$SERVER_CFG" >"$SRV/other.json"
  SERVER_CFG=$SRV/other.json fanout_start 127.0.0.2
  echo a >"$SRV/s0/data.log"
  echo b >"$SRV/s1/data.log"
  run badkey dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log
  expect_rc badkey 1
  expect_contains badkey "$OUT" "|a"
  expect_contains badkey "$ERR" "|ERROR|${FANOUT_SERVERS[1]}|authentication failed"
  fanout_stop_all
  ;;
denied)
  # A file one server cannot read: its server reports it, exit 1, the
  # other server's lines are all there.
  fanout_start_n 2
  echo a >"$SRV/s0/data.log"
  echo b >"$SRV/s1/data.log"
  chmod 000 "$SRV/s1/data.log"
  run denied dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log
  expect_rc denied 1
  expect_contains denied "$OUT" "|a"
  grep -q '|b$' "$OUT" && fail "denied: the unreadable file was read"
  expect_contains denied "$ERR" "data.log"
  fanout_stop_all
  ;;
dies)
  # A server killed mid-query: reported, the others complete, exit 1.
  fanout_start_n 3
  gen 5 400000 >"$SRV/s2/data.log"
  echo a >"$SRV/s0/data.log"
  echo b >"$SRV/s1/data.log"
  # stdout is a pipe read only once $T/go exists, so the big server cannot
  # finish (its file is far larger than every buffer on the way): from the
  # moment it has its file open it is mid-query until it is killed. (The
  # gate opens by itself after 60 s, so that it ends with a failed test.)
  BG_TIMEOUT=80 bg_start bash -c "set -o pipefail; '$DTAIL_BIN/dcat' --key '$SERVER_KEY' --trustAllHosts \
    --plain --servers '$(fanout_list)' --files data.log |
    { for ((i = 0; i < 1200; i++)); do [ -e '$T/go' ] && break; sleep 0.05; done; cat; }"
  wait_holds "${FANOUT_PIDS[2]}" "$SRV/s2/data.log" 30
  fanout_kill 2
  touch "$T/go"
  bg_stop none 30
  expect_rc dies 1
  grep -qx a "$OUT" || fail "dies: the line of server 0 is missing"
  grep -qx b "$OUT" || fail "dies: the line of server 1 is missing"
  n=$(wc -l <"$OUT")
  [ "$n" -lt 400002 ] || fail "dies: all $n lines arrived: the server was not killed mid-query"
  expect_contains dies "$ERR" "${FANOUT_SERVERS[2]}|"
  fanout_stop_all
  ;;
sigint)
  # First Ctrl-C: the connection stats; a second one within 3 s ends the
  # run. A stopped server keeps the run going (a connect timeout longer
  # than every bound here).
  fanout_start_n 2
  echo a >"$SRV/s0/data.log"
  echo b >"$SRV/s1/data.log"
  kill -STOP "${FANOUT_PIDS[1]}"
  printf '{"Common": {"SSHConnectTimeoutMs": 120000}}\n' >"$T/client.json"
  # Signalled directly (bg_start: timeout(1) would take the SIGINT itself);
  # a watchdog bounds the run.
  BG_TIMEOUT=80 bg_start dcat "${SERVER_CLIENT_FLAGS[@]}" --cfg "$T/client.json" \
    --servers "$(fanout_list)" --files data.log
  # Server 0's line: the run is past its start, its handler is in place.
  wait_out '|a' 30
  kill -INT "$BG_PID"
  # The hint says the first one was taken: a second one sent before could
  # be merged with it into one.
  poll 30 grep -qF "Hint: Hit Ctrl+C again to exit" "$T/bg.err" ||
    fail "sigint: no hint after the first Ctrl-C"
  # Only a negative check: time for a run wrongly ended by the first one to
  # exit (the second one must still come well within its 3 s).
  sleep 0.3
  kill -0 "$BG_PID" 2>/dev/null || fail "sigint: the first Ctrl-C ended the run"
  # The second Ctrl-C ends the run, long before the connect timeout; the
  # bound only guards against a hang.
  bg_stop INT 30
  kill -CONT "${FANOUT_PIDS[1]}"
  [ "$RC" -ne 137 ] || fail "sigint: still running at the bound"
  expect_contains sigint "$ERR" "Connection stats: connected="
  expect_contains sigint "$ERR" "|servers=2|"
  expect_contains sigint "$OUT" "|a"
  expect_contains sigint "$ERR" "${FANOUT_SERVERS[1]}|interrupted"
  fanout_stop_all
  ;;
tail)
  # dtail through two servers: lines written on both arrive; server 2 is
  # killed and started again on its port, and the client reconnects (2 s
  # backoff) and follows again. Each step waits for its event: a server
  # following its file from the end before a line is written to it, a line
  # in the output before the next step.
  fanout_start_n 2
  : >"$SRV/s0/data.log"
  : >"$SRV/s1/data.log"
  chmod 666 "$SRV/s0/data.log" "$SRV/s1/data.log"
  PORT1=${FANOUT_SERVERS[1]##*:}
  BG_TIMEOUT=80 bg_start dtail --key "$SERVER_KEY" --trustAllHosts --plain \
    --servers "$(fanout_list)" --files data.log
  wait_following "${FANOUT_PIDS[0]}" "$SRV/s0/data.log"
  wait_following "${FANOUT_PIDS[1]}" "$SRV/s1/data.log"
  echo x1 >>"$SRV/s0/data.log"; echo y1 >>"$SRV/s1/data.log"
  wait_out x1 30
  wait_out y1 30
  fanout_kill 1
  FANOUT_PORT=$PORT1 FANOUT_DIR=$SRV/s1 fanout_start 127.0.0.2
  wait_following "${FANOUT_PIDS[2]}" "$SRV/s1/data.log"
  echo y2 >>"$SRV/s1/data.log"
  echo x2 >>"$SRV/s0/data.log"
  wait_out y2 30
  wait_out x2 30
  bg_stop TERM 30
  expect_rc tail 0
  printf 'x1\ny1\nx2\ny2\n' >"$T/want"
  expect_multiset tail "$OUT" "$T/want"
  expect_contains tail "$ERR" "${FANOUT_SERVERS[1]}|"
  # --timeout ends a run through servers with exit 0, not before.
  t0=$(date +%s%N)
  BG_TIMEOUT=60 bg_start dtail --key "$SERVER_KEY" --trustAllHosts --plain --timeout 2 \
    --servers "${FANOUT_SERVERS[0]},${FANOUT_SERVERS[2]}" --files data.log
  bg_stop none 30
  ms=$((($(date +%s%N) - t0) / 1000000))
  expect_rc tail_timeout 0
  [ "$ms" -ge 2000 ] || fail "tail_timeout: ended after $ms ms, before --timeout 2"
  fanout_stop_all
  ;;
large)
  # A large input through a server. dmap --timeout is the server's deadline
  # too: a run that passes it ends with the table of what was read (exit 0,
  # the warning). And a result of 400k groups (over 16 MiB serialized, the
  # frame limit) arrives in parts and equals serverless dmap's.
  # The slow run waits for its only file slot (MaxConcurrentCats 1),
  # held by a dcat that cannot finish (its stdout is a FIFO nobody reads,
  # so the server's sending blocks on a file far larger than every
  # buffer); a file still waiting at the deadline is not read.
  SERVER_CFG_EXTRA='"MaxConcurrentCats": 1, "MaxGlobTargets": 1'
  fanout_start_n 1
  gen 7 400000 >"$SRV/s0/data.log"
  echo x >"$SRV/s0/slow1.log"
  echo y >"$SRV/s0/slow2.log"
  mkfifo "$T/hold.fifo"
  exec 3<>"$T/hold.fifo"
  "$DTAIL_BIN/dcat" "${SERVER_CLIENT_FLAGS[@]}" --servers "${FANOUT_SERVERS[0]}" --plain --files data.log \
    >"$T/hold.fifo" 2>"$T/hold.err" &
  holder=$!
  # The server opens a file only once it has the slot.
  wait_holds "${FANOUT_PIDS[0]}" "$SRV/s0/data.log" 60 || die "slow: the holding dcat did not start"
  start=$SECONDS
  BG_TIMEOUT=60 bg_start dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "${FANOUT_SERVERS[0]}" \
    --files 'slow*.log' --timeout 1 --query 'select count($line)'
  # The cut of the glob to MaxGlobTargets is told after the run's deadline
  # is set and before its file waits for the slot: from that warning on,
  # 1 s of the clock is past the deadline, whatever the machine's speed.
  poll 60 grep -qF 'Glob expansion exceeded server limit' "${FANOUT_LOGS[0]}" ||
    die "slow: the server did not tell the cut of slow*.log"
  sleep 1.5
  kill -KILL "$holder"
  wait "$holder" 2>/dev/null
  exec 3<&-
  bg_stop none 15
  took=$((SECONDS - start))
  expect_rc slow 0
  [ "$took" -le 15 ] || fail "dmap --timeout 1 through a server took $took s"
  # The holder's writes stall, and a stalled request gives its read slot
  # up after 1 s (docs/dserver.md, "Stalled readers"), so the slot may come
  # free before or after the deadline: the server's log says which, and
  # the answer must match it.
  if grep -q 'Not read: timeout reached while waiting for a read slot' "${FANOUT_LOGS[0]}"; then
    expect_contains slow "$ERR" "timeout reached: the result covers only what was read until then"
    grep -qx ' *0 *' "$OUT" || fail "slow: a file was read after the deadline: $(tail -n 1 "$OUT")"
  else
    note "slow: the holder yielded its slot before the deadline"
    grep -q 'Start reading|.*slow' "${FANOUT_LOGS[0]}" || fail "slow: the file was neither read nor cut"
    grep -qx ' *1 *' "$OUT" || fail "slow: the file read before the deadline was not counted: $(tail -n 1 "$OUT")"
  fi
  Q="from STATS select seq, grp, count(\$line), sum(lat), max(lat) group by seq, grp"
  RUN_TIMEOUT=60 run local dmap --noColor --files "$SRV/s0/data.log" --query "$Q outfile $T/local.csv"
  expect_rc local 0
  RUN_TIMEOUT=60 run many dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "${FANOUT_SERVERS[0]}" --files data.log \
    --query "$Q outfile $T/many.csv"
  expect_rc many 0
  need_input "$T/local.csv" "$T/many.csv"
  sort "$T/local.csv" >"$T/local.sorted"
  sort "$T/many.csv" >"$T/many.sorted"
  expect_lines many "$T/many.sorted" 400001
  expect_bytes many "$T/many.sorted" "$T/local.sorted"
  fanout_stop_all
  ;;
nolibssh)
  # The clients load libssh only to connect (client/tools/lazy_lib.h). One that
  # cannot be loaded is a clear error naming the library, per server, and
  # serverless runs never notice it.
  fanout_start_n 1
  echo a >"$SRV/s0/data.log"
  soname=$(grep -a -o -m1 'libssh\.so\.[0-9][0-9]*' "$DTAIL_BIN/dcat" | head -1)
  [ -n "$soname" ] || die "no libssh soname in $DTAIL_BIN/dcat"
  mkdir -p "$T/fakelib"
  echo 'int dtail_not_libssh;' >"$T/fakelib/empty.c"
  cc -shared -fPIC -Wl,-soname,"$soname" -o "$T/fakelib/$soname" "$T/fakelib/empty.c" ||
    die "cannot build a stand-in $soname"
  LD_LIBRARY_PATH=$T/fakelib run broken dcat "${SERVER_CLIENT_FLAGS[@]}" --plain \
    --servers "${FANOUT_SERVERS[0]}" --files data.log
  expect_rc broken 1
  expect_contains broken "$ERR" "$soname, needed for connecting to servers, has no ssh_"
  echo a >"$T/a"
  LD_LIBRARY_PATH=$T/fakelib run serverless dcat --plain "$SRV/s0/data.log"
  expect_rc serverless 0
  expect_bytes serverless "$OUT" "$T/a"
  # The real one, for contrast: the same command works.
  run real dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "${FANOUT_SERVERS[0]}" --files data.log
  expect_rc real 0
  expect_bytes real "$OUT" "$T/a"
  fanout_stop_all
  ;;
exitcodes)
  # Interrupted and failed runs exit non-zero, print no empty table, and
  # the summary counts what failed (issue 13, point 7).
  fanout_start_n 3
  for i in 0 1 2; do echo "line $i" >"$SRV/s$i/data.log"; done
  # SIGTERM while the only server never answered (stopped): exit 1, no
  # table, the server counted as unfinished.
  kill -STOP "${FANOUT_PIDS[2]}"
  printf '{"Common": {"SSHConnectTimeoutMs": 60000}}\n' >"$T/client.json"
  BG_TIMEOUT=60 bg_start dmap "${SERVER_CLIENT_FLAGS[@]}" --cfg "$T/client.json" \
    --servers "${FANOUT_SERVERS[2]}" --files data.log --query 'select count($line)'
  # The run is waiting for the stopped server: its TCP connection is made
  # (the kernel accepts it), so the client holds a socket.
  poll 30 eval "ls -l /proc/$BG_PID/fd 2>/dev/null | grep -q socket:" || fail "term: the client never connected"
  bg_stop TERM 30
  kill -CONT "${FANOUT_PIDS[2]}"
  expect_rc "term" 1
  expect_empty "term: no table" "$OUT"
  expect_contains term "$ERR" "|ERROR|SUMMARY|servers=1|ok=0|failed=0|unfinished=1"
  # Every server reports the file missing: each counts as failed.
  run missing dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files nope.log \
    --query 'select count($line)'
  expect_rc missing 1
  expect_contains missing "$ERR" "|ERROR|SUMMARY|servers=3|ok=0|failed=3|unfinished=0"
  run missing_cat dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files nope.log
  expect_rc missing_cat 1
  expect_contains missing_cat "$ERR" "|ERROR|SUMMARY|servers=3|ok=0|failed=3|unfinished=0"
  # One file missing of three: two ok, one failed.
  rm "$SRV/s1/data.log"
  run one_missing dcat "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log
  expect_rc one_missing 1
  expect_contains one_missing "$ERR" "|ERROR|SUMMARY|servers=3|ok=2|failed=1|unfinished=0"
  # Every server refuses the key: exit 1, no table header.
  ssh-keygen -q -t ed25519 -N '' -f "$T/other" || die "ssh-keygen"
  run noauth dmap --key "$T/other" --trustAllHosts --noColor --servers "$(fanout_list)" \
    --files data.log --query 'select count($line)'
  expect_rc noauth 1
  expect_empty "noauth: no table" "$OUT"
  expect_contains noauth "$ERR" "|ERROR|SUMMARY|servers=3|ok=0|failed=3|unfinished=0"
  fanout_stop_all
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
