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
#   SERVER_CLIENT_FLAGS      (array) --servers, --key, --trustAllHosts,
#                            --noColor for dcat/dgrep/dmap
#
# Knobs (set before server_setup): SERVER_MAX_CONNECTIONS (default 10),
# SERVER_CFG_EXTRA (more "Server" keys, e.g. '"MaxConcurrentCats": 1'),
# SERVER_LOG_LEVEL (default info). Started as root, dserver refuses to run
# unless told whom to become: the harness passes --user nobody and makes
# the test's temp dir readable (inputs must be readable by nobody).
# Every dserver run is bounded by `timeout` (SERVER_LIFETIME, default 300 s).

SRV=$T/srv
SERVER_LOG=$SRV/dserver.log
SERVER_KEY=$SRV/id_ed25519
SERVER_CFG=$SRV/dtail.json
SERVER_PID=
SERVER_PORT=
SERVER=
SERVER_USER=$(id -un)

server_cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null
  fi
  rm -rf "$T"
}
trap server_cleanup EXIT

server_setup() {
  command -v ssh-keygen >/dev/null || skip "ssh-keygen is not installed"
  need_bin dserver
  mkdir -p "$SRV/cache" "$T/home/.ssh" || die "cannot create $SRV"
  chmod 755 "$T" "$SRV" "$SRV/cache"
  ssh-keygen -q -t ed25519 -N '' -C e2e -f "$SERVER_KEY" || die "ssh-keygen failed"
  cp "$SERVER_KEY.pub" "$SRV/cache/$SERVER_USER.authorized_keys"
  chmod 644 "$SRV/cache/$SERVER_USER.authorized_keys"
  cat >"$SERVER_CFG" <<JSON
{
  "Common": {"CacheDir": "$SRV/cache", "LogDir": "$SRV/log"},
  "Server": {"HostKeyBits": 2048, "MaxConnections": ${SERVER_MAX_CONNECTIONS:-10}${SERVER_CFG_EXTRA:+, $SERVER_CFG_EXTRA}}
}
JSON
  export HOME=$T/home
  SERVER_CLIENT_FLAGS=(--key "$SERVER_KEY" --trustAllHosts --noColor)
}

# How long dserver may take to exit after SIGTERM. A sanitizer build ends
# with LeakSanitizer's scan of the whole process, which on a loaded machine
# took over 5 s; the release build must be done in 10 s.
server_sanitized() { grep -qa __asan_init "$DTAIL_BIN/dserver" 2>/dev/null; }
server_exit_bound() {
  if server_sanitized; then echo 60; else echo 10; fi
}

# dserver runs under timeout --foreground: without it, timeout follows each
# signal it passes on (our SIGTERM) with a SIGCONT, and a SIGCONT that comes
# while LeakSanitizer's tracer attaches to the exiting sanitizer build
# discards the tracer's SIGSTOP, so the tracer waits for ever (seen under
# parallel load as a dserver spinning in sched_yield until SIGKILL).
server_start() {
  local as_user=()
  [ "$(id -u)" -eq 0 ] && as_user=(--user nobody)
  : >"$SERVER_LOG"
  timeout --foreground -k "$(server_exit_bound)" "${SERVER_LIFETIME:-300}" "$DTAIL_BIN/dserver" --cfg "$SERVER_CFG" --port 0 \
    --bindAddress 127.0.0.1 --logger stdout --logLevel "${SERVER_LOG_LEVEL:-info}" \
    "${as_user[@]}" "$@" >>"$SERVER_LOG" 2>&1 </dev/null &
  SERVER_PID=$!
  local i
  for i in $(seq 1 200); do
    SERVER_PORT=$(sed -n 's/.*|Listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$SERVER_LOG")
    [ -n "$SERVER_PORT" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$SERVER_PORT" ]; then
    echo "  --- dserver log ---" >&2
    head -n 20 "$SERVER_LOG" | sed 's/^/  | /' >&2
    die "dserver did not start listening within 10 s"
  fi
  SERVER=127.0.0.1:$SERVER_PORT
  SERVER_CLIENT_FLAGS=(--servers "$SERVER" --key "$SERVER_KEY" --trustAllHosts --noColor)
}

# expect_log LABEL STRING: dserver's log has STRING. The log is written in
# blocks every 100 ms (warnings at once), so a running server's line may
# come a moment after the client is done: wait up to 3 s for it first.
expect_log() {
  local i
  for i in $(seq 1 60); do
    grep -qF -- "$2" "$SERVER_LOG" 2>/dev/null && break
    sleep 0.05
  done
  expect_contains "$1" "$SERVER_LOG" "$2"
}

server_alive() {
  kill -0 "$SERVER_PID" 2>/dev/null || fail "dserver (pid $SERVER_PID) is gone; log tail: $(tail -n 3 "$SERVER_LOG" | tr '\n' ' ')"
}

server_sanitizer_clean() {
  if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|ThreadSanitizer' "$SERVER_LOG"; then
    fail "dserver log holds a sanitizer report"
    grep -m 5 -E 'Sanitizer|runtime error' "$SERVER_LOG" | sed 's/^/  | /' >&2
  fi
}

# server_wait_exit SECONDS: waits for dserver to exit; sets SERVER_RC
# (124 when it was still running at the bound).
server_wait_exit() {
  local i
  SERVER_RC=124
  for i in $(seq 1 $(($1 * 20))); do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      wait "$SERVER_PID"
      SERVER_RC=$?
      break
    fi
    sleep 0.05
  done
}

server_stop() {
  kill -TERM "$SERVER_PID" 2>/dev/null || fail "dserver was not running at stop"
  local bound
  bound=$(server_exit_bound)
  server_wait_exit "$bound"
  [ "$SERVER_RC" -eq 0 ] || fail "dserver exited with $SERVER_RC after SIGTERM, want 0 within $bound s"
  server_sanitizer_clean
  SERVER_PID=
}
