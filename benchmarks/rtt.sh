#!/usr/bin/env bash
# benchmarks/rtt.sh - one small request through a server at 50 ms round
# trip (issue 20.3): the whole client process of a one-line dcat, dgrep,
# dmap and dtailhealth through our dserver, beside OpenSSH's `ssh host cat`
# of the same file through an sshd and the Go DTail's dcat through its
# dserver, every server behind benchmarks/delayproxy.c adding 25 ms each
# way, in one run.
#
#   benchmarks/rtt.sh [--runs N] [--cache DIR] [--strict] [--help]
#
#   --runs N     timed runs per command, median reported (default 5)
#   --cache DIR  where the helpers are built (/tmp/dtail-bench)
#   --strict     exit 1 when the target is missed
#
# Target: the one-line dcat at most 275 ms (5 round trips and the
# processes' own time). The round trips a client waits for are counted
# from the delay: (median - local median) / 50 ms, the local median being
# the same command without the proxy. docs/protocol.md "Round trips" lists
# them. Environment: DTAIL_BIN_DIR (default <repo>/build/bin),
# DTAIL_BASE_BIN_DIR (a second build, e.g. main's, timed in the same run
# for a before/after), DTAIL_PEERS (the Go DTail binaries; default
# <repo>/../shared/peers/dtail-4.3.2-ng/bin), DTAIL_BENCH_DIR, CC.

