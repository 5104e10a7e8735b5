#!/usr/bin/env bash
# benchmarks/remote_spill.sh - `group by $line` through a dserver with both
# halves memory-bound (issue 15): dserver at Server.MapMemoryLimit, the
# client merging at --memory-limit, beside the same query serverless. Peak
# RSS of dserver and client, time of both runs, and the CSVs compared.
#
#   benchmarks/remote_spill.sh [--size MB] [--limit SIZE] [--quick] [--cache DIR] [--strict] [--help]
#
#   --size MB     the log's size in MiB (default 1024; --quick: 128); every
#                 line is its own group (about 70 bytes a line)
#   --limit SIZE  Server.MapMemoryLimit and the client's --memory-limit
#                 (default 64M)
#   --cache DIR   where the generated log is kept and reused (/tmp/dtail-bench)
#   --strict      exit 1 when a peak RSS is over 192 MiB
#
# Environment: DTAIL_BIN_DIR (default <repo>/build/bin: dmap, dserver),
# DTAIL_BENCH_DIR. Each command runs once. Report on stdout, progress on
# stderr. Exit status: 0, 1 on a mismatch or failed command (with --strict
# also on a miss), 2 on a usage error.

set -uo pipefail
export LC_ALL=C
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$SCRIPT_DIR")
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=remote-spill
BENCH_ON_FAIL=failed
LIMIT=
while (($#)); do
    case $1 in
    --limit) LIMIT=${2:?--limit needs a value}; shift 2 ;;
    *) common_opt "$@"; shift "$SHIFT" ;;
    esac
done
[[ $QUICK == 1 ]] && SIZE_MB=${SIZE_MB:-128}
SIZE_MB=${SIZE_MB:-1024} LIMIT=${LIMIT:-64M}
require_positive SIZE_MB
BIN=${DTAIL_BIN_DIR:-$REPO/build/bin}
for b in dmap dserver; do
    [[ -x $BIN/$b ]] || { echo "remote_spill.sh: $BIN/$b is missing (build first)" >&2; exit 2; }
done
MISSES=()
bench_start remote_spill
find_time
[[ $HAVE_TIME == 1 ]] || { echo "remote_spill.sh: needs /usr/bin/time for the client's peak RSS" >&2; exit 2; }

# ------------------------------------------------------------------- data
LOG=$CACHE/distinct-${SIZE_MB}m.log
if [[ ! -s $LOG ]]; then
    need_space $((SIZE_MB * 3))
    progress "generating $LOG (${SIZE_MB} MiB of distinct lines)"
    awk -v bytes=$((SIZE_MB * 1048576)) 'BEGIN {
        for (i = 0; n < bytes; i++) {
            s = sprintf("line %09d with enough text to make the group key long %d", (i * 7919) % 100000007, i % 13)
            print s; n += length(s) + 1 } }' >"$LOG.tmp" && mv "$LOG.tmp" "$LOG" || exit 2
fi
chmod a+rx "$CACHE" 2>/dev/null
chmod a+r "$LOG" 2>/dev/null
LINES=$(wc -l <"$LOG")
Q='select count($line),$line group by $line'

# ------------------------------------------------------------ the server
. "$REPO/tests/e2e/dserver_lib.sh"
DSERVER_BIN=$BIN/dserver
SERVER_LIFETIME=7200
SRV=$TMP/srv
chmod 755 "$TMP"
mkdir -p "$TMP/home/.ssh" || exit 2
dserver_prepare "$SRV" "\"MapMemoryLimit\": \"$LIMIT\"" || { echo "remote_spill.sh: cannot prepare $SRV" >&2; exit 2; }
export HOME=$TMP/home
SERVER_PID=
trap 'kill $SERVER_PID 2>/dev/null; rm -rf "$TMP"' EXIT
dserver_launch "$SRV/log.txt" 127.0.0.1 0 . --cfg "$SRV/dtail.json"
LAUNCHED=$?
SERVER_PID="$DSERVER_CHILD $DSERVER_PID"
((LAUNCHED == 0)) || { echo "remote_spill.sh: dserver did not start: $(head -5 "$SRV/log.txt")" >&2; exit 2; }
CL=(--cfg none --servers "127.0.0.1:$DSERVER_PORT" --key "$SRV/id_ed25519" --trustAllHosts --noColor)
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$DSERVER_CHILD/status" 2>/dev/null; }

run_timed() { # NAME ARGS...: one run under GNU time; sets <NAME>_S and <NAME>_KIB
    local name=$1; shift
    local t0=$EPOCHREALTIME
    /usr/bin/time -f '%M' -o "$TMP/$name.rss" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
        cmd_failed "$name: exit $?: $(tail -3 "$TMP/$name.err")"
    printf -v "${name}_S" '%s' "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
    printf -v "${name}_KIB" '%s' "$(tail -1 "$TMP/$name.rss")"
}

progress "serverless dmap --memory-limit $LIMIT over $LINES lines"
run_timed local "$BIN/dmap" --cfg none --logLevel warn --memory-limit "$LIMIT" \
    --query "$Q outfile $TMP/local.csv" "$LOG"
base=$(hwm_kib)
progress "the same through the dserver (MapMemoryLimit $LIMIT), client --memory-limit $LIMIT"
run_timed remote "$BIN/dmap" "${CL[@]}" --logLevel info --memory-limit "$LIMIT" \
    --query "$Q outfile $TMP/remote.csv" --files "$LOG"
srv_kib=$(hwm_kib)
grep -q 'Map spilled' "$SRV/log.txt" || note "dserver did not spill"
grep -q 'merged result in a temporary database' "$TMP/remote.err" || note "the client's merge did not spill"
if cmp -s <(sort "$TMP/local.csv") <(sort "$TMP/remote.csv"); then
    same=yes
else
    same=no
    mismatch "the CSV through the server differs from serverless's"
fi

mib() { awk -v k="$1" 'BEGIN { if (k == "") print "-"; else printf "%.0f", k / 1024 }'; }
echo "=== group by \$line through a dserver, both halves at $LIMIT ==="
print_machine
printf '%-34s %10s %12s\n' "run" "time (s)" "peak RSS MiB"
printf '%-34s %10s %12s\n' "serverless dmap" "$local_S" "$(mib "$local_KIB")"
printf '%-34s %10s %12s\n' "through dserver: client" "$remote_S" "$(mib "$remote_KIB")"
printf '%-34s %10s %12s\n' "through dserver: dserver" "" "$(mib "$srv_kib") (at start $(mib "$base"))"
printf 'time through the server / serverless: %sx; CSV equal: %s; %s lines, %s groups\n' \
    "$(ratio "$remote_S" "$local_S")" "$same" "$LINES" "$(($(wc -l <"$TMP/local.csv") - 1))"
for x in "client:$remote_KIB" "dserver:$srv_kib"; do
    k=${x#*:}
    [[ -n $k ]] && ((k <= 192 * 1024)) || MISSES+=("${x%%:*} peak RSS $(mib "$k") MiB over 192 MiB")
done
for m in "${MISSES[@]}"; do note "MISS: $m"; done
bench_finish "result mismatches" "VERIFIED: the CSV through the server equals serverless's" "" "${#MISSES[@]}"
