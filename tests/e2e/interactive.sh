# --interactive-query through real dservers (harness fanout_lib.sh), with a
# FIFO as the control terminal: the DTail cases of shared reference §7.2
# (reload from --grep ERROR to --grep WARN on the open session: `ERROR
# late`, written after the reload, never shows, `WARN live` does, one
# server handler), the dgrep reload after a completed read, dtail --query
# reloads, the command errors, and a control terminal that cannot be opened.
# Usage: interactive.sh dtail|boundary|dgrep|query|commands|notty
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/fanout_lib.sh"
. "$(dirname "$0")/interactive_lib.sh"

need_bin dtail dgrep dmap

SERVER_LOG_LEVEL=debug

start() {   # start N: N servers, each with an empty data.log, and the FIFO
  follow_servers "$1"
  mkfifo "$T/ctl"
  exec 3<>"$T/ctl"   # held open: the client sees no end of its control input
}

start_bg() {   # start_bg TOOL ARGS...: through the servers, in the background
  local tool=$1; shift
  bg_start "$tool" "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" \
    --interactive-query --control-tty "$T/ctl" "$@"
}

send() { printf '%s\n' "$1" >&3; }

log_count_at_least() {   # N STRING: server 0's log has N lines with STRING
  [ "$(grep -cF -- "$2" "${FANOUT_LOGS[0]}")" -ge "$1" ]
}

# wait_log N STRING SECONDS: until server 0's log has N lines with STRING.
wait_log() {
  poll "$3" log_count_at_least "$1" "$2" && return 0
  fail "waited $3 s for $1 server log lines with '$2'"
  return 1
}

# The run ends by :quit with exit 0 (the bound only guards a hang).
quit_bg() {
  send ':quit'
  bg_stop none 30
  [ "$RC" -eq 0 ] || { fail "exit $RC after :quit, want 0"; sed 's/^/  | /' "$T/bg.err" >&2; }
  expect_contains "quit message" "$T/bg.out" "quitting interactive session"
}

one_handler() {
  local n
  n=$(grep -c 'Creating new server handler' "${FANOUT_LOGS[0]}")
  [ "$n" -eq 1 ] || fail "$n server handlers (connections) on server 0, want 1: the reload must reuse the session"
}

case ${1:-} in
dtail|boundary)
  start 1
  F=$SRV/s0/data.log
  # DTail's line (reference 7.2) but --cfg none, which would drop the
  # harness's connect timeout.
  start_bg dtail --logger stdout --logLevel info --plain --files data.log --grep ERROR
  wait_out 'Interactive query control enabled. Commands: :reload <flags>, :show, :help, :quit' 30
  wait_follow_new 0 1
  echo 'ERROR initial' >>"$F"
  if [ "$1" = boundary ]; then
    # The reload right after the last old line was seen.
    echo 'ERROR boundary' >>"$F"
    wait_out 'ERROR boundary' 30
  else
    wait_out 'ERROR initial' 30
  fi
  send ':reload --grep WARN'
  wait_out 'reload applied successfully' 30
  # Old request's lines written now must not show: ERROR late matches only
  # the old pattern. The new request follows from the end of the file.
  echo 'ERROR late' >>"$F"
  wait_follow_new 0 2
  echo 'ERROR late' >>"$F"
  echo 'WARN live' >>"$F"
  wait_out 'WARN live' 30
  sleep 0.5   # only for a leak: time for a late old line to show wrongly
  quit_bg
  grep -q 'ERROR late' "$T/bg.out" && fail "a line of the old request (ERROR late) leaked after the reload"
  # Nothing of the old request after the success message.
  sed -n '/reload applied successfully/,$p' "$T/bg.out" | grep -q '^ERROR' &&
    fail "an ERROR line after 'reload applied successfully'"
  one_handler
  [ "$(grep -c '|Request|' "${FANOUT_LOGS[0]}")" -eq 2 ] || fail "want 2 requests on the one session"
  fanout_stop_all
  ;;
dgrep)
  # The read completed; the reload runs the new pattern on the same session.
  start 1
  printf 'ERROR first\nWARN second\n' >"$SRV/s0/data.log"
  start_bg dgrep --plain --files data.log --grep ERROR
  # The server serves a session's requests in turn: once it has logged the
  # end of the read, the reload's request comes after the first one's END.
  wait_out 'ERROR first' 30
  wait_log 1 'File processing complete' 30
  send ':reload --grep WARN'
  wait_out 'reload applied successfully' 30
  wait_out 'WARN second' 30
  quit_bg
  [ "$(grep -c 'ERROR first' "$T/bg.out")" -eq 1 ] || fail "ERROR first not exactly once"
  one_handler
  fanout_stop_all
  ;;
