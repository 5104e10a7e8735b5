#!/usr/bin/env bash
# benchmarks/soak.sh - one dserver on loopback under mixed clients for a
# long while (issue 14): follows, greps, maps, health checks, clients that
# stop reading, clients killed mid-read, and silent sockets renewed as they
# are dropped. Not in CI.
#
#   benchmarks/soak.sh [--minutes N] [--help]
#
#   --minutes N  how long the clients run (default 30)
#
# Reports requests served and failures by cause for each kind of client
# (the stalled ones fail by design: WriteTimeoutSeconds is 20 here),
# dserver's peak RSS and thread count, and whether both stayed flat over
# the last two thirds of the run (20 of 30 minutes): the verdict compares
# the peaks of that window's two halves (the later may exceed the earlier
# by 10 % plus 8 MiB of RSS, and by 20 threads). Exit 0 when flat and every grep, map and health
# check that should succeed did, 1 otherwise, 2 on a set-up error.
#
# Environment: DTAIL_BIN_DIR (default <repo>/build/bin), DTAIL_BENCH_DIR
# (default /tmp).

set -uo pipefail
export LC_ALL=C
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
MINUTES=30
while (($#)); do
    case $1 in
    --minutes) MINUTES=${2:?--minutes needs a number}; shift 2 ;;
    --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[[ $MINUTES =~ ^[0-9]+$ && $MINUTES -gt 0 ]] || { echo "soak.sh: --minutes must be a positive integer" >&2; exit 2; }
BIN=${DTAIL_BIN_DIR:-$REPO/build/bin}
for b in dcat dgrep dmap dtail dtailhealth dserver; do
    [[ -x $BIN/$b ]] || { echo "soak.sh: $BIN/$b is missing (build first; DTAIL_BIN_DIR)" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "soak.sh: python3 is needed for the silent sockets" >&2; exit 2; }

TMP=$(mktemp -d "${DTAIL_BENCH_DIR:-/tmp}/dtail-soak.XXXXXX") || exit 2
chmod 755 "$TMP"
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    [[ -n ${DSERVER_CHILD:-} ]] && kill -KILL "$DSERVER_CHILD" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

# ------------------------------------------------------------ data
awk 'BEGIN { for (i = 1; i <= 200000; i++) printf "INFO|1002-071143|line %07d of the soak log, padded to fill windows quickly\n", i }' >"$TMP/big.log"
awk 'BEGIN { for (i = 1; i <= 20000; i++) printf "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|hostname=h%d|lat=%d\n", i % 7, i % 100 }' >"$TMP/stats.log"
printf 'old line\n' >"$TMP/follow.log"
chmod 644 "$TMP"/*.log

# ------------------------------------------------------------ the server
. "$REPO/tests/e2e/dserver_lib.sh"
DSERVER_BIN=$BIN/dserver
SERVER_LIFETIME=$((MINUTES * 60 + 600))
SRV=$TMP/srv
mkdir -p "$TMP/home/.ssh"
dserver_prepare "$SRV" '"MaxConnections": 20, "IdleTimeoutSeconds": 30, "WriteTimeoutSeconds": 20' ||
    { echo "soak.sh: cannot prepare the server" >&2; exit 2; }
export HOME=$TMP/home
printf '{"Common": {"SSHConnectTimeoutMs": 30000}}\n' >"$HOME/.dtail.conf"
dserver_launch "$SRV/log.txt" 127.0.0.1 0 . --cfg "$SRV/dtail.json" ||
    { echo "soak.sh: dserver did not start: $(head -5 "$SRV/log.txt")" >&2; exit 2; }
SERVER=127.0.0.1:$DSERVER_PORT
CL=(--servers "$SERVER" --key "$SRV/id_ed25519" --trustAllHosts --noColor)
END=$(($(date +%s) + MINUTES * 60))
echo "soak: dserver $DSERVER_CHILD on $SERVER for $MINUTES min, work in $TMP" >&2

# record KIND RC ERRFILE: one line per request: kind, ok|fail, cause.
record() {
    local cause=-
    if [[ $2 != 0 ]]; then
        cause=$(grep -v SUMMARY "$3" 2>/dev/null | tail -n 1 | sed -E 's/127\.0\.0\.1:[0-9]+/SERVER/g; s/[0-9]+/N/g' | cut -c1-100)
        cause="rc=$2 ${cause:-no message}"
    fi
    printf '%s\t%s\t%s\n' "$1" "$([[ $2 == 0 ]] && echo ok || echo fail)" "$cause" >>"$TMP/results"
}

loop() { # KIND CMD...: runs CMD until the end, recording each run
    local kind=$1 rc
    shift
    while (($(date +%s) < END)); do
        timeout 120 "$@" >"$TMP/$kind.out" 2>"$TMP/$kind.err" </dev/null
        rc=$?
        record "$kind" "$rc" "$TMP/$kind.err"
    done
}

# Clients whose success is expected.
loop grep "$BIN/dgrep" "${CL[@]}" --regex 'line 0199999' --files "$TMP/big.log" &
PIDS+=($!)
loop map "$BIN/dmap" "${CL[@]}" --files "$TMP/stats.log" --query 'from STATS select count($line),avg(lat) group by hostname' &
PIDS+=($!)
loop health "$BIN/dtailhealth" --server "$SERVER" --connectTimeout 30000 &
PIDS+=($!)
loop follow "$BIN/dtail" "${CL[@]}" --timeout 15 --files "$TMP/follow.log" &
PIDS+=($!)
# A writer for the follows: 100 lines a second.
( i=0; while (($(date +%s) < END)); do
    for _ in 1 2 3 4 5 6 7 8 9 10; do i=$((i + 1)); echo "appended line $i"; done >>"$TMP/follow.log"
    sleep 0.1
  done ) &
PIDS+=($!)
# Clients that stop reading (a paused pager) for 30 s, then go on: with
# WriteTimeoutSeconds 20 the server ends their request, so these fail
# ("connection reset" or "ended"), by design.
( while (($(date +%s) < END)); do
    { timeout 40 "$BIN/dcat" "${CL[@]}" --files "$TMP/big.log" 2>"$TMP/stalled.err"; echo $? >"$TMP/stalled.rc"; } |
      bash -c 'kill -STOP $$; exec cat >/dev/null' &
    reader=$!
    sleep 30
    kill -CONT "$reader" 2>/dev/null
    wait "$reader"
    record stalled "$(cat "$TMP/stalled.rc" 2>/dev/null || echo 99)" "$TMP/stalled.err"
  done ) &
PIDS+=($!)
# Clients killed while they read.
( while (($(date +%s) < END)); do
    "$BIN/dcat" "${CL[@]}" --files "$TMP/big.log" >/dev/null 2>&1 &
    victim=$!
    sleep 0.3
    kill -KILL "$victim" 2>/dev/null
    wait "$victim" 2>/dev/null
    printf 'killed\tok\t-\n' >>"$TMP/results"
    sleep 1
  done ) &
PIDS+=($!)
# Silent sockets, renewed as they are dropped, from another address
# (127.0.0.2): more than its MaxPreauthPerSource share, so they churn.
python3 "$REPO/tests/support/halfopen.py" 127.0.0.1 "$DSERVER_PORT" 100 $((MINUTES * 60)) 127.0.0.2 >"$TMP/halfopen.out" 2>&1 &
PIDS+=($!)

# ------------------------------------------------------------ sampling
: >"$TMP/samples"
while (($(date +%s) < END)); do
    awk -v t="$(date +%s)" '/^VmRSS:/ { rss = $2 } /^Threads:/ { th = $2 } END { print t, rss, th }' \
        "/proc/$DSERVER_CHILD/status" >>"$TMP/samples" 2>/dev/null
    sleep 10
done
sleep 2
for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done

# ------------------------------------------------------------ report
echo
echo "## dserver soak: $MINUTES min against $SERVER"
echo
echo "| client | served | failed | failures by cause |"
echo "|---|---|---|---|"
for kind in grep map health follow stalled killed; do
    ok=$(awk -F'\t' -v k="$kind" '$1 == k && $2 == "ok"' "$TMP/results" | wc -l)
    bad=$(awk -F'\t' -v k="$kind" '$1 == k && $2 == "fail"' "$TMP/results" | wc -l)
    causes=$(awk -F'\t' -v k="$kind" '$1 == k && $2 == "fail" { print $3 }' "$TMP/results" | sort | uniq -c |
        sort -rn | head -n 3 | awk '{ n = $1; $1 = ""; printf "%s%d×%s", sep, n, $0; sep = "; " }')
    echo "| $kind | $ok | $bad | ${causes:--} |"
done
echo
echo "Silent sockets: $(tail -n 1 "$TMP/halfopen.out" 2>/dev/null)"
awk -v total="$((MINUTES * 60))" '
    NR == 1 { t0 = $1 }
    { t[NR] = $1; r[NR] = $2; h[NR] = $3; if ($2 > pr) pr = $2; if ($3 > ph) ph = $3 }
    END {
        printf "\nPeak RSS %.1f MiB, peak threads %d (%d samples, every 10 s)\n", pr / 1024, ph, NR
        # The last two thirds, in halves: growth shows as a later half whose
        # peak is above the earlier one; churn (threads of dropped sockets
        # still ending) only as noise within both.
        a = t0 + total / 3; m = t0 + 2 * total / 3; na = nb = 0
        for (i = 1; i <= NR; i++) {
            if (t[i] >= a && t[i] < m) { na++; if (r[i] > ra) ra = r[i]; if (h[i] > ha) ha = h[i] }
            if (t[i] >= m) { nb++; if (r[i] > rb) rb = r[i]; if (h[i] > hb) hb = h[i] }
        }
        if (!na || !nb) { print "Too short to judge flatness"; exit 1 }
        flat = (rb <= ra * 1.10 + 8192) && (hb <= ha + 20)
        printf "Last two thirds, peak of each half: RSS %.1f then %.1f MiB, threads %d then %d: %s\n",
            ra / 1024, rb / 1024, ha, hb, flat ? "flat" : "NOT FLAT"
        exit flat ? 0 : 1
    }' "$TMP/samples"
flat=$?
must_fail=$(awk -F'\t' '($1 == "grep" || $1 == "map") && $2 == "fail"' "$TMP/results" | wc -l)
dserver_alive=0
kill -0 "$DSERVER_CHILD" 2>/dev/null && dserver_alive=1
echo "dserver alive at the end: $([[ $dserver_alive == 1 ]] && echo yes || echo NO)"
((flat == 0 && must_fail == 0 && dserver_alive == 1))
