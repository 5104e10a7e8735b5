# What an SQLite outfile records about its run, checked with the sqlite3
# CLI against the inputs themselves: queries.bytes_read is exactly the
# bytes of the inputs (`stat -c %s`) on every read path (read(), mapped
# windows, parallel ranges, gzip: decoded bytes), query_inputs has one row
# per (server, file) with its bytes, lines and status, and a run in which a
# server or a file failed is marked partial (queries.partial, a warning on
# stderr) while a clean one is not.
# Usage: bash sqlite_accounting.sh bytes|missing|remote|failed
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
need_input "$M"
command -v sqlite3 >/dev/null || die "the sqlite3 CLI is missing (scripts/deps.sh installs it)"

Q='from STATS select count($line) group by $hostname'

sq() {
  timeout 20 sqlite3 -batch -list "$1" "$2"
}

# copies FILE N: $M N times into FILE, then a last line without '\n', so
# windows, ranges and the end of input all fall inside lines.
copies() {
  local i
  : >"$1"
  for i in $(seq 1 "$2"); do cat "$M" >>"$1"; done
  printf 'INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|last=1' >>"$1"
}

# expect_sq LABEL DB SQL WANT: one query's output.
expect_sq() {
  local got
  got=$(sq "$2" "$3")
  [ "$got" = "$4" ] || fail "$1: $3 gave '$got', want '$4'"
}

# bytes_case LABEL FILE...: a serverless export of FILEs records their
# exact sizes, in all and per input, and their lines.
bytes_case() {
  local label=$1; shift
  local db=$T/$label.sqlite total=0 f size seq=0
  RUN_TIMEOUT=60 run "$label" dmap --cfg none --query "$Q outfile $db" "$@"
  expect_rc "$label" 0
  for f in "$@"; do
    size=$(stat -c %s "$f")
    total=$((total + size))
    seq=$((seq + 1))
    expect_sq "$label input $seq" "$db" \
      "SELECT file, bytes_read, status FROM query_inputs WHERE seq = $seq" "$f|$size|ok"
  done
  expect_sq "$label" "$db" "SELECT bytes_read, partial, failures FROM queries" "$total|0|[]"
  grep -q 'partial result' "$ERR" && fail "$label: a clean run warned: $(cat "$ERR")"
}

# remote_setup: two dservers, each with its own data.log of a different
# size (S0, S1: their paths).
remote_setup() {
  . "$(dirname "$0")/server_lib.sh"
  . "$(dirname "$0")/fanout_lib.sh"
  need_bin dserver
  fanout_start_n 2
  S0=$SRV/s0/data.log S1=$SRV/s1/data.log
  copies "$S0" 3
  copies "$S1" 40      # 2.7 MB: mapped on the server
}

case $mode in
bytes)
  cp "$M" "$T/small.log"
  copies "$T/mapped.log" 32        # 2.1 MB: mapped in one 4 MiB window
  copies "$T/windows.log" 210      # 14 MB: mapped windows, one worker
  copies "$T/parallel.log" 300     # 20 MB: parallel ranges on every core
  [ "$(stat -c %s "$T/parallel.log")" -gt $((16 * 1024 * 1024)) ] || die "parallel.log is too small"
  gzip -c "$T/mapped.log" >"$T/mapped.log.gz"
  bytes_case small "$T/small.log"
  bytes_case mapped "$T/mapped.log"
  bytes_case windows "$T/windows.log"
  bytes_case parallel "$T/parallel.log"
  bytes_case several "$T/small.log" "$T/windows.log" "$T/parallel.log"
  # Lines: wc -l counts the '\n's; the last line has none.
  expect_sq "parallel lines" "$T/parallel.sqlite" "SELECT lines_read FROM queries" \
    "$(( $(wc -l <"$T/parallel.log") + 1 ))"
  # gzip: the decoded bytes, those of the file it was made from.
  db=$T/gz.sqlite
  run gz dmap --cfg none --query "$Q outfile $db" "$T/mapped.log.gz"
  expect_rc gz 0
  expect_sq gz "$db" "SELECT bytes_read FROM queries" "$(stat -c %s "$T/mapped.log")"
  # stdin: what came through the pipe.
  RUN_STDIN=$T/windows.log run stdin dmap --cfg none --query "$Q outfile $T/stdin.sqlite"
  expect_rc stdin 0
  expect_sq stdin "$T/stdin.sqlite" "SELECT bytes_read FROM queries" "$(stat -c %s "$T/windows.log")"
  ;;
