# Harness for end-to-end tests against several dservers (source after
# lib.sh and server_lib.sh; call server_setup first: every server shares
# its key, cache dir and config).
#
#   fanout_start ADDR [FLAGS...]  one more dserver on ADDR (127.0.0.N) and a
#                                 free port, working in $SRV/sI (so a
#                                 relative file name reads a different file
#                                 on each server); appends to FANOUT_PIDS,
#                                 FANOUT_SERVERS (ADDR:PORT), FANOUT_LOGS
#                                 (FANOUT_PORT=P, FANOUT_DIR=D: on port P in
#                                 D, e.g. to restart a killed server as it was)
#   fanout_kill I                 SIGKILL server I (0-based)
#   FANOUT_PIDS                   the dserver processes (for kill -STOP)
#   fanout_stop_all               SIGTERM every server still running; each
#                                 must exit 0 within 10 s, logs ASan-clean
#   fanout_list                   the servers as a comma list
#   FANOUT_FLAGS                  (array) --key, --trustAllHosts, --noColor
#
# Every server runs bounded by `timeout` (SERVER_LIFETIME, default 300 s)
# and is killed when the script exits.

FANOUT_PIDS=()
FANOUT_WAIT=()
FANOUT_SERVERS=()
FANOUT_LOGS=()

fanout_cleanup() {
  local p
  for p in "${FANOUT_PIDS[@]}"; do
    [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$T"
}
trap fanout_cleanup EXIT

fanout_start() {
  local addr=$1; shift
  local want_port=${FANOUT_PORT:-0}
  local as_user=() i=${#FANOUT_PIDS[@]} port= pid
  [ "$(id -u)" -eq 0 ] && as_user=(--user nobody)
  local log=$SRV/dserver.$i.log
  local dir=${FANOUT_DIR:-$SRV/s$i}
  mkdir -p "$dir" && chmod 755 "$dir"
  : >"$log"
  cd "$dir" || die "cd $dir"
  timeout --foreground -k "$(server_exit_bound)" "${SERVER_LIFETIME:-300}" "$DTAIL_BIN/dserver" --cfg "$SERVER_CFG" --port "$want_port" \
    --bindAddress "$addr" --logger stdout --logLevel "${SERVER_LOG_LEVEL:-info}" \
    "${as_user[@]}" "$@" >>"$log" 2>&1 </dev/null &
  pid=$!
  cd - >/dev/null || die "cd back"
  local k
  for k in $(seq 1 200); do
    port=$(sed -n "s/.*|Listening on ${addr//./\\.}:\([0-9][0-9]*\)\$/\1/p" "$log")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  [ -n "$port" ] || die "dserver $i on $addr did not start listening: $(head -n 5 "$log" | tr '\n' ' ')"
  # The dserver itself (the child of timeout), so that signals reach it.
  local child
  child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null | awk '{ print $1 }')
  [ -n "$child" ] || die "dserver $i: cannot find the process under timeout (pid $pid)"
  FANOUT_PIDS+=("$child")
  FANOUT_WAIT+=("$pid")
  case $addr in
    *:*) FANOUT_SERVERS+=("[$addr]:$port") ;;
    *) FANOUT_SERVERS+=("$addr:$port") ;;
  esac
  FANOUT_LOGS+=("$log")
  FANOUT_FLAGS=(--key "$SERVER_KEY" --trustAllHosts --noColor)
}

fanout_list() {
  local IFS=,
  echo "${FANOUT_SERVERS[*]}"
}

fanout_kill() {
  local pid=${FANOUT_PIDS[$1]} k
  kill -KILL "$pid" 2>/dev/null
  for k in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  FANOUT_PIDS[$1]=
}

fanout_stop_all() {
  local i pid k rc
  for i in "${!FANOUT_PIDS[@]}"; do
    pid=${FANOUT_PIDS[$i]}
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null
    rc=124
    for k in $(seq 1 $(($(server_exit_bound) * 20))); do
      if ! kill -0 "$pid" 2>/dev/null; then
        wait "${FANOUT_WAIT[$i]}"
        rc=$?
        break
      fi
      sleep 0.05
    done
    [ "$rc" -eq 0 ] || fail "dserver $i exited with $rc after SIGTERM, want 0 within $(server_exit_bound) s"
    if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "${FANOUT_LOGS[$i]}"; then
      fail "dserver $i log holds a sanitizer report"
    fi
    FANOUT_PIDS[$i]=
  done
}
