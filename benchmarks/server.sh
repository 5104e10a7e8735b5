#!/usr/bin/env bash
# benchmarks/server.sh - dcat, dgrep, dmap and tail through a dserver on
# loopback, each beside the serverless figure of the same run (issue 6).
#
#   benchmarks/server.sh [--size MB] [--runs N] [--quick] [--cache DIR] [--strict] [--help]
#
#   --size MB    size of the mixed log in MiB (default 1024; --quick: 256)
#   --runs N     timed runs per command, median reported (default 3)
#   --cache DIR  where generated data is kept and reused (/tmp/dtail-bench)
#   --strict     exit 1 when any target is missed
#
# Measured: dcat --plain of the mixed log through a server (MB/s, target
# >= 600); dcat of a one-line file through a server, the whole client
# process (ms, <= 30); dgrep of a rare literal (<= 1.3x serverless); dmap on
# the 100 MB STATS file (<= 1.2x serverless); a 10 MB, 100k-line burst
# appended to a followed file, all delivered (s, <= 0.1; a raw TAIL client,
# tests/support/wireclient); dcat with 50 ms round trip added by
# benchmarks/delayproxy.c (MB/s, >= 200); OpenSSH `ssh -c
# aes128-gcm@openssh.com host cat FILE` when an sshd can be started.
#
# Environment: DTAIL_BIN_DIR (default <repo>/build/bin: dcat, dgrep, dmap,
# dserver, wireclient), DTAIL_BENCH_DIR, CC.

set -uo pipefail
export LC_ALL=C
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=server
while (($#)); do
    common_opt "$@"
    shift "$SHIFT"
done
if [[ $QUICK == 1 ]]; then SIZE_MB=${SIZE_MB:-256}; fi
SIZE_MB=${SIZE_MB:-1024}
RUNS=${RUNS:-3}
require_positive SIZE_MB RUNS
BIN=${DTAIL_BIN_DIR:-$REPO/build/bin}
for b in dcat dgrep dmap dserver wireclient; do
    [[ -x $BIN/$b ]] || { echo "server.sh: $BIN/$b is missing (build first; DTAIL_BIN_DIR)" >&2; exit 2; }
done
MISSES=()
bench_start server
HAVE_HYPERFINE=0   # the bash loop: every run gets the same environment
HAVE_TIME=0

GEN=$CACHE/gen
build_c gen "$SCRIPT_DIR/gen.c" || { echo "server.sh: cannot build gen.c" >&2; exit 2; }
GEN_KEY=$KEY
build_c delayproxy "$SCRIPT_DIR/delayproxy.c" || { echo "server.sh: cannot build delayproxy.c" >&2; exit 2; }
MIXED=$CACHE/mixed-$SIZE_MB.log
ensure_file "mixed-$SIZE_MB.log" mixed "$SIZE_MB"
MIXED_STAMP=$STAMP
STATS=$CACHE/stats-100.log
ensure_file stats-100.log stats 100
ONELINE=$CACHE/oneline.log
ensure_file oneline.log oneline
RARE=$(field rare_token "$MIXED_STAMP")
MIXED_BYTES=$(stat -c %s "$MIXED")
chmod a+rx "$CACHE" 2>/dev/null
chmod a+r "$MIXED" "$STATS" "$ONELINE" 2>/dev/null
sample_cpu_busy

# ------------------------------------------------------------ the server
# The launch is the e2e harness's (tests/e2e/dserver_lib.sh).
. "$REPO/tests/e2e/dserver_lib.sh"
DSERVER_BIN=$BIN/dserver
SERVER_LIFETIME=7200
SRV=$TMP/srv
USER_NAME=$(id -un)
chmod 755 "$TMP"
mkdir -p "$TMP/home/.ssh" "$TMP/follow" && chmod 755 "$TMP/follow" || exit 2
dserver_prepare "$SRV" || { echo "server.sh: cannot prepare the key and config in $SRV" >&2; exit 2; }
export HOME=$TMP/home
SERVER_PID=
PROXY_PID=
TAIL_PID=
trap 'kill $SERVER_PID $PROXY_PID $TAIL_PID 2>/dev/null; rm -rf "$TMP"' EXIT
dserver_launch "$SRV/log.txt" 127.0.0.1 0 . --cfg "$SRV/dtail.json"
LAUNCHED=$?
SERVER_PID="$DSERVER_CHILD $DSERVER_PID"
((LAUNCHED == 0)) || { echo "server.sh: dserver did not start: $(head -5 "$SRV/log.txt")" >&2; exit 2; }
PORT=$DSERVER_PORT
progress "dserver on 127.0.0.1:$PORT (pid $DSERVER_CHILD)"
CL=(--cfg none --servers "127.0.0.1:$PORT" --key "$SRV/id_ed25519" --trustAllHosts --noColor)

mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s == "" || s == 0) print ""; else printf "%.0f", b / s / 1e6 }'; }
verdict() { # OK-CONDITION-RESULT TEXT: records a MISS when the condition failed
    if [[ $1 != 1 ]]; then MISSES+=("$2"); echo "MISS"; else echo "ok"; fi
}

