#!/usr/bin/env bash
# benchmarks/sqlite_export.sh - dmap's SQLite export against its CSV export
# and against the usual workaround (CSV, then `sqlite3 .import`), in one run,
# on a result of about 1M groups (the generated MAPREDUCE:STATS file grouped
# by $cgocalls,hostname: almost one group per line).
#
#   benchmarks/sqlite_export.sh [--size MB] [--runs N] [--quick] [--cache DIR]
#                               [--strict] [--help]
#
#   --size MB     size of the STATS file in MiB (default 134: about 1M groups)
#   --runs N      timed runs per command, median reported (default 3; --quick: 1)
#   --quick       1 run
#   --cache DIR   where generated data is kept and reused (/tmp/dtail-bench)
#   --strict      exit 1 when the SQLite export takes more than 3x the CSV
#                 export, or is slower than the CSV + .import workaround
#
# Environment:
#   DTAIL_BIN_DIR    where dmap is (default: <repo>/build/bin)
#   DTAIL_BENCH_DIR  data cache (default /tmp/dtail-bench); same as --cache
#   BENCH_NO_HYPERFINE=1  time with the bash loop even if hyperfine exists
#
# Each timed command is a whole dmap run; "export" is its median minus the
# median of the same query printing a 1-row table (scan and aggregation
# alone). Report on stdout, progress on stderr. Exit status: 0, 1 on a
# result mismatch or failed command (with --strict also on a miss), 2 on a
# usage or set-up error.

set -uo pipefail
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$SCRIPT_DIR")
# shellcheck source=benchmarks/lib.sh
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=sqlite-bench
BENCH_ON_FAIL=failed
RATIO_FMT=%.2f

