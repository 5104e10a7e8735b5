#!/usr/bin/env bash
# benchmarks/fanout.sh - one client, many dservers on this machine.
#
# Starts N dservers (default 50) on 127.0.0.1 with their own ports, each
# holding LINES lines (default 20000, about 2.5 MB) of DTail STATS log, and
# runs dcat, dgrep and dmap through all of them, then dmap against one
# server holding all the data. Reports the time until every handshake was
# done, the client's peak RSS per server (goal: at most 64 KiB), merged
# lines per second, both dmap times, and for every run the client's CPU
# seconds (per server) apart from the servers' (they share the machine);
# a request that matches nothing gives the CPU per handshake.
#
# Usage: benchmarks/fanout.sh [--servers N] [--lines N] [--bin DIR] [--quick]
#   DIR defaults to build/bin (the release build). --quick: 10 servers x
#   5000 lines unless given. Exit status: 0, 1 when an output is wrong (line
#   count, dmap tables differ) or a command failed, 2 on a usage error.

set -u
set -o pipefail
export LC_ALL=C
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=fanout

N= LINES=
BIN=$(cd "$SCRIPT_DIR/.." && pwd)/build/bin
while [ $# -gt 0 ]; do
  case $1 in
  --servers) N=$2; shift 2 ;;
  --lines) LINES=$2; shift 2 ;;
  --bin) BIN=$(cd "$2" && pwd) || exit 2; shift 2 ;;
  --quick|-h|--help) common_opt "$@"; shift "$SHIFT" ;;
  *) echo "fanout.sh: unknown option $1" >&2; usage 2 ;;
  esac
done
if [ "$QUICK" -eq 1 ]; then N=${N:-10} LINES=${LINES:-5000}; fi
N=${N:-50} LINES=${LINES:-20000}
require_positive N LINES
for b in dcat dgrep dmap dserver; do
  [ -x "$BIN/$b" ] || { echo "fanout.sh: $BIN/$b missing (build first)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "fanout.sh: /usr/bin/time is needed for peak RSS" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/dtail-fanout.XXXXXX")
PIDS=()
SERVER_PIDS=()
cleanup() {
  local p
  exec 2>/dev/null   # no job notices ("Killed") for the servers
  for p in "${PIDS[@]}"; do kill -KILL "$p"; done
  wait 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
# The launch is the e2e harness's (tests/e2e/dserver_lib.sh).
. "$SCRIPT_DIR/../tests/e2e/dserver_lib.sh"
DSERVER_BIN=$BIN/dserver
SERVER_LIFETIME=7200
mkdir -p "$T/home/.ssh"
# Loopback handshakes are cheap: let every server take all of them.
dserver_prepare "$T" '"MaxConnections": 100' || { echo "fanout.sh: cannot prepare the key and config" >&2; exit 2; }
export HOME=$T/home

awk -v n="$LINES" 'BEGIN { srand(42);
  for (i = 0; i < n; i++)
    printf "INFO|1002-0711%02d|1|stats.go:56|8|%d|7|0.21|471h0m21s|MAPREDUCE:STATS|grp=g%d|lat=%d\n", i % 60, int(rand() * 50), int(rand() * 20), int(rand() * 10000) }' \
  >"$T/part.log"

start_server() { # DIR: a dserver working in DIR; sets ADDR (host:port)
  mkdir -p "$1" && chmod 755 "$1"
  dserver_launch "$1/dserver.log" 127.0.0.1 0 "$1" --cfg "$T/dtail.json"
  local rc=$?
  PIDS+=($DSERVER_CHILD "$DSERVER_PID")
  SERVER_PIDS+=("$DSERVER_CHILD")
  [ "$rc" -eq 0 ] || { echo "fanout.sh: a dserver did not start: $(head -n 3 "$1/dserver.log")" >&2; exit 1; }
  ADDR=127.0.0.1:$DSERVER_PORT
}

t0=$EPOCHREALTIME
SERVERS=
for i in $(seq 1 "$N"); do
  mkdir -p "$T/s$i"
  cp "$T/part.log" "$T/s$i/data.log"
  start_server "$T/s$i"
  SERVERS=${SERVERS:+$SERVERS,}$ADDR
done
mkdir -p "$T/all"
for i in $(seq 1 "$N"); do cat "$T/part.log"; done >"$T/all/data.log"
start_server "$T/all"
ALL=$ADDR
echo "started $N dservers (+1 holding all data) in $(echo "$EPOCHREALTIME - $t0" | bc) s"

