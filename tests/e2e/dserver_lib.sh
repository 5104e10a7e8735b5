# shellcheck shell=bash
# Starting real dservers: shared by the e2e harness (server_lib.sh,
# fanout_lib.sh) and the benchmarks (benchmarks/server.sh, fanout.sh), so it
# needs nothing of lib.sh. Functions return non-zero on failure; the caller
# says what that means (die in a test, exit 2 in a benchmark).
#
#   dserver_prepare DIR [SERVER-KEYS]  a client key DIR/id_ed25519, DIR/cache
#                       with <user>.authorized_keys, and DIR/dtail.json
#                       (SERVER-KEYS: more "Server" keys, e.g.
#                       '"MaxConnections": 100')
#   dserver_launch LOG ADDR PORT DIR [FLAGS...]
#                       dserver bound to ADDR:PORT (0: a free port), working
#                       in DIR, logging to LOG (emptied first); waits until
#                       it listens. Sets DSERVER_PID (the process to wait
#                       for: timeout), DSERVER_CHILD (dserver itself, for
#                       signals) and DSERVER_PORT.
#   dserver_sanitized   whether $DSERVER_BIN is a sanitizer build
#   dserver_exit_bound  seconds dserver may take to exit after SIGTERM
#
# Needs DSERVER_BIN (the dserver binary). Knobs: SERVER_LIFETIME (default
# 300 s: every dserver runs bounded by timeout), SERVER_LOG_LEVEL (info).
# Started as root, dserver refuses to run unless told whom to become: it
# gets --user nobody (so DIR and its inputs must be readable by nobody).

dserver_prepare() {
  local dir=$1 extra=${2:-} user
  user=$(id -un)
  mkdir -p "$dir/cache" && chmod 755 "$dir" "$dir/cache" || return 1
  ssh-keygen -q -t ed25519 -N '' -C dtail-test -f "$dir/id_ed25519" || return 1
  cp "$dir/id_ed25519.pub" "$dir/cache/$user.authorized_keys" &&
    chmod 644 "$dir/cache/$user.authorized_keys" || return 1
  cat >"$dir/dtail.json" <<JSON
{
  "Common": {"CacheDir": "$dir/cache", "LogDir": "$dir/log"},
  "Server": {"HostKeyBits": 2048${extra:+, $extra}}
}
JSON
}

dserver_sanitized() { grep -qa __asan_init "$DSERVER_BIN" 2>/dev/null; }

# A sanitizer build ends with LeakSanitizer's scan of the whole process,
# which on a loaded machine took over 5 s; the release build must be done
# in 10 s.
dserver_exit_bound() {
  if dserver_sanitized; then echo 60; else echo 10; fi
}

# dserver runs under timeout --foreground: without it, timeout follows each
# signal it passes on (our SIGTERM) with a SIGCONT, and a SIGCONT that comes
# while LeakSanitizer's tracer attaches to the exiting sanitizer build
# discards the tracer's SIGSTOP, so the tracer waits for ever (seen under
# parallel load as a dserver spinning in sched_yield until SIGKILL).
dserver_launch() {
  local log=$1 addr=$2 port=$3 dir=$4
  shift 4
  local as_user=() k
  [ "$(id -u)" -eq 0 ] && as_user=(--user nobody)
  : >"$log" || return 1
  (cd "$dir" && exec timeout --foreground -k "$(dserver_exit_bound)" "${SERVER_LIFETIME:-300}" \
    "$DSERVER_BIN" --port "$port" --bindAddress "$addr" --logger stdout \
    --logLevel "${SERVER_LOG_LEVEL:-info}" "${as_user[@]}" "$@" >>"$log" 2>&1 </dev/null) &
  DSERVER_PID=$!
  DSERVER_PORT= DSERVER_CHILD=
  for k in $(seq 1 1200); do
    DSERVER_PORT=$(sed -n "s/.*|Listening on ${addr//./\\.}:\([0-9][0-9]*\)\$/\1/p" "$log")
    [ -n "$DSERVER_PORT" ] && break
    kill -0 "$DSERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  [ -n "$DSERVER_PORT" ] || return 1
  # The dserver itself (the child of timeout), so that signals such as
  # SIGSTOP reach it.
  DSERVER_CHILD=$(awk '{ print $1 }' "/proc/$DSERVER_PID/task/$DSERVER_PID/children" 2>/dev/null)
  [ -n "$DSERVER_CHILD" ]
}