query)
  # dtail --query through two servers, reloaded to another query: the old
  # query's table is not printed after the reload, the new one counts the
  # lines written after it.
  start 2
  Q1='from STATS select count($line) group by $hostname interval 1'
  Q2='from STATS select sum(lat),count($line) group by $hostname interval 1'
  start_bg dtail --files data.log --query "$Q1"
  wait_follow_new 0 1 && wait_follow_new 1 1
  line='INFO|1002-071100|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|lat=5'
  batch() { for _ in $(seq 1 "$1"); do echo "$line"; done >"$T/batch"; }
  batch 3
  cat "$T/batch" >>"$SRV/s0/data.log"
  cat "$T/batch" >>"$SRV/s1/data.log"
  wait_out "$Q1" 30
  send ":reload --query '$Q2'"
  wait_out 'reload applied successfully' 30
  wait_follow_new 0 2 && wait_follow_new 1 2
  # Each server's delta comes at its own interval, so their lines may be in
  # one table or in two: count what all tables after the reload hold. The
  # batches differ (2 and 3 lines, each one write), so two tables are never
  # the same (an unchanged table is not printed again).
  batch 2
  cat "$T/batch" >>"$SRV/s0/data.log"
  batch 3
  cat "$T/batch" >>"$SRV/s1/data.log"
  from=$(grep -n -m 1 'reload applied successfully' "$T/bg.out" | cut -d: -f1)
  row='^ *[0-9][0-9.]* *[|] *[0-9]+ *$'
  counted() { local s; s=$(table_sums "$T/bg.out" "$from" "$row"); [ "${s#* }" -ge 5 ] 2>/dev/null; }
  poll 30 counted || fail "waited 30 s for the 5 lines written after the reload to be counted"
  quit_bg
  sed -n "$from,\$p" "$T/bg.out" >"$T/after"
  grep -qF "$Q1" "$T/after" && fail "the old query's table was printed after the reload"
  got=$(table_sums "$T/bg.out" "$from" "$row")
  [ "$got" = "25 5" ] ||
    fail "after the reload the rows sum to '$got', want '25 5' (sum(lat), count: 2 + 3 lines on 2 servers)"
  one_handler
  fanout_stop_all
  ;;
commands)
  start 1
  start_bg dgrep --plain --files data.log --grep ERROR
  wait_out 'Interactive query control enabled' 30
  send ':help'
  wait_out 'Commands: :reload <flags>, :show, :help, :quit. Use quotes around multi-word values such as --query "select count(status) from stats".' 30
  # :show counts the connected servers. The client counts a server as
  # connected before it sends the request and keeps the session open
  # after it, so once the server has logged the request it counts.
  wait_log 1 '|Request|' 30
  send ':show'
  wait_out 'mode=grep files=data.log query="" regex="ERROR" options="after=0:before=0:invert=false:max=0:plain=true:quiet=false" timeout=0 capable=1/1' 30
  send ':reload'
  wait_out 'interactive query error: reload requires flags to change' 30
  send ':reload --grep "unterminated'
  wait_out 'interactive query error: unterminated quoted string' 30
  send ':reload --grep x y'
  wait_out 'interactive query error: unexpected arguments: y' 30
  send ':reload --query "select 1"'
  wait_out 'interactive query error: flag provided but not defined: -query' 30
  # The earlier errors are in bg.out already: wait for this one's own text.
  send ':reload --grep "("'
  wait_out "interactive query error: invalid regex '('" 30
  send 'hello there'
  wait_out 'interactive query error: unknown command "hello there"' 30
  send ':reload --grep WARN --max 2'
  wait_out 'reload applied successfully' 30
  send ':show'
  wait_out 'regex="WARN" options="after=0:before=0:invert=false:max=2:plain=true:quiet=false"' 30
  quit_bg
  [ "$(grep -c 'reload applied successfully' "$T/bg.out")" -eq 1 ] || fail "a failed reload said it succeeded"
  fanout_stop_all
  ;;
notty)
  # A control terminal that cannot be opened: exit 1 before connecting.
  start 1
  run notty dgrep "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log --grep x \
    --interactive-query --control-tty "$T/no/such/tty"
  expect_rc notty 1
  expect_contains "names the terminal" "$ERR" "$T/no/such/tty"
  grep -q 'Creating new server handler' "${FANOUT_LOGS[0]}" && fail "connected although the control terminal failed"
  # Not available serverless nor for dmap yet: a usage error, never ignored.
  run serverless dgrep --plain --grep x --interactive-query --control-tty "$T/ctl" "$SRV/s0/data.log"
  expect_rc serverless 2
  expect_contains "serverless refused" "$ERR" "--interactive-query runs through servers only"
  run dmap dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log \
    --query 'select count($line)' --interactive-query --control-tty "$T/ctl"
  expect_rc dmap 2
  expect_contains "dmap refused" "$ERR" "dmap reloads are not available yet"
  fanout_stop_all
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