FLAGS=(--key "$T/id_ed25519" --trustAllHosts --noColor --logLevel info)
# servers_cpu: the CPU seconds (user + system) all dservers used so far;
# they share the machine with the client, so a run's client and server
# CPU are told apart.
TICK=$(getconf CLK_TCK)
servers_cpu() {
  local p
  for p in "${SERVER_PIDS[@]}"; do cat "/proc/$p/stat" 2>/dev/null; done |
    awk -v hz="$TICK" '{ sub(/^.*\) /, ""); t += $12 + $13 } END { printf "%.2f", t / hz }'
}
# run NAME CMD...: wall time, peak RSS (KiB), the client's CPU seconds and
# the servers', stdout lines; stderr kept.
run() {
  local name=$1; shift
  local s=$EPOCHREALTIME c0
  c0=$(servers_cpu)
  /usr/bin/time -f '%M %U %S' -o "$T/$name.rss" timeout 120 "$@" >"$T/$name.out" 2>"$T/$name.err"
  local rc=$?
  local e=$EPOCHREALTIME
  WALL=$(echo "$e - $s" | bc)
  read -r PEAK CU CS < <(tail -n 1 "$T/$name.rss")
  CCPU=$(echo "$CU + $CS" | bc)
  SCPU=$(echo "$(servers_cpu) - $c0" | bc)
  OUTLINES=$(wc -l <"$T/$name.out")
  [ "$rc" -eq 0 ] || mismatch "$name: exit $rc: $(head -n 3 "$T/$name.err" | tr '\n' ' ')"
  CONNECT=$(sed -n 's/.*Handshakes with all [0-9]* servers done after \([0-9]*\) ms.*/\1/p' "$T/$name.err" | head -n 1)
}

# Trust every host key once (known_hosts written), untimed.
run warm "$BIN/dgrep" "${FLAGS[@]}" --servers "$SERVERS,$ALL" --plain --files data.log --regex nomatch
rm -f "$T"/warm.*

# The client's own base (libraries, one connection): the same dgrep through
# one server. Per server is what each further server adds.
run base "$BIN/dgrep" "${FLAGS[@]}" --servers "${SERVERS%%,*}" --files data.log --regex 'grp=g7\|'
BASE_RSS=$PEAK
echo "client through one server: peak RSS $BASE_RSS KiB"
# A request that finds nothing: the run is its handshakes.
run handshakes "$BIN/dgrep" "${FLAGS[@]}" --servers "$SERVERS" --plain --files data.log --regex nomatch
printf 'handshakes     %8.2f s  connect %5s ms  client CPU %.2f s (%.2f ms per handshake)  servers CPU %.2f s (%.2f ms per handshake)\n' \
  "$WALL" "${CONNECT:-?}" "$CCPU" "$(echo "$CCPU * 1000 / $N" | bc -l)" "$SCPU" "$(echo "$SCPU * 1000 / $N" | bc -l)"

report() { # NAME
  local per
  per=$(echo "scale=1; ($PEAK - $BASE_RSS) / ($N - 1)" | bc)
  printf '%-14s %8.2f s  connect %5s ms  peak RSS %7d KiB (+%s KiB per further server)  %9d lines  %10.0f lines/s  CPU client %.2f s (%.2f ms/server) servers %.2f s\n' \
    "$1" "$WALL" "${CONNECT:-?}" "$PEAK" "$per" "$OUTLINES" "$(echo "$OUTLINES / $WALL" | bc -l)" \
    "$CCPU" "$(echo "$CCPU * 1000 / $N" | bc -l)" "$SCPU"
}

echo "== $N servers x $LINES lines ($(du -h "$T/part.log" | cut -f1) each), one client"
run dcat "$BIN/dcat" "${FLAGS[@]}" --servers "$SERVERS" --files data.log
report dcat
[ "$OUTLINES" -eq $((N * LINES)) ] || mismatch "dcat: $OUTLINES lines, want $((N * LINES))"
run dcat_plain "$BIN/dcat" "${FLAGS[@]}" --plain --servers "$SERVERS" --files data.log
report dcat_plain
run dgrep "$BIN/dgrep" "${FLAGS[@]}" --servers "$SERVERS" --files data.log --regex 'grp=g7\|'
report dgrep
Q='from STATS select grp,count($line),sum(lat),avg(lat),p99(lat) group by grp order by grp limit 100'
run dmap "$BIN/dmap" "${FLAGS[@]}" --servers "$SERVERS" --files data.log --query "$Q"
report dmap
cp "$T/dmap.out" "$T/dmap_fan.out"
FAN_WALL=$WALL
run dmap_one "$BIN/dmap" "${FLAGS[@]}" --servers "$ALL" --files data.log --query "$Q"
printf '%-14s %8.2f s  (one server holding all %d lines)\n' dmap_one "$WALL" $((N * LINES))
cmp -s "$T/dmap_fan.out" "$T/dmap_one.out" ||
  mismatch "dmap: the table through $N servers differs from the one through one server: $(diff "$T/dmap_fan.out" "$T/dmap_one.out" | head -n 6 | tr '\n' ' ')"
echo "dmap through $N servers: $FAN_WALL s; through one server: $WALL s"
print_verdict "output mismatch(es) or failed command(s)" \
  "VERIFIED: dcat gave all $((N * LINES)) lines; dmap gave the same table through $N servers and through one"
((${#MISMATCHES[@]})) && exit 1
exit 0