missing)
  # A serverless run with a missing file among others: partial, the file
  # named in the warning and in its query_inputs row; the others counted.
  cp "$M" "$T/a.log"
  copies "$T/b.log" 2
  db=$T/missing.sqlite
  run missing dmap --cfg none --query "$Q outfile $db" "$T/a.log" "$T/gone.log" "$T/b.log"
  expect_rc missing 1
  expect_contains missing "$ERR" "dmap: warning: partial result: 1 of 3 inputs failed: $T/gone.log: not found"
  expect_sq missing "$db" "SELECT partial, json_array_length(failures), bytes_read FROM queries" \
    "1|1|$(( $(stat -c %s "$T/a.log") + $(stat -c %s "$T/b.log") ))"
  expect_sq missing "$db" "SELECT group_concat(seq || ':' || status || ':' || coalesce(bytes_read, '-'), ' ') FROM query_inputs" \
    "1:ok:$(stat -c %s "$T/a.log") 2:not found:- 3:ok:$(stat -c %s "$T/b.log")"
  ;;
remote)
  # Two servers, clean: one row per (server, file) with the bytes each
  # server read, the run's bytes their sum, not partial.
  remote_setup
  db=$T/remote.sqlite
  run remote dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log \
    --query "$Q outfile $db"
  expect_rc remote 0
  grep -q 'partial result' "$ERR" && fail "remote: a clean run warned: $(cat "$ERR")"
  expect_sq remote "$db" "SELECT count(*) FROM query_inputs" 2
  expect_sq remote "$db" \
    "SELECT group_concat(server || '|' || status || '|' || bytes_read || '|' || lines_read, ' ') FROM (SELECT * FROM query_inputs ORDER BY seq)" \
    "${FANOUT_SERVERS[0]}|ok|$(stat -c %s "$S0")|$(( $(wc -l <"$S0") + 1 )) ${FANOUT_SERVERS[1]}|ok|$(stat -c %s "$S1")|$(( $(wc -l <"$S1") + 1 ))"
  expect_sq remote "$db" "SELECT bytes_read, partial, failures FROM queries" \
    "$(( $(stat -c %s "$S0") + $(stat -c %s "$S1") ))|0|[]"
  expect_sq remote "$db" "SELECT json_array_length(servers) FROM queries" 2
  fanout_stop_all
  ;;
failed)
  # One file missing on one server: partial, that (server, file) named.
  remote_setup
  rm -f "$S1"
  db=$T/nofile.sqlite
  run nofile dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log \
    --query "$Q outfile $db"
  expect_rc nofile 1
  expect_contains nofile "$ERR" "dmap: warning: partial result: 1 of 2 inputs failed: data.log on ${FANOUT_SERVERS[1]}: not found"
  expect_sq nofile "$db" "SELECT partial FROM queries" 1
  expect_sq nofile "$db" \
    "SELECT group_concat(server || '|' || status || '|' || coalesce(bytes_read, '-'), ' ') FROM (SELECT * FROM query_inputs ORDER BY seq)" \
    "${FANOUT_SERVERS[0]}|ok|$(stat -c %s "$S0") ${FANOUT_SERVERS[1]}|not found|-"
  # One server killed: partial, the server named, the other one's file
  # counted.
  copies "$S1" 1
  fanout_kill 1
  db=$T/killed.sqlite
  run killed dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log \
    --query "$Q outfile $db"
  expect_rc killed 1
  expect_contains killed "$ERR" "dmap: warning: partial result: 1 of 2 inputs failed: data.log on ${FANOUT_SERVERS[1]}: server failed: cannot connect"
  expect_sq killed "$db" "SELECT partial, json_array_length(failures) FROM queries" "1|1"
  expect_sq killed "$db" \
    "SELECT group_concat(server || '|' || status || '|' || coalesce(bytes_read, '-'), ' ') FROM (SELECT * FROM query_inputs ORDER BY seq)" \
    "${FANOUT_SERVERS[0]}|ok|$(stat -c %s "$S0") ${FANOUT_SERVERS[1]}|server failed|-"
  # The result holds what the live server read.
  expect_sq killed "$db" 'SELECT sum("count($line)") FROM STATS' "$(stats_records "$S0")"
  # Without an outfile the warning is printed too.
  run table dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log --query "$Q"
  expect_contains table "$ERR" "dmap: warning: partial result: 1 of 2 inputs failed"
  fanout_stop_all
  ;;
*)
  die "unknown mode $mode"
  ;;
esac
finish