set -uo pipefail
export LC_ALL=C
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=rtt
while (($#)); do
    common_opt "$@"
    shift "$SHIFT"
done
RUNS=${RUNS:-5}
require_positive RUNS
BIN=${DTAIL_BIN_DIR:-$REPO/build/bin}
BASE=${DTAIL_BASE_BIN_DIR:-}
PEERS=${DTAIL_PEERS:-$REPO/../shared/peers/dtail-4.3.2-ng/bin}
for b in dcat dgrep dmap dserver dtailhealth; do
    [[ -x $BIN/$b ]] || { echo "rtt.sh: $BIN/$b is missing (build first; DTAIL_BIN_DIR)" >&2; exit 2; }
    [[ -z $BASE || -x $BASE/$b ]] || { echo "rtt.sh: $BASE/$b is missing (DTAIL_BASE_BIN_DIR)" >&2; exit 2; }
done
MISSES=()
bench_start rtt
HAVE_HYPERFINE=0   # the bash loop: every run gets the same environment
HAVE_TIME=0
GEN=$CACHE/gen
build_c gen "$SCRIPT_DIR/gen.c" || { echo "rtt.sh: cannot build gen.c" >&2; exit 2; }
build_c delayproxy "$SCRIPT_DIR/delayproxy.c" || { echo "rtt.sh: cannot build delayproxy.c" >&2; exit 2; }
sample_cpu_busy

. "$REPO/tests/e2e/dserver_lib.sh"
DSERVER_BIN=$BIN/dserver
SERVER_LIFETIME=3600
SRV=$TMP/srv
USER_NAME=$(id -un)
chmod 755 "$TMP"
mkdir -p "$TMP/home/.ssh" "$TMP/data" || exit 2
ONE=$TMP/data/one.log
printf 'INFO|1205-053000|1|rtt.sh:1|one line\n' >"$ONE"
chmod -R a+rX "$TMP/data"
dserver_prepare "$SRV" || { echo "rtt.sh: cannot prepare the key and config in $SRV" >&2; exit 2; }
KEYF=$SRV/id_ed25519
export HOME=$TMP/home
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; rm -rf "$TMP"' EXIT

# proxy TARGET_PORT: a delay proxy in front of it; sets PPORT
proxy() {
    local out=$TMP/proxy.$1
    "$CACHE/delayproxy" 0 "$1" 25 >"$out" &
    PIDS+=($!)
    PPORT=
    for _ in $(seq 1 100); do PPORT=$(sed -n 's/^port //p' "$out"); [[ -n $PPORT ]] && return 0; sleep 0.05; done
    return 1
}

dserver_launch "$SRV/log.txt" 127.0.0.1 0 . --cfg "$SRV/dtail.json"
LAUNCHED=$?
PIDS+=("$DSERVER_CHILD" "$DSERVER_PID")
((LAUNCHED == 0)) || { echo "rtt.sh: dserver did not start: $(head -5 "$SRV/log.txt")" >&2; exit 2; }
C_PORT=$DSERVER_PORT
proxy "$C_PORT" || { echo "rtt.sh: the delay proxy did not start" >&2; exit 2; }
C_PPORT=$PPORT
progress "dserver on 127.0.0.1:$C_PORT, behind the proxy on $C_PPORT"

Q='select count($line)'
IDS=()
# ours ID BIN PORT: the four clients of BIN against the server on PORT
ours() {
    local id=$1 b=$2 port=$3
    local cl=(--cfg none --servers "127.0.0.1:$port" --key "$KEYF" --trustAllHosts --noColor)
    time_cmd "${id}_cat" 1 "$RUNS" -- "$b/dcat" --plain "${cl[@]}" --files "$ONE"
    time_cmd "${id}_grep" 1 "$RUNS" -- "$b/dgrep" --plain "${cl[@]}" --grep line --files "$ONE"
    time_cmd "${id}_map" 1 "$RUNS" -- "$b/dmap" "${cl[@]}" --query "$Q" --files "$ONE"
    time_cmd "${id}_health" 1 "$RUNS" -- "$b/dtailhealth" --server "127.0.0.1:$port" --connectTimeout 10000
    IDS+=("${id}_cat" "${id}_grep" "${id}_map" "${id}_health")
}
progress "ours, without and with the delay"
ours local "$BIN" "$C_PORT"
ours new "$BIN" "$C_PPORT"
[[ $(cat "$ONE") == "$("$BIN/dcat" --plain --cfg none --servers "127.0.0.1:$C_PPORT" --key "$KEYF" \
    --trustAllHosts --noColor --files "$ONE")" ]] || mismatch "dcat through the proxy: not the file's line"
if [[ -n $BASE ]]; then
    progress "the base build's clients against the same server"
    ours baselocal "$BASE" "$C_PORT"
    ours base "$BASE" "$C_PPORT"
fi

SSHD=$(command -v sshd || ls /usr/sbin/sshd 2>/dev/null)
if [[ -n $SSHD ]] && have ssh; then
    progress "OpenSSH: ssh host cat, without and with the delay"
    ssh-keygen -q -t ed25519 -N '' -f "$TMP/sshd_host" || true
    cp "$KEYF.pub" "$TMP/authorized_keys"
    SPORT=$((20000 + RANDOM % 20000))
    [ -d /run/sshd ] || mkdir -p /run/sshd 2>/dev/null || true
    "$SSHD" -D -e -p "$SPORT" -h "$TMP/sshd_host" -o ListenAddress=127.0.0.1 \
        -o AuthorizedKeysFile="$TMP/authorized_keys" -o StrictModes=no -o PidFile=none 2>"$TMP/sshd.err" &
    PIDS+=($!)
    sleep 0.5
    proxy "$SPORT" && S_PPORT=$PPORT
    ssh_to() {
        SSH=(ssh -p "$1" -i "$KEYF" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
             -o LogLevel=ERROR -o BatchMode=yes -o IdentitiesOnly=yes -c aes128-gcm@openssh.com
             "$USER_NAME@127.0.0.1" cat "$ONE")
    }
    ssh_to "$SPORT"
    time_cmd ssh_local 1 "$RUNS" -- "${SSH[@]}" && IDS+=(ssh_local)
    ssh_to "$S_PPORT"
    time_cmd ssh 1 "$RUNS" -- "${SSH[@]}" && IDS+=(ssh)
else
    note "OpenSSH not compared: no sshd (apt-get install openssh-server)"
fi

if [[ -x $PEERS/dserver && -x $PEERS/dcat ]] && { [[ $(id -u) != 0 ]] || have setpriv; }; then
    progress "the Go DTail: its dcat through its dserver, without and with the delay"
    . "$REPO/tests/e2e/go_dserver_lib.sh"
    GO_DIR=$TMP/go
    mkdir -p "$GO_DIR/cache" "$GO_DIR/log" "$TMP/golog"
    cp "$KEYF.pub" "$GO_DIR/cache/$USER_NAME.authorized_keys"
    chmod -R a+rwX "$GO_DIR"
    if go_dserver_launch "$GO_DIR" "$PEERS" 3000; then
        PIDS+=("$GO_PID")
        proxy "$GO_PORT" && G_PPORT=$PPORT
        go_cat() {
            GO_CAT=("$PEERS/dcat" --cfg none --servers "127.0.0.1:$1" --user "$USER_NAME" --auth-key-path "$KEYF"
                    --trustAllHosts --noColor --no-auth-key --logDir "$TMP/golog" --plain --files "$ONE")
        }
        go_cat "$GO_PORT"
        time_cmd go_local 1 "$RUNS" -- "${GO_CAT[@]}" && IDS+=(go_local)
        go_cat "$G_PPORT"
        time_cmd go 1 "$RUNS" -- "${GO_CAT[@]}" && IDS+=(go)
    else
        note "the Go dserver did not listen: $(head -3 "$GO_DIR/dserver.out" | tr '\n' ' ')"
    fi
else
    note "the Go DTail not compared: no binaries in $PEERS (DTAIL_PEERS)"
fi

ms() { awk -v s="${MED[$1]:-}" 'BEGIN { if (s != "") printf "%.0f", s * 1000 }'; }
trips() { # ID LOCAL_ID: round trips the delay cost
    awk -v a="${MED[$1]:-}" -v b="${MED[$2]:-}" 'BEGIN { if (a != "" && b != "") printf "%.1f", (a - b) / 0.05 }'
}
echo
echo "=== one small request at 50 ms round trip (delay proxy, loopback) ==="
print_machine
echo "median of $RUNS runs of the whole client process; round trips = (delayed - local) / 50 ms"
echo
printf '%-44s %8s %8s %7s %12s\n' "command" "local" "50ms" "trips" "vs ssh cat"
row() { # TEXT ID LOCAL_ID
    ok "$2" || return 0
    printf '%-44s %5s ms %5s ms %7s %12s\n' "$1" "$(ms "$3")" "$(ms "$2")" "$(trips "$2" "$3")" \
        "$(RATIO_FMT='%.2fx' ratio "${MED[$2]}" "${MED[ssh]:-}")"
}
row "dcat one line (this build)" new_cat local_cat
row "dgrep one line" new_grep local_grep
row "dmap count" new_map local_map
row "dtailhealth" new_health local_health
row "dcat one line (base build)" base_cat baselocal_cat
row "dgrep one line (base build)" base_grep baselocal_grep
row "dmap count (base build)" base_map baselocal_map
row "dtailhealth (base build)" base_health baselocal_health
row "OpenSSH ssh -c aes128-gcm host cat" ssh ssh_local
row "Go DTail 4.3.2 dcat -> Go dserver" go go_local
echo
target "one-line dcat at 50 ms RTT, ms" "$(ms new_cat)" le 275
[[ ${SUMMARY[-1]} == MISS* ]] && MISSES+=(cat)
printf '%s\n' "${SUMMARY[@]}"
bench_finish "mismatches" "output verified: the one-line dcat through the proxy" "" "${#MISSES[@]}"
