# Harness for end-to-end tests against a real dserver (source after lib.sh).
#
#   server_setup             client key (ssh-keygen), cache dir with
#                            <user>.authorized_keys, a generated dtail.json,
#                            a private HOME (so ~/.ssh/known_hosts is ours)
#   server_start [FLAGS...]  dserver on a free loopback port in the
#                            background, --logger stdout into $SERVER_LOG;
#                            waits until it listens; sets SERVER_PORT,
#                            SERVER (127.0.0.1:PORT) and SERVER_PID
#   server_alive             fails the test if dserver is gone
#   server_stop              SIGTERM; dserver must exit 0 within 10 s (60 s
#                            in sanitizer builds: LeakSanitizer) and
#                            its log must hold no sanitizer report
#   dserver_stop SIGPID WAITPID LOG LABEL
#                            the same for any dserver (fanout_lib.sh)
#   server_wait_exit PID SECONDS   waits for PID to exit; sets SERVER_RC
#   server_refuses LABEL STRING    dserver on $SERVER_CFG must exit 2 at
#                            once with STRING on stderr, neither listening
#                            nor having made its host key
#   server_sanitizer_clean LOG [LABEL]   fails if LOG has a sanitizer report
#   SERVER_CLIENT_FLAGS      (array) --key, --trustAllHosts, --noColor for
#                            dcat/dgrep/dmap; server_start adds --servers
#
#   follows_in_flight N FILE  N dtail follows of FILE through the server in
#                            the background (pids in FOLLOW_PIDS, output in
#                            $T/followI.out); returns once the server has
#                            their N tail requests, non-zero after 60 s
#
# Knobs (set before server_setup): SERVER_MAX_CONNECTIONS (default 10),
# SERVER_CFG_EXTRA (more "Server" keys, e.g. '"MaxConcurrentCats": 1'),
# SERVER_LOG_LEVEL (default info). Started as root, dserver refuses to run
# unless told whom to become: the harness passes --user nobody and makes
# the test's temp dir readable (inputs must be readable by nobody).
# Every dserver run is bounded by `timeout` (SERVER_LIFETIME, default 300 s).
# The launch itself is dserver_lib.sh's (shared with the benchmarks).

. "$(dirname "${BASH_SOURCE[0]}")/dserver_lib.sh"
DSERVER_BIN=$DTAIL_BIN/dserver

SRV=$T/srv
SERVER_LOG=$SRV/dserver.log
SERVER_KEY=$SRV/id_ed25519
SERVER_CFG=$SRV/dtail.json
SERVER_PID=
SERVER_CHILD=
SERVER_PORT=
SERVER=
SERVER_USER=$(id -un)

server_cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill -KILL "$SERVER_CHILD" "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$T"
}
trap server_cleanup EXIT

server_setup() {
  command -v ssh-keygen >/dev/null || skip "ssh-keygen is not installed"
  need_bin dserver
  chmod 755 "$T"
  mkdir -p "$T/home/.ssh" || die "cannot create $T/home"
  dserver_prepare "$SRV" "\"MaxConnections\": ${SERVER_MAX_CONNECTIONS:-10}${SERVER_CFG_EXTRA:+, $SERVER_CFG_EXTRA}" ||
    die "cannot prepare the key and config in $SRV"
  export HOME=$T/home
  # The clients' own config (read from $HOME when no --cfg is given): a
  # connect timeout that only a hang reaches. DTail's 2 s default is cut
  # short by a sanitizer build's handshake on a loaded machine; a test of
  # the timeout itself passes a --cfg of its own.
  printf '{"Common": {"SSHConnectTimeoutMs": 30000}}\n' >"$HOME/.dtail.conf"
  SERVER_CLIENT_FLAGS=(--key "$SERVER_KEY" --trustAllHosts --noColor)
}