# ------------------------------------------------------------ dcat --plain
progress "dcat --plain $MIXED serverless and through the server"
time_cmd cat_local 1 "$RUNS" -- "$BIN/dcat" --plain --cfg none "$MIXED"
time_cmd cat_srv 1 "$RUNS" -- "$BIN/dcat" --plain "${CL[@]}" --files "$MIXED"
"$BIN/dcat" --plain "${CL[@]}" --files "$MIXED" | "$GEN" sum >"$TMP/cat.sum"
[[ $(field sum "$(cat "$TMP/cat.sum")") == "$(field sum "$MIXED_STAMP")" ]] ||
    mismatch "dcat through the server: $(cat "$TMP/cat.sum") vs $MIXED_STAMP"

progress "dcat of a one-line file through the server (whole client process)"
time_cmd oneline 2 $((RUNS * 5)) -- "$BIN/dcat" --plain "${CL[@]}" --files "$ONELINE"

progress "dgrep rare literal $RARE"
time_cmd grep_local 1 "$RUNS" -- "$BIN/dgrep" --plain --cfg none --grep "$RARE" "$MIXED"
time_cmd grep_srv 1 "$RUNS" -- "$BIN/dgrep" --plain "${CL[@]}" --grep "$RARE" --files "$MIXED"

Q='from STATS select count($line),avg($goroutines),max(currentConnections) group by $hostname'
progress "dmap on $STATS"
time_cmd map_local 1 "$RUNS" -- "$BIN/dmap" --cfg none --noColor --query "$Q" "$STATS"
time_cmd map_srv 1 "$RUNS" -- "$BIN/dmap" "${CL[@]}" --query "$Q" --files "$STATS"

# ------------------------------------------------------------ tail burst
progress "tail: a 10 MB, 100k-line burst appended to a followed file"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "INFO|1002-071143|burst line %06d padded to about one hundred bytes ......................\n", i }' >"$TMP/burst"
BURST_BYTES=$(stat -c %s "$TMP/burst")
FOL=$TMP/follow/followed.log
: >"$FOL"
chmod 644 "$FOL"
"$BIN/wireclient" "127.0.0.1:$PORT" "$SRV/id_ed25519" tail "$FOL" >"$TMP/tail.out" 2>"$TMP/tail.err" &
TAIL_PID=$!
for _ in $(seq 1 100); do grep -qF "Start reading|$FOL" "$SRV/log.txt" && break; sleep 0.05; done
sleep 0.2
t0=$EPOCHREALTIME
cat "$TMP/burst" >>"$FOL"
TAIL_S=
for _ in $(seq 1 20000); do
    if [[ $(stat -c %s "$TMP/tail.out") -ge $BURST_BYTES ]]; then
        TAIL_S=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')
        break
    fi
done
TAIL_LINES=$(wc -l <"$TMP/tail.out")
kill "$TAIL_PID" 2>/dev/null
wait "$TAIL_PID" 2>/dev/null
TAIL_PID=
[[ $TAIL_LINES == 100000 ]] || mismatch "tail burst: $TAIL_LINES lines delivered, want 100000"

# ------------------------------------------------------------ 50 ms RTT
progress "dcat through a delay proxy adding 25 ms each way"
"$CACHE/delayproxy" 0 "$PORT" 25 >"$TMP/proxy.out" &
PROXY_PID=$!
PPORT=
for _ in $(seq 1 100); do PPORT=$(sed -n 's/^port //p' "$TMP/proxy.out"); [[ -n $PPORT ]] && break; sleep 0.05; done
CLP=(--cfg none --servers "127.0.0.1:$PPORT" --key "$SRV/id_ed25519" --trustAllHosts --noColor)
time_cmd cat_rtt 0 1 -- "$BIN/dcat" --plain "${CLP[@]}" --files "$MIXED"
time_cmd oneline_rtt 0 3 -- "$BIN/dcat" --plain "${CLP[@]}" --files "$ONELINE"
kill "$PROXY_PID" 2>/dev/null
PROXY_PID=

# ------------------------------------------------------------ OpenSSH
SSHD=$(command -v sshd || ls /usr/sbin/sshd 2>/dev/null)
OPENSSH="n/a: no sshd installed (apt-get install openssh-server to compare)"
if [[ -n $SSHD ]] && command -v ssh >/dev/null; then
    ssh-keygen -q -t ed25519 -N '' -f "$TMP/sshd_host" || true
    cp "$SRV/id_ed25519.pub" "$TMP/authorized_keys"
    SPORT=$((20000 + RANDOM % 20000))
    # sshd wants its privilege separation directory even on a private port.
    [ -d /run/sshd ] || mkdir -p /run/sshd 2>/dev/null || true
    "$SSHD" -D -e -p "$SPORT" -h "$TMP/sshd_host" -o ListenAddress=127.0.0.1 \
        -o AuthorizedKeysFile="$TMP/authorized_keys" -o StrictModes=no -o PidFile=none 2>"$TMP/sshd.err" &
    SSHD_PID=$!
    sleep 0.5
    SSH=(ssh -p "$SPORT" -i "$SRV/id_ed25519" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
         -o LogLevel=ERROR -c aes128-gcm@openssh.com "$USER_NAME@127.0.0.1")
    if time_cmd openssh 1 "$RUNS" -- "${SSH[@]}" cat "$MIXED"; then
        OPENSSH="$(mbps "$MIXED_BYTES" "${MED[openssh]}") MB/s"
    else
        OPENSSH="n/a: ssh to the private sshd failed ($(head -c 200 "$TMP/sshd.err" | tr '\n' ' '))"
    fi
    kill "$SSHD_PID" 2>/dev/null
