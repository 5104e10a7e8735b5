#!/usr/bin/env bash
# benchmarks/formats.sh - DTail in C benchmark: the log formats of issue 19
# against DuckDB, in one run, on generated files (benchmarks/genfmt.c).
#
#   benchmarks/formats.sh [--size MB] [--runs N] [--rounds N] [--quick]
#                         [--cache DIR] [--no-install] [--strict] [--help]
#
#   --size MB     size of each log file in MiB (default 64; 1024 for the
#                 issue's ~1 GB files)
#   --runs N      timed runs per command, median reported (default 5; --quick: 3)
#   --rounds N    rounds of the interleaved timing that the targets are
#                 judged on: per query, one dmap run then one DuckDB run
#                 (its own node, 1 warm-up, 1 timed), N times (default 3;
#                 0: none, the targets from the block medians)
#   --quick       3 runs
#   --cache DIR   where generated data is kept and reused (/tmp/dtail-bench)
#   --no-install  do not run `npm install` in benchmarks/duckdb/ when
#                 @duckdb/node-api is missing (the DuckDB rows are skipped)
#   --strict      exit 1 when any target is missed
#
# The queries, each on its own file, dmap and DuckDB (SET threads=2, the
# machine's two cores) timed in the same run:
#   nginx   group by status, count and p95 of request_time
#   logfmt  a count per minute (bucket($time, 1m))
#   k8s     a count per level of the application's JSON inside the
#           container's JSON line
#   json    the same count per level over the application's lines alone
# DuckDB reads CSV and JSON with its own readers: the nginx and logfmt
# records are written once more as CSV (every field, RFC 4180 quoting) by
# the generator, outside any timing; k8s and json it reads as they are
# (read_json, the log's JSON through json_extract_string).
#
# Environment: DTAIL_BIN_DIR (default <repo>/build/bin), DMAP, DMAP_ARGS,
# DTAIL_BENCH_DIR, CC, BENCH_NO_HYPERFINE=1 (as benchmarks/dmap.sh).
#
# Report on stdout, progress on stderr. Exit status: 0, or 1 when a result
# MISMATCH or a failed command was seen (with --strict also on any MISS);
# 2 on a usage or set-up error.

set -uo pipefail
TIME_CMD_MIN_RUNS=1
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$SCRIPT_DIR")
# shellcheck source=benchmarks/lib.sh
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=formats-bench
BENCH_ON_FAIL=failed
RATIO_FMT=%.3f

SIZE_MB=64
INSTALL=1
THREADS=2
ROUNDS=3

while [[ $# -gt 0 ]]; do
    case $1 in
    --no-install) INSTALL=0; shift ;;
    --rounds) ROUNDS=${2:?--rounds needs a value}; shift 2 ;;
    *) common_opt "$@"; shift "$SHIFT" ;;
    esac
done
[[ $QUICK == 1 ]] && : "${RUNS:=3}"
: "${RUNS:=5}"
require_positive SIZE_MB RUNS
[[ $ROUNDS =~ ^[0-9]+$ ]] || { echo "formats.sh: --rounds must be a number, got '$ROUNDS'" >&2; exit 2; }

bench_start formats

BIN_DIR=${DTAIL_BIN_DIR:-$REPO_DIR/build/bin}
DMAP=${DMAP:-$BIN_DIR/dmap}
read -r -a DMAP_CMD <<<"$DMAP"
read -r -a DMAP_EXTRA <<<"${DMAP_ARGS:---cfg none}"
[[ -x ${DMAP_CMD[0]} ]] || { echo "formats.sh: dmap is not built (${DMAP_CMD[0]})" >&2; exit 2; }
find_hyperfine
find_time

GEN=$CACHE/genfmt
build_c genfmt "$SCRIPT_DIR/genfmt.c" || { echo "formats.sh: cannot build genfmt.c" >&2; exit 2; }
GEN_KEY=$KEY
GEN_NEED_MB=$((SIZE_MB * 5 + 100))
declare -A FILE BYTES LINES
for k in nginx logfmt k8s; do
    ensure_file "fmt-$k-$SIZE_MB.log" "$k" "$SIZE_MB"
    FILE[$k]=$CACHE/fmt-$k-$SIZE_MB.log
    BYTES[$k]=$(field bytes "$STAMP")
    LINES[$k]=$(field lines "$STAMP")
done
FILE[json]=${FILE[k8s]}.json
BYTES[json]=$(stat -c %s "${FILE[json]}")
LINES[json]=${LINES[k8s]}

DUCK_DIR=$SCRIPT_DIR/duckdb
find_duckdb "$DUCK_DIR"
sample_cpu_busy
progress "warming the page cache"
cat "${FILE[@]}" "${FILE[nginx]}.csv" "${FILE[logfmt]}.csv" >/dev/null