server_start() {
  dserver_launch "$SERVER_LOG" 127.0.0.1 0 . --cfg "$SERVER_CFG" "$@" || {
    SERVER_PID=$DSERVER_PID SERVER_CHILD=$DSERVER_CHILD
    echo "  --- dserver log ---" >&2
    head -n 20 "$SERVER_LOG" | sed 's/^/  | /' >&2
    die "dserver did not start listening within 60 s"
  }
  SERVER_PID=$DSERVER_PID SERVER_CHILD=$DSERVER_CHILD SERVER_PORT=$DSERVER_PORT
  SERVER=127.0.0.1:$SERVER_PORT
  SERVER_CLIENT_FLAGS=(--servers "$SERVER" --key "$SERVER_KEY" --trustAllHosts --noColor)
}

# expect_log LABEL STRING: dserver's log has STRING. The log is written in
# blocks every 100 ms (warnings at once), so a running server's line may
# come a moment after the client is done: wait for it first (30 s, a guard
# against a hang only).
expect_log() {
  poll 30 grep -qsF -- "$2" "$SERVER_LOG"
  expect_contains "$1" "$SERVER_LOG" "$2"
}

server_alive() {
  kill -0 "$SERVER_PID" 2>/dev/null || fail "dserver (pid $SERVER_PID) is gone; log tail: $(tail -n 3 "$SERVER_LOG" | tr '\n' ' ')"
}

# server_sanitizer_clean LOG [LABEL]
server_sanitizer_clean() {
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|ThreadSanitizer' "$1"; then
    fail "${2:-dserver} log holds a sanitizer report"
    grep -m 5 -E 'Sanitizer|runtime error' "$1" | sed 's/^/  | /' >&2
  fi
}

# server_wait_exit PID SECONDS: waits for PID (a child of this shell) to
# exit; sets SERVER_RC (124 when it was still running at the bound).
server_wait_exit() {
  SERVER_RC=124
  if poll "$2" pid_gone "$1"; then
    wait "$1"
    SERVER_RC=$?
  fi
}

server_refuses() {
  local as_user=()
  [ "$(id -u)" -eq 0 ] && as_user=(--user nobody)
  run "$1" "$DTAIL_BIN/dserver" --cfg "$SERVER_CFG" --port 0 --bindAddress 127.0.0.1 \
    --logger stdout "${as_user[@]}"
  expect_rc "$1" 2
  expect_contains "$1" "$ERR" "$2"
  grep -q 'Listening on' "$OUT" && fail "$1: dserver listened with a bad config"
  [ -e "$SRV/cache/ssh_host_key" ] && fail "$1: dserver created a host key before refusing"
  return 0
}

# dserver_stop SIGPID WAITPID LOG LABEL: SIGTERM to SIGPID; WAITPID must
# exit 0 within the bound and LOG must be free of sanitizer reports.
dserver_stop() {
  kill -TERM "$1" 2>/dev/null || fail "$4 was not running at stop"
  local bound
  bound=$(dserver_exit_bound)
  server_wait_exit "$2" "$bound"
  [ "$SERVER_RC" -eq 0 ] || fail "$4 exited with $SERVER_RC after SIGTERM, want 0 within $bound s"
  server_sanitizer_clean "$3" "$4"
}

server_stop() {
  dserver_stop "$SERVER_PID" "$SERVER_PID" "$SERVER_LOG" dserver
  SERVER_PID=
}

follows_in_flight() {
  local i want
  want=$(($(grep -c 'Request|.*|tail|' "$SERVER_LOG") + $1))
  FOLLOW_PIDS=()
  for ((i = 1; i <= $1; i++)); do
    "$DTAIL_BIN/dtail" "${SERVER_CLIENT_FLAGS[@]}" --timeout 90 --files "$2" >"$T/follow$i.out" 2>&1 &
    FOLLOW_PIDS+=($!)
  done
  poll 60 eval '[ "$(grep -c "Request|.*|tail|" "$SERVER_LOG")" -ge '"$want"' ]'
}