fi

# ------------------------------------------------------------ report
echo
echo "=== dserver benchmarks (loopback; server and client on one machine) ==="
print_machine
echo "data    : $MIXED ($MIXED_BYTES bytes), $STATS, $ONELINE; median of $RUNS runs"
echo
CAT_L=$(mbps "$MIXED_BYTES" "${MED[cat_local]:-}")
CAT_S=$(mbps "$MIXED_BYTES" "${MED[cat_srv]:-}")
CAT_R=$(mbps "$MIXED_BYTES" "${MED[cat_rtt]:-}")
ONE_MS=$(awk -v s="${MED[oneline]:-}" 'BEGIN { if (s != "") printf "%.1f", s * 1000 }')
ONE_RTT_MS=$(awk -v s="${MED[oneline_rtt]:-}" 'BEGIN { if (s != "") printf "%.1f", s * 1000 }')
GREP_R=$(ratio "${MED[grep_srv]:-}" "${MED[grep_local]:-}")
MAP_R=$(ratio "${MED[map_srv]:-}" "${MED[map_local]:-}")
printf '%-52s %12s %12s %8s  %s\n' "measure" "server" "serverless" "ratio" "target"
printf '%-52s %9s MB/s %7s MB/s %8s  >= 600 MB/s: %s\n' "dcat --plain ${SIZE_MB} MiB" "${CAT_S:-?}" "${CAT_L:-?}" \
    "$(ratio "${CAT_S:-}" "${CAT_L:-}")" "$(verdict "$([[ -n $CAT_S ]] && ge "$CAT_S" 600 && echo 1)" "dcat through a server below 600 MB/s")"
printf '%-52s %10s ms %12s %8s  <= 30 ms: %s\n' "dcat of a one-line file (whole client)" "${ONE_MS:-?}" "-" "-" \
    "$(verdict "$([[ -n $ONE_MS ]] && le "$ONE_MS" 30 && echo 1)" "one-line dcat above 30 ms")"
printf '%-52s %11s s %10s s %8s  <= 1.3x: %s\n' "dgrep rare literal" "$(fmt "${MED[grep_srv]:-}" %.3f)" \
    "$(fmt "${MED[grep_local]:-}" %.3f)" "${GREP_R:-?}" "$(verdict "$([[ -n $GREP_R ]] && le "$GREP_R" 1.3 && echo 1)" "dgrep ratio above 1.3")"
printf '%-52s %11s s %10s s %8s  <= 1.2x: %s\n' "dmap on the 100 MB STATS file" "$(fmt "${MED[map_srv]:-}" %.3f)" \
    "$(fmt "${MED[map_local]:-}" %.3f)" "${MAP_R:-?}" "$(verdict "$([[ -n $MAP_R ]] && le "$MAP_R" 1.2 && echo 1)" "dmap ratio above 1.2")"
printf '%-52s %11s s %12s %8s  100 %% within 0.1 s: %s\n' "tail burst 10 MB / 100k lines ($TAIL_LINES delivered)" "${TAIL_S:-never}" "-" "-" \
    "$(verdict "$([[ -n $TAIL_S && $TAIL_LINES == 100000 ]] && le "$TAIL_S" 0.1 && echo 1)" "tail burst not delivered within 0.1 s")"
printf '%-52s %9s MB/s %12s %8s  >= 200 MB/s: %s\n' "dcat --plain with 50 ms RTT (delay proxy)" "${CAT_R:-?}" "-" \
    "$(ratio "${CAT_R:-}" "${CAT_S:-}")" "$(verdict "$([[ -n $CAT_R ]] && ge "$CAT_R" 200 && echo 1)" "dcat at 50 ms RTT below 200 MB/s")"
printf '%-52s %10s ms\n' "dcat of a one-line file with 50 ms RTT" "${ONE_RTT_MS:-?}"
printf '%-52s %s\n' "OpenSSH ssh -c aes128-gcm cat (same file)" "$OPENSSH"
if ((${#MISSES[@]})); then
    echo "targets missed: ${#MISSES[@]}"
    printf '  %s\n' "${MISSES[@]}"
fi
bench_finish "output mismatches" "all outputs verified" "" "${#MISSES[@]}"