QS=(nginx logfmt k8s json)
declare -A QUERY=(
    [nginx]='select $status, count($line), p95($request_time) group by $status logformat nginx'
    [logfmt]='select bucket($time, 1m), count($line) group by bucket($time, 1m) logformat logfmt'
    [k8s]='select level, count($line) group by level logformat k8s'
    [json]='select level, count($line) group by level logformat json'
)
NGINX_COLS="{'remote_addr':'VARCHAR','time':'TIMESTAMP','method':'VARCHAR','path':'VARCHAR','protocol':'VARCHAR','status':'VARCHAR','body_bytes_sent':'BIGINT','http_referer':'VARCHAR','http_user_agent':'VARCHAR','request_time':'DOUBLE'}"
LOGFMT_COLS="{'time':'TIMESTAMP','level':'VARCHAR','msg':'VARCHAR','user':'VARCHAR','took':'BIGINT','status':'BIGINT'}"
declare -A SQL=(
    [nginx]="SELECT status, count(*), quantile_cont(request_time, 0.95) FROM read_csv('${FILE[nginx]}.csv', header=true, auto_detect=false, delim=',', quote='\"', escape='\"', columns=$NGINX_COLS) GROUP BY 1"
    [logfmt]="SELECT strftime(time_bucket(INTERVAL '1 minute', time), '%Y-%m-%dT%H:%M:%SZ'), count(*) FROM read_csv('${FILE[logfmt]}.csv', header=true, auto_detect=false, delim=',', quote='\"', escape='\"', columns=$LOGFMT_COLS) GROUP BY 1"
    [k8s]="SELECT json_extract_string(log, '\$.level'), count(*) FROM read_json('${FILE[k8s]}', format='newline_delimited', columns={'log':'VARCHAR','stream':'VARCHAR','time':'VARCHAR'}) GROUP BY 1"
    [json]="SELECT level, count(*) FROM read_json('${FILE[json]}', format='newline_delimited', columns={'level':'VARCHAR'}) GROUP BY 1"
)
declare -A SOURCE=([nginx]="${FILE[nginx]}" [logfmt]="${FILE[logfmt]}" [k8s]="${FILE[k8s]}" [json]="${FILE[json]}")
declare -A DUCK_SOURCE=([nginx]="${FILE[nginx]}.csv" [logfmt]="${FILE[logfmt]}.csv" [k8s]="${FILE[k8s]}" [json]="${FILE[json]}")

CHECKS=()
# check_rows Q: dmap's --output csv rows against DuckDB's: the same keys
# and counts, a third column (p95) within 2 % (dmap's quantiles are a
# DDSketch of 1 % relative error, DuckDB's quantile_cont is exact).
check_rows() {
    local q=$1 res
    res=$(python3 - "$TMP/dmap_$q.csv" "$TMP/duckdb_$q.csv" <<'EOF'
import csv, sys
got = {r[0]: r[1:] for r in list(csv.reader(open(sys.argv[1])))[1:]}
want = {r[0]: r[1:] for r in csv.reader(open(sys.argv[2]))}
bad = []
if set(got) != set(want):
    bad.append("keys differ: %d vs %d" % (len(got), len(want)))
for k in sorted(set(got) & set(want)):
    g, w = got[k], want[k]
    if int(g[0]) != int(w[0]):
        bad.append("%s: count %s, DuckDB %s" % (k, g[0], w[0]))
    if len(g) > 1 and abs(float(g[1]) - float(w[1])) > 0.02 * abs(float(w[1])):
        bad.append("%s: p95 %s, DuckDB %s" % (k, g[1], w[1]))
print("ok %d rows" % len(got) if not bad else "; ".join(bad[:3]))
EOF
)
    if [[ $res == ok* ]]; then
        CHECKS+=("ok       $q: dmap and DuckDB: ${res#ok }")
    else
        mismatch "$q: $res"
        CHECKS+=("MISMATCH $q: $res")
    fi
}

# ------------------------------------------------------------------ DuckDB
DUCK_VERSION=""
if [[ $HAVE_DUCKDB == 1 ]]; then
    progress "DuckDB in-process (SET threads=$THREADS): 1 warm-up + $RUNS runs per query"
    args=()
    for q in "${QS[@]}"; do args+=("duckdb_$q=${SQL[$q]}"); done
    if (cd "$DUCK_DIR" && node formats.mjs --threads "$THREADS" --runs "$RUNS" --warmup 1 --outdir "$TMP" "${args[@]}") \
        >"$TMP/duckdb.out" 2>"$TMP/duckdb.err"; then
        DUCK_VERSION=$(sed -n 's/^INFO duckdb_version=\([^ ]*\).*/\1/p' "$TMP/duckdb.out")
        for q in "${QS[@]}"; do
            id=duckdb_$q
            line=$(grep "^RESULT id=$id " "$TMP/duckdb.out")
            [[ -n $line ]] || { failed "$id: no result from formats.mjs"; continue; }
            MED[$id]=$(field median_s "$line") MIN[$id]=$(field min_s "$line") MAX[$id]=$(field max_s "$line")
            OK[$id]=1
        done
    else
        failed "DuckDB formats.mjs: $(tail -3 "$TMP/duckdb.err" | tr '\n' ' ')"
    fi
