#!/usr/bin/env bash
# benchmarks/spill.sh - dmap's group-by spill (issue 5, item 2): 5M distinct
# groups under --memory-limit 64M beside the same query in memory; time and
# peak RSS of both runs, their ratios, and the two CSV results compared.
#
#   benchmarks/spill.sh [--groups N] [--limit SIZE] [--quick] [--cache DIR] [--strict] [--help]
#
#   --groups N    distinct groups, one line each (default 5000000)
#   --limit SIZE  the spilled run's --memory-limit (default 64M)
#   --quick       1000000 groups (unless --groups is given)
#   --cache DIR   where the generated log is kept and reused (/tmp/dtail-bench)
#   --strict      exit 1 when the spilled run's peak RSS exceeds the limit
#
# Environment:
#   DTAIL_BIN_DIR    where dmap is (default: <repo>/build/bin)
#   DTAIL_BENCH_DIR  data cache (default /tmp/dtail-bench); same as --cache
#
# The data: key=value lines (logformat generickv) `id=uK|v=V` with K a
# permutation of 0..N-1 (K = i * 7919 mod 10000019, `gen groups`), so
# every line is its own group and keys arrive in no order; about 18 bytes a
# line, read by both cores. The query writes every group to a CSV outfile
# (the hardest case for memory: 5M rows). Each command runs once (a run is 15-30 s). Report on
# stdout, progress on stderr. Exit status: 0, 1 on a result mismatch or a
# failed command (with --strict also on a miss), 2 on a usage error.

set -uo pipefail
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$SCRIPT_DIR")
# shellcheck source=benchmarks/lib.sh
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=spill-bench
BENCH_ON_FAIL=failed
RATIO_FMT=%.2f

GROUPS_N= LIMIT=
while [[ $# -gt 0 ]]; do
    case $1 in
    --groups) GROUPS_N=${2:?--groups needs a value}; shift 2 ;;
    --limit) LIMIT=${2:?--limit needs a value}; shift 2 ;;
    --size | --size=* | --runs | --runs=*)
        echo "spill.sh: $1 does not apply (the data is --groups lines; each command runs once)" >&2
        usage 2 ;;
    *) common_opt "$@"; shift "$SHIFT" ;;
    esac
done
[[ $QUICK == 1 ]] && : "${GROUPS_N:=1000000}"
GROUPS_N=${GROUPS_N:-5000000} LIMIT=${LIMIT:-64M}
require_positive GROUPS_N
((GROUPS_N < 10000019)) || { echo "spill.sh: --groups must be below 10000019" >&2; exit 2; }

bench_start spill

DMAP=${DTAIL_BIN_DIR:-$REPO_DIR/build/bin}/dmap
[[ -x $DMAP ]] || { echo "spill.sh: $DMAP is not built" >&2; exit 2; }
find_time
[[ $HAVE_TIME == 1 ]] || note "/usr/bin/time is missing: no peak RSS"

# ------------------------------------------------------------------- data
GEN=$CACHE/gen
build_c gen "$SCRIPT_DIR/gen.c" || { echo "spill.sh: cannot build gen.c" >&2; exit 2; }
GEN_KEY=$KEY
GEN_NEED_MB=$((GROUPS_N * 20 / 1048576 + 100))
DATA=$CACHE/spill-$GROUPS_N.log
ensure_file "spill-$GROUPS_N.log" groups "$GROUPS_N"
LINES=$(wc -l <"$DATA")
[[ $LINES == "$GROUPS_N" ]] || { echo "spill.sh: $DATA has $LINES lines, want $GROUPS_N" >&2; exit 2; }

sample_cpu_busy
progress "warming the page cache"
cat "$DATA" >/dev/null

Q='select count($line),sum(v),max(v),id group by id logformat generickv'
SPILL_TMP=$TMP/spill-tmp
mkdir -p "$SPILL_TMP"

# timed_run ID OUT.csv [FLAGS...]: one run, its wall time in SECS[ID]
declare -A SECS
timed_run() {
    local id=$1 out=$2 t0
    shift 2
    progress "running $id"
    t0=$EPOCHREALTIME
    check_run "$id" /dev/null -- env TMPDIR="$SPILL_TMP" "$DMAP" --cfg none --plain --logLevel info \
        "$@" --query "$Q outfile $out" "$DATA" || return 1
    SECS[$id]=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    progress "  $id: ${SECS[$id]} s, peak RSS ${RSS[$id]:--} KiB"
}

timed_run memory "$TMP/memory.csv"
timed_run spill "$TMP/spill.csv" --memory-limit "$LIMIT"
grep -h 'INFO|spill|' "$TMP/spill.err" | sed 's/^/  /' >&2
grep -q 'INFO|spill|' "$TMP/spill.err" || mismatch "the spilled run did not spill under $LIMIT"
grep -q 'INFO|spill|' "$TMP/memory.err" && mismatch "the in-memory run spilled"
ROWS=$(($(wc -l <"$TMP/memory.csv") - 1))
if cmp -s "$TMP/memory.csv" "$TMP/spill.csv"; then
    SAME=1
else
    SAME=0
    mismatch "the spilled CSV differs from the in-memory CSV ($(cmp "$TMP/memory.csv" "$TMP/spill.csv" 2>&1 | head -1))"
fi
[[ $ROWS == "$GROUPS_N" ]] || mismatch "the result has $ROWS rows, want $GROUPS_N"
LEFT=$(ls -A "$SPILL_TMP")
[[ -z $LEFT ]] || mismatch "files left in the spill directory: $LEFT"

# ------------------------------------------------------------------ report
limit_kib=$(numfmt --from=iec "$LIMIT" 2>/dev/null | awk '{ printf "%d", $1 / 1024 }')
echo "dmap group-by spill benchmark ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
print_machine
echo "data    : $DATA ($GROUPS_N lines, $GROUPS_N groups, $(($(stat -c %s "$DATA") / 1048576)) MiB)"
echo "query   : $Q outfile X.csv"
echo
printf '%-32s %9s %14s\n' "" "wall s" "peak RSS KiB"
printf '%-32s %9s %14s\n' "in memory (default limit)" "${SECS[memory]:--}" "${RSS[memory]:--}"
printf '%-32s %9s %14s\n' "spilled, --memory-limit $LIMIT" "${SECS[spill]:--}" "${RSS[spill]:--}"
echo
echo "ratios spilled / in memory: time $(ratio "${SECS[spill]:-}" "${SECS[memory]:-}"), peak RSS $(ratio "${RSS[spill]:-}" "${RSS[memory]:-}")"
echo "spilled peak RSS / limit  : $(ratio "${RSS[spill]:-}" "$limit_kib")"
MISS=0
if [[ -n ${RSS[spill]:-} && -n $limit_kib ]] && ! le "${RSS[spill]}" "$limit_kib"; then
    note "MISS: the spilled run's peak RSS exceeds the limit"
    MISS=1
fi
TSV=$CACHE/spill-results.tsv
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$GROUPS_N" "$LIMIT" "${SECS[memory]:-}" \
    "${RSS[memory]:-}" "${SECS[spill]:-}" "${RSS[spill]:-}" >>"$TSV"
bench_finish "result mismatch(es) or failed command(s)" \
    "VERIFIED: both runs wrote the same $ROWS rows (byte-identical CSV)" "$TSV" "$MISS"