SIZE_MB=134
while [[ $# -gt 0 ]]; do
    common_opt "$@"
    shift "$SHIFT"
done
[[ $QUICK == 1 ]] && : "${RUNS:=1}"
: "${RUNS:=3}"
require_positive SIZE_MB RUNS

bench_start sqlite

DMAP=${DTAIL_BIN_DIR:-$REPO_DIR/build/bin}/dmap
[[ -x $DMAP ]] || { echo "sqlite_export.sh: $DMAP is not built" >&2; exit 2; }
have sqlite3 || { echo "sqlite_export.sh: the sqlite3 CLI is missing (scripts/deps.sh)" >&2; exit 2; }
find_hyperfine
find_time

GEN=$CACHE/gen
build_c gen "$SCRIPT_DIR/gen.c" || { echo "sqlite_export.sh: cannot build gen.c" >&2; exit 2; }
GEN_KEY=$KEY
GEN_NEED_MB=$((SIZE_MB * 3 + 200))   # the data, a CSV and an SQLite copy of the result
STATS=$CACHE/stats-$SIZE_MB.log
ensure_file "stats-$SIZE_MB.log" stats "$SIZE_MB"
STATS_LINES=$(field lines "$STAMP")

sample_cpu_busy
progress "warming the page cache"
cat "$STATS" >/dev/null

Q='from STATS select count($line),$cgocalls,hostname,avg($goroutines),max(lifetimeConnections) group by $cgocalls,hostname'
CSV=$TMP/r.csv DB=$TMP/r.sqlite IMP=$TMP/imported.sqlite

# --------------------------------------------------------- the result once
progress "checking the exports"
check_run csv /dev/null -- "$DMAP" --cfg none --plain --query "$Q outfile $CSV" "$STATS" || exit 1
check_run sqlite /dev/null -- "$DMAP" --cfg none --plain --query "$Q outfile $DB" "$STATS" || exit 1
ROWS=$(($(wc -l <"$CSV") - 1))
got=$(sqlite3 -batch -list "$DB" "SELECT count(*), sum(\"count(\$line)\"), typeof(\"count(\$line)\"), typeof(\"avg(\$goroutines)\") FROM STATS")
[[ $got == "$ROWS|$STATS_LINES|integer|real" ]] ||
    mismatch "SQLite result: rows|sum(count)|types = $got, want $ROWS|$STATS_LINES|integer|real"
got=$(sqlite3 -batch -list "$DB" "SELECT rows, lines_read FROM queries")
[[ $got == "$ROWS|$STATS_LINES" ]] || mismatch "queries row: $got, want $ROWS|$STATS_LINES"
CSV_SUM=$(awk -F, 'NR > 1 { s += $1 } END { print s }' "$CSV")
[[ $CSV_SUM == "$STATS_LINES" ]] || mismatch "CSV counts sum to $CSV_SUM, want $STATS_LINES"
CSV_BYTES=$(stat -c %s "$CSV") DB_BYTES=$(stat -c %s "$DB")

# ------------------------------------------------------------------ timing
progress "timing $RUNS run(s) each"
time_cmd base 1 "$RUNS" -- "$DMAP" --cfg none --plain --query "$Q limit 1" "$STATS"
time_cmd csv 1 "$RUNS" -- "$DMAP" --cfg none --plain --query "$Q outfile $CSV" "$STATS"
time_cmd sqlite 1 "$RUNS" -- "$DMAP" --cfg none --plain --query "$Q outfile $DB" "$STATS"
# The workaround's second half: import the CSV into a fresh database.
time_cmd import 1 "$RUNS" -- bash -c 'rm -f "$1" && exec sqlite3 -batch "$1" ".import --csv $2 result"' \
    import "$IMP" "$CSV"
got=$(sqlite3 -batch -list "$IMP" "SELECT count(*) FROM result")
[[ $got == "$ROWS" ]] || mismatch "the .import workaround has $got rows, want $ROWS"

exp_csv=$(awk -v a="${MED[csv]}" -v b="${MED[base]}" 'BEGIN { printf "%.3f", a - b }')
exp_sql=$(awk -v a="${MED[sqlite]}" -v b="${MED[base]}" 'BEGIN { printf "%.3f", a - b }')
workaround=$(awk -v a="${MED[csv]}" -v b="${MED[import]}" 'BEGIN { printf "%.3f", a + b }')
workaround_exp=$(awk -v a="$exp_csv" -v b="${MED[import]}" 'BEGIN { printf "%.3f", a + b }')
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", b / 1048576 / s; else print "-" }'; }

# ------------------------------------------------------------------ report
echo "dmap SQLite export benchmark ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
print_machine
echo "data    : $STATS ($SIZE_MB MiB, $STATS_LINES lines); result $ROWS rows"
echo "query   : $Q"
echo "timing  : median of $RUNS run(s)$([[ $HAVE_HYPERFINE == 1 ]] && echo ", hyperfine")"
echo
printf '%-34s %9s %9s %10s %9s\n' "" "total s" "export s" "file MiB" "MiB/s"
printf '%-34s %9s %9s %10s %9s\n' "dmap, 1-row table (scan+aggregate)" "$(fmt "${MED[base]}" %.3f)" "-" "-" "-"
printf '%-34s %9s %9s %10s %9s\n' "dmap outfile r.csv" "$(fmt "${MED[csv]}" %.3f)" "$exp_csv" \
    "$(fmt "$CSV_BYTES" %d | awk '{ printf "%.1f", $1 / 1048576 }')" "$(mbps "$CSV_BYTES" "$exp_csv")"
printf '%-34s %9s %9s %10s %9s\n' "dmap outfile r.sqlite" "$(fmt "${MED[sqlite]}" %.3f)" "$exp_sql" \
    "$(awk -v b="$DB_BYTES" 'BEGIN { printf "%.1f", b / 1048576 }')" "$(mbps "$DB_BYTES" "$exp_sql")"
printf '%-34s %9s %9s %10s %9s\n' "sqlite3 .import r.csv (alone)" "$(fmt "${MED[import]}" %.3f)" "$(fmt "${MED[import]}" %.3f)" \
    "-" "$(mbps "$CSV_BYTES" "${MED[import]}")"
printf '%-34s %9s %9s %10s %9s\n' "workaround: csv, then .import" "$workaround" "$workaround_exp" "-" "-"
echo
echo "ratios (same run):"
echo "  SQLite / CSV export, whole run      : $(ratio "${MED[sqlite]}" "${MED[csv]}")"
echo "  SQLite / CSV export, export only    : $(ratio "$exp_sql" "$exp_csv")"
echo "  SQLite / (CSV + .import), whole run : $(ratio "${MED[sqlite]}" "$workaround")"
echo "  SQLite / (CSV + .import), export    : $(ratio "$exp_sql" "$workaround_exp")"
echo "  peak RSS KiB: csv ${RSS[csv]:--}, sqlite ${RSS[sqlite]:--}"

MISS=0
if [[ -n $(ratio "$exp_sql" "$exp_csv") ]] && ! le "$(ratio "$exp_sql" "$exp_csv")" 3; then
    note "MISS: the SQLite export takes more than 3x the CSV export"
    MISS=1
fi
if ! le "${MED[sqlite]}" "$workaround"; then
    note "MISS: the SQLite export is slower than CSV + .import"
    MISS=1
fi
TSV=$CACHE/sqlite-export-results.tsv
printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$ROWS" "${MED[base]}" "${MED[csv]}" \
    "${MED[sqlite]}" "${MED[import]}" "$DB_BYTES" >>"$TSV"
bench_finish "result mismatch(es) or failed command(s)" "VERIFIED: the exports hold the same $ROWS rows" "$TSV" "$MISS"