fi

# -------------------------------------------------------------------- dmap
declare -A SUMMARY_OF
for q in "${QS[@]}"; do
    id=dmap_$q
    cmd=("${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" --output csv --query "${QUERY[$q]}" "${SOURCE[$q]}")
    progress "checking dmap ($q)"
    check_run "$id" "$TMP/$id.csv" -- "${cmd[@]}" || continue
    SUMMARY_OF[$q]=$(grep '^dmap: [0-9]* lines read' "$TMP/$id.err")
    [[ ${OK[duckdb_$q]:-0} == 1 ]] && check_rows "$q"
    progress "timing dmap ($q)"
    time_cmd "$id" 1 "$RUNS" -- "${cmd[@]}"
done

# ------------------------------------------------------------ interleaved
# The machine is shared (other builds and tests on its two cores), and its
# speed drifts within a minute: the targets are judged on rounds in which
# every query runs once in dmap and then once in DuckDB, back to back, so a
# busy moment hits both. dmap's user+sys CPU seconds are kept too: they
# depend less on what else runs.
declare -A IWALL IDUCK ICPU
mkdir -p "$TMP/iduck"
if ((ROUNDS > 0)) && [[ $HAVE_TIME == 1 ]]; then
    progress "interleaved: $ROUNDS rounds of dmap then DuckDB per query"
    for q in "${QS[@]}"; do : >"$TMP/iw_$q" ; : >"$TMP/ic_$q"; : >"$TMP/id_$q"; done
    for ((r = 0; r < ROUNDS; r++)); do
        for q in "${QS[@]}"; do
            ok "dmap_$q" || continue
            /usr/bin/time -f '%e %U %S' -o "$TMP/itime" "${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" \
                --output csv --query "${QUERY[$q]}" "${SOURCE[$q]}" 2>/dev/null | "$GEN" sink
            read -r w u sy <"$TMP/itime"
            echo "$w" >>"$TMP/iw_$q"
            awk -v u="$u" -v s="$sy" 'BEGIN { print u + s }' >>"$TMP/ic_$q"
            if ok "duckdb_$q"; then
                (cd "$DUCK_DIR" && node formats.mjs --threads "$THREADS" --runs 1 --warmup 1 \
                    --outdir "$TMP/iduck" "i_$q=${SQL[$q]}") 2>/dev/null |
                    sed -n 's/^RESULT .* median_s=\([^ ]*\).*/\1/p' >>"$TMP/id_$q"
            fi
        done
    done
    for q in "${QS[@]}"; do
        [[ -s $TMP/iw_$q ]] && IWALL[$q]=$(median <"$TMP/iw_$q") ICPU[$q]=$(median <"$TMP/ic_$q")
        [[ -s $TMP/id_$q ]] && IDUCK[$q]=$(median <"$TMP/id_$q")
    done
fi

# ---------------------------------------------------------------- report

echo
echo "=== DTail in C benchmark: log formats (issue 19) ==="
print_machine
echo "dmap    : ${DMAP_CMD[*]} ${DMAP_EXTRA[*]} --output csv (both cores)"
echo "DuckDB  : ${DUCK_VERSION:-not run} (@duckdb/node-api in-process, SET threads=$THREADS, timed inside node: 1 warm-up + $RUNS runs)"
if [[ $HAVE_HYPERFINE == 1 ]]; then
    echo "timing  : $(hyperfine --version), -N --output=pipe, 1 warm-up + at least $RUNS runs and 3 s, median; page cache warm"
else
    echo "timing  : bash \$EPOCHREALTIME loop, 1 warm-up + $RUNS runs, median; page cache warm"
fi
printf '\n  %-7s %-11s %9s %9s %8s %9s %8s %9s  %s\n' query lines dmap_s MiB/s GB/s duckdb_s dmap/ddb \
    "ddb_MiB" "dmap's query"
for q in "${QS[@]}"; do
    d=${MED[dmap_$q]:-} k=${MED[duckdb_$q]:-}
    ok "dmap_$q" || d=""
    ok "duckdb_$q" || k=""
    printf '  %-7s %-11s %9s %9s %8s %9s %8s %9s  %s\n' "$q" "${LINES[$q]}" "$(fmt "$d" %.3f)" \
        "$(fmt "$([[ -n $d ]] && awk -v b="${BYTES[$q]}" -v t="$d" 'BEGIN { print b / 1048576 / t }')" %.0f)" \
        "$(fmt "$([[ -n $d ]] && awk -v b="${BYTES[$q]}" -v t="$d" 'BEGIN { print b / 1e9 / t }')" %.2f)" \
        "$(fmt "$k" %.3f)" "$(fmt "$(ratio "$d" "$k")" %.3f)" \
        "$(awk -v b="$(stat -c %s "${DUCK_SOURCE[$q]}")" 'BEGIN { printf "%.0f", b / 1048576 }')" "${QUERY[$q]}"
