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

# The run ends by :quit, exit 0 within 5 s.
quit_bg() {
  send ':quit'
  bg_stop none 5
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
  start_bg dtail --plain --files data.log --grep ERROR
  wait_out 'Interactive query control enabled. Commands: :reload <flags>, :show, :help, :quit' 10
  wait_log 1 '|Start reading|' 10
  sleep 0.3
  echo 'ERROR initial' >>"$F"
  if [ "$1" = boundary ]; then
    # The reload right after the last old line was seen.
    echo 'ERROR boundary' >>"$F"
    wait_out 'ERROR boundary' 10
  else
    wait_out 'ERROR initial' 10
  fi
  send ':reload --grep WARN'
  wait_out 'reload applied successfully' 10
  # Old request's lines written now must not show: ERROR late matches only
  # the old pattern. The new request follows from the end of the file.
  echo 'ERROR late' >>"$F"
  wait_log 2 '|Start reading|' 10
  sleep 0.3
  echo 'ERROR late' >>"$F"
  echo 'WARN live' >>"$F"
  wait_out 'WARN live' 10
  sleep 0.5
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
  wait_out 'ERROR first' 10
  wait_log 1 'File processing complete' 10
  sleep 0.5
  send ':reload --grep WARN'
  wait_out 'reload applied successfully' 10
  wait_out 'WARN second' 10
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
  wait_log 1 '|Start reading|' 10
  sleep 0.3
  line='INFO|1002-071100|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|lat=5'
  for i in 1 2 3; do echo "$line" >>"$SRV/s0/data.log"; echo "$line" >>"$SRV/s1/data.log"; done
  wait_out "$Q1" 10
  send ":reload --query '$Q2'"
  wait_out 'reload applied successfully' 10
  wait_log 2 '|Start reading|' 10
  sleep 0.3
  for i in 1 2; do echo "$line" >>"$SRV/s0/data.log"; echo "$line" >>"$SRV/s1/data.log"; done
  wait_out "$Q2" 10
  sleep 1
  quit_bg
  sed -n '/reload applied successfully/,$p' "$T/bg.out" >"$T/after"
  grep -qF "$Q1" "$T/after" && fail "the old query's table was printed after the reload"
  grep -E '^ *20(\.0+)? *\| *4 ' "$T/after" >/dev/null ||
    fail "no row 'sum 20 | count 4' (2 lines on each of 2 servers) after the reload"
  one_handler
  fanout_stop_all
  ;;
commands)
  start 1
  start_bg dgrep --plain --files data.log --grep ERROR
  wait_out 'Interactive query control enabled' 10
  send ':help'
  wait_out 'Commands: :reload <flags>, :show, :help, :quit. Use quotes around multi-word values such as --query "select count(status) from stats".' 5
  # :show counts the connected servers: ask again until the one server is
  # connected (a loaded machine may take a while to finish the handshake).
  for _ in $(seq 1 40); do
    send ':show'
    sleep 0.25
    grep -q 'capable=1/1' "$T/bg.out" 2>/dev/null && break
  done
  wait_out 'mode=grep files=data.log query="" regex="ERROR" options="after=0:before=0:invert=false:max=0:plain=true:quiet=false" timeout=0 capable=1/1' 5
  send ':reload'
  wait_out 'interactive query error: reload requires flags to change' 5
  send ':reload --grep "unterminated'
  wait_out 'interactive query error: unterminated quoted string' 5
  send ':reload --grep x y'
  wait_out 'interactive query error: unexpected arguments: y' 5
  send ':reload --query "select 1"'
  wait_out 'interactive query error: flag provided but not defined: -query' 5
  # The earlier errors are in bg.out already: wait for this one's own text.
  send ':reload --grep "("'
  wait_out "interactive query error: invalid regex '('" 5
  send 'hello there'
  wait_out 'interactive query error: unknown command "hello there"' 5
  send ':reload --grep WARN --max 2'
  wait_out 'reload applied successfully' 5
  send ':show'
  wait_out 'regex="WARN" options="after=0:before=0:invert=false:max=2:plain=true:quiet=false"' 5
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
