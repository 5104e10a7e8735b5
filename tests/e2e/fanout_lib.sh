# Harness for end-to-end tests against several dservers (source after
# lib.sh and server_lib.sh; call server_setup first, or fanout_start_n:
# every server shares its key, cache dir and config).
#
#   fanout_start ADDR [FLAGS...]  one more dserver on ADDR (127.0.0.N) and a
#                                 free port, working in $SRV/sI (so a
#                                 relative file name reads a different file
#                                 on each server); appends to FANOUT_PIDS,
#                                 FANOUT_SERVERS (ADDR:PORT), FANOUT_LOGS
#                                 (FANOUT_PORT=P, FANOUT_DIR=D: on port P in
#                                 D, e.g. to restart a killed server as it was)
#   fanout_start_n N              server_setup, then N servers on
#                                 127.0.0.1..N
#   fanout_kill I                 SIGKILL server I (0-based), until it is
#                                 gone
#   FANOUT_PIDS                   the dserver processes (for kill -STOP)
#   fanout_stop_all               server_lib.sh's dserver_stop for every
#                                 server still running
#   fanout_list                   the servers as a comma list
#   fanout_place DIR NAME [HEADER]  with 4 servers: DIR/NAME whole on server
#                                 3, its contiguous thirds on 0..2 under the
#                                 same name (HEADER=1: the first line is a
#                                 header each third gets too)
#   fanout_query LABEL FILE QUERY  with 4 servers placed so: dmap QUERY over
#                                 $IN/FILE serverless, through server 3 and
#                                 through 0..2; their CSV outfiles must be
#                                 equal, as multisets of rows unless QUERY
#                                 orders (FANOUT_EXACT=1: bytes always;
#                                 ONE_ONLY=1: no three-server run, for a
#                                 query whose result depends on which server
#                                 read a line first); counts FANOUT_CASES
#
# Clients take server_lib.sh's SERVER_CLIENT_FLAGS (--key, --trustAllHosts,
# --noColor). Every server runs bounded by `timeout` (SERVER_LIFETIME,
# default 300 s) and is killed when the script exits.

FANOUT_PIDS=()
FANOUT_WAIT=()
FANOUT_SERVERS=()
FANOUT_LOGS=()
FANOUT_CASES=0

fanout_cleanup() {
  local p
  for p in "${FANOUT_PIDS[@]}" "${FANOUT_WAIT[@]}"; do
    [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
  done
  rm -rf "$T"
}
trap fanout_cleanup EXIT

fanout_start() {
  local addr=$1; shift
  local i=${#FANOUT_PIDS[@]}
  local log=$SRV/dserver.$i.log
  local dir=${FANOUT_DIR:-$SRV/s$i}
  mkdir -p "$dir" && chmod 755 "$dir" || die "cannot create $dir"
  dserver_launch "$log" "$addr" "${FANOUT_PORT:-0}" "$dir" --cfg "$SERVER_CFG" "$@" || {
    [ -n "$DSERVER_CHILD" ] && FANOUT_PIDS+=("$DSERVER_CHILD")
    FANOUT_WAIT+=("$DSERVER_PID")
    die "dserver $i on $addr did not start listening: $(head -n 5 "$log" | tr '\n' ' ')"
  }
  FANOUT_PIDS+=("$DSERVER_CHILD")
  FANOUT_WAIT+=("$DSERVER_PID")
  case $addr in
    *:*) FANOUT_SERVERS+=("[$addr]:$DSERVER_PORT") ;;
    *) FANOUT_SERVERS+=("$addr:$DSERVER_PORT") ;;
  esac
  FANOUT_LOGS+=("$log")
}

fanout_start_n() {
  server_setup
  local i
  for i in $(seq 1 "$1"); do
    fanout_start "127.0.0.$i"
  done
}

fanout_list() {
  local IFS=,
  echo "${FANOUT_SERVERS[*]}"
}

# Waits for the timeout wrapper: once it has exited, the server is gone
# (its sockets closed) and both PIDs may be reused, so neither is kept.
fanout_kill() {
  kill -KILL "${FANOUT_PIDS[$1]}" 2>/dev/null
  poll 30 pid_gone "${FANOUT_WAIT[$1]}" || fail "dserver $1 still running 30 s after SIGKILL"
  wait "${FANOUT_WAIT[$1]}" 2>/dev/null
  FANOUT_PIDS[$1]=
  FANOUT_WAIT[$1]=
}

fanout_stop_all() {
  local i
  for i in "${!FANOUT_PIDS[@]}"; do
    [ -n "${FANOUT_PIDS[$i]}" ] || continue
    dserver_stop "${FANOUT_PIDS[$i]}" "${FANOUT_WAIT[$i]}" "${FANOUT_LOGS[$i]}" "dserver $i"
    FANOUT_PIDS[$i]=
    FANOUT_WAIT[$i]=
  done
}

fanout_place() {
  local dir=$1 name=$2 header=${3:-0} i
  cp "$dir/$name" "$SRV/s3/$name"
  awk -v h="$header" -v srv="$SRV" -v name="$name" '
    { line[NR] = $0 } END {
      first = h ? 2 : 1; n = NR - first + 1
      for (i = 0; i < 3; i++) {
        f = srv "/s" i "/" name
        if (h) print line[1] > f
        for (r = first + int(n * i / 3); r < first + int(n * (i + 1) / 3); r++) print line[r] > f
        close(f)
      } }' "$dir/$name"
  for i in 0 1 2 3; do chmod 644 "$SRV/s$i/$name"; done
}

fanout_query() {
  local label=$1 file=$2 q=$3 run
  local one=${FANOUT_SERVERS[3]} three="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
  FANOUT_CASES=$((FANOUT_CASES + 1))
  run "$label.local" dmap --cfg none --logLevel error --query "$q outfile $T/$label.local.csv" "$IN/$file"
  expect_rc "$label.local" 0
  run "$label.one" dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel error --servers "$one" \
    --query "$q outfile $T/$label.one.csv" --files "$file"
  expect_rc "$label.one" 0
  local runs=(one)
  if [ "${ONE_ONLY:-0}" = 0 ]; then
    run "$label.three" dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel error --servers "$three" \
      --query "$q outfile $T/$label.three.csv" --files "$file"
    expect_rc "$label.three" 0
    runs+=(three)
  fi
  [ -s "$T/$label.local.csv" ] || { fail "$label: serverless wrote no CSV"; return; }
  for run in "${runs[@]}"; do
    if [ "${FANOUT_EXACT:-0}" = 1 ] || [[ $q == *" order by "* || $q == *" rorder by "* || $q == *" order "* ]]; then
      expect_bytes "$label: $run vs serverless: $q" "$T/$label.$run.csv" "$T/$label.local.csv"
    else
      expect_multiset "$label: $run vs serverless: $q" "$T/$label.$run.csv" "$T/$label.local.csv"
    fi
  done
}