done
echo
echo "  MiB/s and GB/s: the log file's bytes over dmap's median; ddb_MiB: the size of the file DuckDB"
echo "  reads (the CSV of the same records for nginx and logfmt, the log itself for k8s and json)."
for q in "${QS[@]}"; do [[ -n ${SUMMARY_OF[$q]:-} ]] && echo "  dmap stderr ($q): ${SUMMARY_OF[$q]}"; done

if ((${#IWALL[@]})); then
    echo
    echo "  interleaved ($ROUNDS rounds, each query: dmap then DuckDB; medians; the targets below):"
    printf '  %-7s %9s %9s %8s %9s %10s\n' query dmap_s duckdb_s dmap/ddb "dmap_GB/s" "cpu_s/GB"
    for q in "${QS[@]}"; do
        d=${IWALL[$q]:-} k=${IDUCK[$q]:-} c=${ICPU[$q]:-}
        printf '  %-7s %9s %9s %8s %9s %10s\n' "$q" "$(fmt "$d" %.3f)" "$(fmt "$k" %.3f)" \
            "$(fmt "$(ratio "$d" "$k")" %.3f)" \
            "$(fmt "$([[ -n $d ]] && awk -v b="${BYTES[$q]}" -v t="$d" 'BEGIN { print b / 1e9 / t }')" %.2f)" \
            "$(fmt "$([[ -n $c ]] && awk -v b="${BYTES[$q]}" -v t="$c" 'BEGIN { print t / (b / 1e9) }')" %.2f)"
    done
    echo "  cpu_s/GB: dmap's user+sys seconds per GB of the log; 2.0 is 1 GB/s on two free cores."
fi

# the interleaved medians when there are, else the blocks'
t_dmap() { if [[ -n ${IWALL[$1]:-} ]]; then echo "${IWALL[$1]}"; elif ok "dmap_$1"; then echo "${MED[dmap_$1]}"; fi; }
t_duck() { if [[ -n ${IDUCK[$1]:-} ]]; then echo "${IDUCK[$1]}"; elif ok "duckdb_$1"; then echo "${MED[duckdb_$1]}"; fi; }
for q in nginx logfmt k8s json; do
    target "$q dmap / DuckDB" "$(ratio "$(t_dmap "$q")" "$(t_duck "$q")")" le 0.25
done
for q in k8s json; do
    d=$(t_dmap "$q") gbs=""
    [[ -n $d ]] && gbs=$(awk -v b="${BYTES[$q]}" -v t="$d" 'BEGIN { printf "%.2f", b / 1e9 / t }')
    target "$q dmap throughput, GB/s on both cores" "$gbs" ge 1.0
done

echo
echo "--- result checks ---"
if ((${#CHECKS[@]})); then printf '  %s\n' "${CHECKS[@]}"; else echo "  (none)"; fi
echo
echo "--- targets (issue 19) ---"
printf '  %s\n' "${SUMMARY[@]}"
echo "  $PASS_N PASS, $MISS_N MISS, $NA_N n/a"
{
    printf 'id\tmedian_s\tmin_s\tmax_s\tbytes\n'
    for q in "${QS[@]}"; do
        for id in "dmap_$q" "duckdb_$q"; do
            ok "$id" && printf '%s\t%s\t%s\t%s\t%s\n' "$id" "${MED[$id]}" "${MIN[$id]}" "${MAX[$id]}" "${BYTES[$q]}"
        done
        [[ -n ${IWALL[$q]:-} ]] && printf 'interleaved_dmap_%s\t%s\t\t\t%s\n' "$q" "${IWALL[$q]}" "${BYTES[$q]}"
        [[ -n ${IDUCK[$q]:-} ]] && printf 'interleaved_duckdb_%s\t%s\t\t\t%s\n' "$q" "${IDUCK[$q]}" "${BYTES[$q]}"
        [[ -n ${ICPU[$q]:-} ]] && printf 'cpu_dmap_%s\t%s\t\t\t%s\n' "$q" "${ICPU[$q]}" "${BYTES[$q]}"
    done
} >"$CACHE/formats-results.tsv"
bench_finish "RESULT MISMATCH(ES) or failed command(s): dmap and DuckDB did not agree" \
    "results verified: dmap's groups and counts are DuckDB's (p95 within 2 %)" \
    "$CACHE/formats-results.tsv" "$MISS_N"
