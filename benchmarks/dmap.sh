#!/usr/bin/env bash
# benchmarks/dmap.sh - DTail in C benchmark: dmap against DuckDB (in-process,
# @duckdb/node-api), mawk, gawk and a hand-written C loop, in one run, on the
# generated MAPREDUCE:STATS file (see benchmarks/README.md, section "dmap"):
# the targets of issue 4 (q50, qmany) and of issue 18 (q50 with having and
# arithmetic beside q50, interleaved; count(distinct hostname) and
# top(hostname, 10) beside DuckDB).
#
#   benchmarks/dmap.sh [--size MB] [--runs N] [--quick] [--cache DIR]
#                      [--no-install] [--no-cref] [--strict] [--help]
#
#   --size MB     size of the STATS file in MiB (default 100, as in issue 4)
#   --runs N      timed runs per command, median reported (default 5; --quick: 3)
#   --quick       3 runs, and no gawk
#   --cache DIR   where generated data is kept and reused (/tmp/dtail-bench)
#   --no-install  do not run `npm install` in benchmarks/duckdb/ when
#                 @duckdb/node-api is missing (the DuckDB rows are skipped)
#   --no-cref     skip the hand-written C reference loop and the fused floor
#   --strict      exit 1 when any target is missed
#
# Environment:
#   DTAIL_BIN_DIR    where dmap is (default: <repo>/build/bin)
#   DMAP             override the dmap binary
#   DMAP_ARGS        extra arguments given to every dmap run (e.g. --cfg none)
#   DTAIL_BENCH_DIR  data cache (default /tmp/dtail-bench); same as --cache
#   CC               compiler for gen.c, cref.c and cfloor.c (default cc)
#   BENCH_NO_HYPERFINE=1  time with the bash loop even if hyperfine exists
#
# Report on stdout, progress on stderr. Exit status: 0, or 1 when a result
# MISMATCH or a failed command was seen (with --strict also on any MISS);
# 2 on a usage or set-up error.

set -uo pipefail
TIME_CMD_MIN_RUNS=1   # lib.sh: fast commands are timed for 3 s, not 5 runs
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$SCRIPT_DIR")
# shellcheck source=benchmarks/lib.sh
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=dmap-bench
BENCH_ON_FAIL=failed
RATIO_FMT=%.3f

SIZE_MB=100
INSTALL=1
DO_CREF=1
THREADS=2 # DuckDB's SET threads; the issue's targets are "with 2 threads"

while [[ $# -gt 0 ]]; do
    case $1 in
    --no-install) INSTALL=0; shift ;;
    --no-cref) DO_CREF=0; shift ;;
    *) common_opt "$@"; shift "$SHIFT" ;;
    esac
done
[[ $QUICK == 1 ]] && : "${RUNS:=3}"
: "${RUNS:=5}"
require_positive SIZE_MB RUNS

bench_start dmap

# ------------------------------------------------------------------ tools
BIN_DIR=${DTAIL_BIN_DIR:-$REPO_DIR/build/bin}
DMAP=${DMAP:-$BIN_DIR/dmap}
read -r -a DMAP_CMD <<<"$DMAP"
read -r -a DMAP_EXTRA <<<"${DMAP_ARGS:-}"
HAVE_DMAP=0
if [[ -x ${DMAP_CMD[0]} ]] || { [[ ${DMAP_CMD[0]} != */* ]] && have "${DMAP_CMD[0]}"; }; then
    HAVE_DMAP=1
else
    note "dmap: not built yet (${DMAP_CMD[0]}): dmap rows and targets skipped"
fi

HAVE_MAWK=0 HAVE_GAWK=0
have mawk && HAVE_MAWK=1
[[ $HAVE_MAWK == 1 ]] || note "mawk not installed: mawk rows and the dmap/mawk target skipped (apt-get install mawk)"
if [[ $QUICK == 1 ]]; then :
elif have gawk; then HAVE_GAWK=1
else note "gawk not installed: gawk rows skipped (optional)"; fi

find_hyperfine
find_time

# gen and its data are shared with run.sh (the same cache and stamps)
GEN=$CACHE/gen
build_c gen "$SCRIPT_DIR/gen.c" || { echo "dmap.sh: cannot build gen.c" >&2; exit 2; }
GEN_KEY=$KEY
HAVE_CREF=0
if [[ $DO_CREF == 1 ]]; then
    if build_c cref "$SCRIPT_DIR/cref.c"; then HAVE_CREF=1; else note "cannot build cref.c: C reference skipped"; fi
fi
CREF=$CACHE/cref
HAVE_CFLOOR=0
if [[ $DO_CREF == 1 ]]; then
    if build_c cfloor "$SCRIPT_DIR/cfloor.c"; then HAVE_CFLOOR=1; else note "cannot build cfloor.c: the hand-fused floor skipped"; fi
fi
CFLOOR=$CACHE/cfloor

GEN_NEED_MB=$((SIZE_MB + 200))
STATS=$CACHE/stats-$SIZE_MB.log
ensure_file "stats-$SIZE_MB.log" stats "$SIZE_MB"
STATS_STAMP=$STAMP
STATS_BYTES=$(field bytes "$STATS_STAMP")
STATS_LINES=$(field lines "$STATS_STAMP")
HOST00_LINES=$(field host00_lines "$STATS_STAMP")

# ------------------------------------------------------------- DuckDB
DUCK_DIR=$SCRIPT_DIR/duckdb
find_duckdb "$DUCK_DIR"

sample_cpu_busy

progress "warming the page cache"
cat "$STATS" >/dev/null

declare -A ROWS_OF   # rows of each tool's result

# ------------------------------------------------------ result checking
# Canonical result rows: KEYS...,count,avg (avg %.6f), one group per line.
# compare_rows LABEL GOT_FILE REF_FILE NKEYS: the two must hold the same
# multiset of rows. Rows without an exact partner are sorted and paired; a
# pair still passes when keys and count are equal and the averages differ by
# one unit in the 6th decimal (C's printf rounds a tie to even, JavaScript's
# toFixed rounds it up). Records a MISMATCH otherwise.
compare_rows() {
    local label=$1 got=$2 ref=$3 nk=$4 res ngot nref
    ngot=$(wc -l <"$got") nref=$(wc -l <"$ref")
    if [[ $ngot != "$nref" ]]; then
        res="$ngot rows, expected $nref"
    else
        # rows of each side that have no exact partner on the other
        awk -v g="$TMP/cmp.got" -v r="$TMP/cmp.ref" '
            NR == FNR { want[$0]++; next }
            ($0 in want) && want[$0] > 0 { want[$0]--; next }
            { print > g }
            END { printf "" > g; printf "" > r; for (k in want) while (want[k]-- > 0) print k > r }' "$ref" "$got"
        sort -o "$TMP/cmp.got" "$TMP/cmp.got"
        sort -o "$TMP/cmp.ref" "$TMP/cmp.ref"
        res=$(awk -F, -v nk="$nk" -v total="$nref" '
            NR == FNR { want[NR] = $0; nw = NR; next }
            { line[FNR] = $0; ng = FNR }
            END {
                bad = 0; near = 0
                for (i = 1; i <= nw; i++) {
                    n = split(line[i], g, ","); m = split(want[i], w, ",")
                    same = (n == m && n == nk + 2)
                    for (k = 1; same && k <= nk + 1; k++) if (g[k] != w[k]) same = 0
                    d = g[n] - w[m]; if (d < 0) d = -d
                    if (same && d <= 1.000001e-6) { near++; continue }
                    if (bad++ < 3) msg = msg sprintf("%s[got \"%s\", expected \"%s\"]", (msg == "" ? "" : " "), line[i], want[i])
                }
                if (bad) printf "%d of %d rows differ: %s", bad, total, msg
                else printf "ok %d rows%s", total, (near ? sprintf(" (%d averages off by 1e-6: rounding of a tie)", near) : "")
            }' "$TMP/cmp.ref" "$TMP/cmp.got")
    fi
    if [[ $res == ok* ]]; then
        progress "  $label: $res"
        CHECKS+=("ok       $label: ${res#ok }")
        return 0
    fi
    mismatch "$label: $res"
    CHECKS+=("MISMATCH $label: $res")
    return 1
}
CHECKS=()

# ---------------------------------------------------------- the queries
Q50='from STATS select count($line),avg($goroutines) group by hostname'
QMANY='from STATS select count($line),avg($goroutines) group by $time, hostname'
# the same with the group keys selected, for a keyed check of dmap's CSV
Q50_KEYED='from STATS select hostname,count($line),avg($goroutines) group by hostname'
QMANY_KEYED='from STATS select $time,hostname,count($line),avg($goroutines) group by $time, hostname'
declare -A QUERY=([q50]=$Q50 [qmany]=$QMANY)
declare -A QKEYED=([q50]=$Q50_KEYED [qmany]=$QMANY_KEYED)
declare -A NKEYS=([q50]=1 [qmany]=2)
declare -A QLABEL=([q50]="50 groups: group by hostname" [qmany]="many groups: group by \$time, hostname")

# awk one-liners (mawk and gawk): hostname=... is whichever of fields 11..13
# starts with it; the key keeps the prefix, which is stripped once per group.
AWK_Q50='$10 == "MAPREDUCE:STATS" { if (index($11, "hostname=") == 1) h = $11; else if (index($12, "hostname=") == 1) h = $12; else if (index($13, "hostname=") == 1) h = $13; else next; c[h]++; s[h] += $6 } END { for (h in c) printf "%s,%d,%.6f\n", substr(h, 10), c[h], s[h] / c[h] }'
AWK_QMANY='$10 == "MAPREDUCE:STATS" { if (index($11, "hostname=") == 1) h = $11; else if (index($12, "hostname=") == 1) h = $12; else if (index($13, "hostname=") == 1) h = $13; else next; k = $2 "," h; c[k]++; s[k] += $6 } END { for (k in c) { split(k, p, ","); printf "%s,%s,%d,%.6f\n", p[1], substr(p[2], 10), c[k], s[k] / c[k] } }'
declare -A AWKPROG=([q50]=$AWK_Q50 [qmany]=$AWK_QMANY)

QS=(q50 qmany)
declare -A REF REF_TOOL # per query: the reference result file and who made it

# --------------------------------------------------------------- mawk/gawk
for awkname in mawk gawk; do
    [[ $awkname == mawk && $HAVE_MAWK == 1 ]] || [[ $awkname == gawk && $HAVE_GAWK == 1 ]] || continue
    for q in "${QS[@]}"; do
        id=${awkname}_$q
        cmd=("$awkname" -F'|' "${AWKPROG[$q]}" "$STATS")
        progress "checking $awkname (${QLABEL[$q]})"
        check_run "$id" "$TMP/$id.csv" -- "${cmd[@]}" || continue
        ROWS_OF[$id]=$(wc -l <"$TMP/$id.csv")
        if [[ -z ${REF[$q]:-} ]]; then
            sort -o "$TMP/$id.csv" "$TMP/$id.csv"
            REF[$q]=$TMP/$id.csv REF_TOOL[$q]=$awkname
        else
            compare_rows "$awkname ${QLABEL[$q]} vs ${REF_TOOL[$q]}" "$TMP/$id.csv" "${REF[$q]}" "${NKEYS[$q]}"
        fi
        progress "timing $awkname (${QLABEL[$q]})"
        time_cmd "$id" 1 "$RUNS" -- "${cmd[@]}"
    done
done

# ------------------------------------------------------- cat (read floor)
# not a peer: the cost of just reading the file into a pipe, for scale
if have cat; then
    progress "timing cat (the file to a pipe: the read floor)"
    if check_run cat_q50 /dev/null -- cat "$STATS"; then
        time_cmd cat_q50 1 "$RUNS" -- cat "$STATS"
    fi
fi

# ------------------------------------------------------------ C reference
if [[ $HAVE_CREF == 1 ]]; then
    for q in "${QS[@]}"; do
        id=cref_$q
        progress "checking C reference loop (${QLABEL[$q]})"
        check_run "$id" "$TMP/$id.csv" -- "$CREF" "$q" "$STATS" || continue
        ROWS_OF[$id]=$(wc -l <"$TMP/$id.csv")
        if [[ -z ${REF[$q]:-} ]]; then
            sort -o "$TMP/$id.csv" "$TMP/$id.csv"
            REF[$q]=$TMP/$id.csv REF_TOOL[$q]="C loop"
        else
            compare_rows "C loop ${QLABEL[$q]} vs ${REF_TOOL[$q]}" "$TMP/$id.csv" "${REF[$q]}" "${NKEYS[$q]}"
        fi
        progress "timing C reference loop (${QLABEL[$q]})"
        time_cmd "$id" 1 "$RUNS" -- "$CREF" "$q" "$STATS"
    done
fi

# ------------------------------------------ hand-fused floor (q50 only)
# not a peer: cfloor.c does nothing but this one query, the way a person
# would write it for this machine (AVX-512, both cores); for scale
if [[ $HAVE_CFLOOR == 1 ]]; then
    id=cfloor_q50
    "$CFLOOR" q50 "$STATS" "$THREADS" >/dev/null 2>"$TMP/cfloor.probe"
    if [[ $? == 3 ]]; then
        note "$(cat "$TMP/cfloor.probe"): the hand-fused floor skipped"
    else
        progress "checking the hand-fused floor (${QLABEL[q50]})"
        if check_run "$id" "$TMP/$id.csv" -- "$CFLOOR" q50 "$STATS" "$THREADS"; then
            ROWS_OF[$id]=$(wc -l <"$TMP/$id.csv")
            if [[ -n ${REF[q50]:-} ]]; then
                compare_rows "hand-fused floor ${QLABEL[q50]} vs ${REF_TOOL[q50]}" "$TMP/$id.csv" "${REF[q50]}" 1
            fi
            progress "timing the hand-fused floor (${QLABEL[q50]})"
            time_cmd "$id" 1 "$RUNS" -- "$CFLOOR" q50 "$STATS" "$THREADS"
        fi
    fi
fi

# sanity of the reference itself against the generator's own counts
if [[ -n ${REF[q50]:-} ]]; then
    n=$(wc -l <"${REF[q50]}")
    total=$(awk -F, '{ s += $2 } END { print s + 0 }' "${REF[q50]}")
    h00=$(awk -F, '$1 == "host00" { print $2 }' "${REF[q50]}")
    if [[ $n != 50 || $total != "$STATS_LINES" || $h00 != "$HOST00_LINES" ]]; then
        mismatch "${REF_TOOL[q50]} (50 groups): $n groups, $total lines, host00 $h00; the generator wrote 50 hosts, $STATS_LINES lines, host00 $HOST00_LINES"
    else
        CHECKS+=("ok       ${REF_TOOL[q50]} 50 groups vs the generator: 50 groups, $total lines, host00 = $h00 lines")
    fi
fi
if [[ -n ${REF[qmany]:-} ]]; then
    total=$(awk -F, '{ s += $3 } END { print s + 0 }' "${REF[qmany]}")
    [[ $total == "$STATS_LINES" ]] || mismatch "${REF_TOOL[qmany]} (many groups): counts add up to $total, the generator wrote $STATS_LINES lines"
fi

# ------------------------------------------------------------------ DuckDB
DUCK_VERSION="" DUCK_RSS=""
# duck_result ID: bench.mjs's RESULT line of ID into MED, MIN, MAX, ROWS_OF
duck_result() {
    local line
    line=$(grep "^RESULT id=$1 " "$TMP/duckdb.out")
    if [[ -z $line ]]; then failed "$1: no result from bench.mjs"; return 1; fi
    MED[$1]=$(field median_s "$line") MIN[$1]=$(field min_s "$line") MAX[$1]=$(field max_s "$line")
    ROWS_OF[$1]=$(field rows "$line")
    OK[$1]=1
    DESC[$1]="node bench.mjs (in-process; SQL: node benchmarks/duckdb/bench.mjs --print-sql)"
}
if [[ $HAVE_DUCKDB == 1 ]]; then
    progress "DuckDB in-process (node $(node --version), SET threads=$THREADS): 1 warm-up + $RUNS runs per query"
    if (cd "$DUCK_DIR" && node bench.mjs --file "$STATS" --runs "$RUNS" --warmup 1 --threads "$THREADS" --outdir "$TMP" \
        --queries q50,qmany,qdistinct,qtop) \
        >"$TMP/duckdb.out" 2>"$TMP/duckdb.err"; then
        DUCK_VERSION=$(sed -n 's/^INFO duckdb_version=\([^ ]*\).*/\1/p' "$TMP/duckdb.out")
        DUCK_RSS=$(sed -n 's/^INFO max_rss_kib=\([0-9]*\).*/\1/p' "$TMP/duckdb.out")
        for q in "${QS[@]}"; do
            id=duckdb_$q
            duck_result "$id" || continue
            if [[ -n ${REF[$q]:-} ]]; then
                compare_rows "DuckDB ${QLABEL[$q]} vs ${REF_TOOL[$q]}" "$TMP/$id.csv" "${REF[$q]}" "${NKEYS[$q]}"
            else
                sort -o "$TMP/$id.csv" "$TMP/$id.csv"
                REF[$q]=$TMP/$id.csv REF_TOOL[$q]=DuckDB
            fi
        done
    else
        failed "DuckDB bench.mjs: $(tail -3 "$TMP/duckdb.err" | tr '\n' ' ')"
    fi
fi

# -------------------------------------------------------------------- dmap
declare -A DMAP_SUMMARY=()
if [[ $HAVE_DMAP == 1 ]]; then
    for q in "${QS[@]}"; do
        id=dmap_$q
        cmd=("${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" --plain --query "${QUERY[$q]}" "$STATS")
        progress "checking dmap (${QLABEL[$q]})"
        # 1. the timed command itself, once, for its exit status, peak RSS and
        #    terminal table (default limit: 10 rows; check they are real rows)
        check_run "$id" "$TMP/$id.table" -- "${cmd[@]}" || continue
        DMAP_SUMMARY[$q]=$(grep -v '^[[:space:]]*$' "$TMP/$id.err" | tail -2 | paste -sd'\t' - | sed 's/\t/ \/ /g')
        if [[ -n ${REF[$q]:-} ]]; then
            nk=${NKEYS[$q]}
            bad=$(awk -F'|' -v nk="$nk" '
                NR == FNR { split($0, f, ","); want[f[nk + 1] "," f[nk + 2]]++; next }
                /^-+(\|-+)*$/ { body = 1; next }
                body && NF == 2 { c = $1; a = $2; gsub(/ /, "", c); gsub(/ /, "", a); n++
                                  if (!((c "," a) in want) && !((c "," sprintf("%.6f", a + 1e-6)) in want) &&
                                      !((c "," sprintf("%.6f", a - 1e-6)) in want)) { bad++; if (!ex) ex = c "," a } }
                END { if (!n) print "no table rows"; else if (bad) printf "%d of %d table rows not in the reference, e.g. %s", bad, n, ex }' \
                "${REF[$q]}" "$TMP/$id.table")
            if [[ -n $bad ]]; then
                mismatch "dmap ${QLABEL[$q]} (terminal table): $bad"
                CHECKS+=("MISMATCH dmap ${QLABEL[$q]} terminal table: $bad")
            else
                CHECKS+=("ok       dmap ${QLABEL[$q]} terminal table: its $(awk '/^-+(\|-+)*$/ { b = 1; next } b' "$TMP/$id.table" | grep -c '|') rows are in the reference")
            fi
        fi
        # 2. the exact query with outfile: the multiset of (count, avg) rows
        rm -f "$TMP/$id.out.csv"
        if check_run "${id}_csv" /dev/null -- "${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" --plain --query "${QUERY[$q]} outfile $TMP/$id.out.csv" "$STATS"; then
            if [[ ! -f $TMP/$id.out.csv ]]; then
                mismatch "dmap ${QLABEL[$q]}: outfile $TMP/$id.out.csv was not written"
                CHECKS+=("MISMATCH dmap ${QLABEL[$q]}: no outfile")
            else
                hdr=$(head -1 "$TMP/$id.out.csv")
                [[ $hdr == 'count($line),avg($goroutines)' ]] || mismatch "dmap ${QLABEL[$q]}: CSV header '$hdr', expected 'count(\$line),avg(\$goroutines)'"
                tail -n +2 "$TMP/$id.out.csv" >"$TMP/$id.got"
                if [[ -n ${REF[$q]:-} ]]; then
                    cut -d, -f$((NKEYS[$q] + 1))- "${REF[$q]}" >"$TMP/$id.refproj"
                    compare_rows "dmap ${QLABEL[$q]} CSV (count,avg multiset) vs ${REF_TOOL[$q]}" "$TMP/$id.got" "$TMP/$id.refproj" 0
                fi
                ROWS_OF[$id]=$(wc -l <"$TMP/$id.got")
            fi
        fi
        # 3. the same with the keys selected: a keyed, row-by-row check
        rm -f "$TMP/$id.keyed.csv"
        if [[ -n ${REF[$q]:-} ]] &&
            check_run "${id}_keyed" /dev/null -- "${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" --plain --query "${QKEYED[$q]} outfile $TMP/$id.keyed.csv" "$STATS"; then
            if [[ -f $TMP/$id.keyed.csv ]]; then
                tail -n +2 "$TMP/$id.keyed.csv" >"$TMP/$id.keyed"
                compare_rows "dmap ${QLABEL[$q]} keyed CSV ($(head -1 "$TMP/$id.keyed.csv")) vs ${REF_TOOL[$q]}" "$TMP/$id.keyed" "${REF[$q]}" "${NKEYS[$q]}"
            else
                mismatch "dmap ${QLABEL[$q]}: keyed outfile was not written"
            fi
        fi
        progress "timing dmap (${QLABEL[$q]})"
        time_cmd "$id" 1 "$RUNS" -- "${cmd[@]}"
    done
fi

# ------------------------------------------ issue 18: the query extensions
# q50 with having and arithmetic beside the plain q50 (the same groups, the
# same scan: what having and an arithmetic column cost), and
# count(distinct) and top() of the 50 hostnames beside DuckDB's
# count(DISTINCT) and GROUP BY ... ORDER BY count(*) DESC LIMIT 10.
# hostname is the generator's hostname=hostNN field (a bareword of the
# STATS line; $hostname would be the machine's name).
Q50H='from STATS select count($line),avg($goroutines),sum($goroutines)/count($line)*2 group by hostname having count($line) > 1000 and avg($goroutines) * 2 > 1'
QDISTINCT='from STATS select count(distinct hostname)'
QTOP='from STATS select top(hostname, 10)'
declare -A Q18=([q50h]=$Q50H [qdistinct]=$QDISTINCT [qtop]=$QTOP)
declare -A Q18LABEL=([q50h]="q50 with having and arithmetic" [qdistinct]="count(distinct hostname)" [qtop]="top(hostname, 10)")
Q18S=(q50h qdistinct qtop)
if [[ $HAVE_DUCKDB == 1 && -s $TMP/duckdb.out ]]; then
    for q in qdistinct qtop; do duck_result "duckdb_$q"; done
fi
if [[ $HAVE_DMAP == 1 ]]; then
    for q in "${Q18S[@]}"; do
        id=dmap_$q
        progress "checking dmap (${Q18LABEL[$q]})"
        check_run "$id" "$TMP/$id.csv" -- "${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" --plain --query "${Q18[$q]} outfile -" "$STATS" || continue
        tail -n +2 "$TMP/$id.csv" | tr -d '"' >"$TMP/$id.got"
        ROWS_OF[$id]=$(wc -l <"$TMP/$id.got")
        if [[ $q == q50h ]]; then
            # every group has > 1000 lines: the rows are q50's, and the
            # arithmetic column is twice the average
            if [[ -n ${REF[q50]:-} ]]; then
                cut -d, -f2- "${REF[q50]}" >"$TMP/q50h.refproj"
                cut -d, -f1,2 "$TMP/$id.got" >"$TMP/q50h.proj"
                compare_rows "dmap ${Q18LABEL[$q]} (count,avg multiset) vs ${REF_TOOL[q50]}" "$TMP/q50h.proj" "$TMP/q50h.refproj" 0
            fi
            bad=$(awk -F, '{ d = $3 - 2 * $2; if (d < 0) d = -d; if (d > 2.1e-6) n++ } END { print n + 0 }' "$TMP/$id.got")
            [[ $bad == 0 ]] || mismatch "dmap ${Q18LABEL[$q]}: $bad rows where sum/count*2 is not twice avg"
        elif ok "duckdb_$q"; then
            if cmp -s "$TMP/$id.got" "$TMP/duckdb_$q.csv"; then
                CHECKS+=("ok       dmap ${Q18LABEL[$q]} = DuckDB: $(head -c 80 "$TMP/$id.got")")
            else
                mismatch "dmap ${Q18LABEL[$q]}: $(head -c 200 "$TMP/$id.got") vs DuckDB $(head -c 200 "$TMP/duckdb_$q.csv")"
                CHECKS+=("MISMATCH dmap ${Q18LABEL[$q]} vs DuckDB")
            fi
        fi
        progress "timing dmap (${Q18LABEL[$q]})"
        time_cmd "$id" 1 "$RUNS" -- "${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" --plain --query "${Q18[$q]}" "$STATS"
    done
    # the plain and the extended q50 alternate, round by round, so that the
    # machine's drift hits both alike (the target's ratio)
    if ok dmap_q50 && ok dmap_q50h; then
        progress "timing q50 and q50 with having and arithmetic, interleaved ($((RUNS * 2)) rounds)"
        time_interleaved $((RUNS * 2)) dmap_q50 dmap_q50h 2>/dev/null
        H50_RATIO=$(RATIO_FMT=%.3f ratio "${IMED[dmap_q50h]}" "${IMED[dmap_q50]}")
        # (kept: the interleaving with mawk below sets IMED[dmap_q50] again)
        H50_WALL="q50 $(fmt "${IMED[dmap_q50]}" %.3f) s, q50h $(fmt "${IMED[dmap_q50h]}" %.3f) s"
        # and their CPU time (user + system), which other load on the
        # machine disturbs less than the wall time: for information
        : >"$TMP/q50.cpu"; : >"$TMP/q50h.cpu"
        for ((r = 0; r < RUNS * 2; r++)); do
            for q in q50 q50h; do
                qq=${QUERY[$q]:-${Q18[$q]:-}}
                # bash's time: user and system seconds to the millisecond
                { TIMEFORMAT='%3U %3S'; time "${DMAP_CMD[@]}" "${DMAP_EXTRA[@]}" --plain \
                    --query "$qq" "$STATS" >/dev/null 2>&1; } 2>"$TMP/cpu.one"
                awk '{ print $1 + $2 }' "$TMP/cpu.one" >>"$TMP/$q.cpu"
            done
        done
        H50_CPU="q50 $(median <"$TMP/q50.cpu") s, q50h $(median <"$TMP/q50h.cpu") s, q50h / q50 $(RATIO_FMT=%.3f ratio "$(median <"$TMP/q50h.cpu")" "$(median <"$TMP/q50.cpu")")"
    fi
fi

# ---------------------------------------------------------------- report

echo
echo "=== DTail in C benchmark: dmap (issue 4) ==="
print_machine
echo "tools   : $([[ $HAVE_MAWK == 1 ]] && echo "mawk $(mawk -W version 2>&1 | head -1 | awk '{ print $2 }')")$([[ $HAVE_GAWK == 1 ]] && echo "; $(gawk --version | head -1)")$([[ $HAVE_DUCKDB == 1 ]] && echo "; DuckDB ${DUCK_VERSION:-?} (@duckdb/node-api, node $(node --version), SET threads=$THREADS)")"
echo "dmap    : $([[ $HAVE_DMAP == 1 ]] && echo "${DMAP_CMD[*]} ${DMAP_EXTRA[*]}" || echo "not built yet (${DMAP_CMD[0]})")"
echo "data    : $STATS ($STATS_BYTES bytes, $STATS_LINES lines, 50 hostname= values)"
if [[ $HAVE_HYPERFINE == 1 ]]; then
    echo "timing  : $(hyperfine --version), -N --output=pipe, 1 warm-up + at least $RUNS runs and 3 s (--min-runs), median; DuckDB timed inside node (1 warm-up + $RUNS runs of connection.run, result materialised in DuckDB); LC_ALL=C; page cache warm"
else
    echo "timing  : bash \$EPOCHREALTIME loop, CMD | gen sink, 1 warm-up + $RUNS runs, median; DuckDB timed inside node; LC_ALL=C; page cache warm"
fi
echo "queries : q50   = $Q50"
echo "          qmany = $QMANY"

for q in "${QS[@]}"; do
    echo
    echo "--- ${QLABEL[$q]}: ${QUERY[$q]} ---"
    printf '  %-22s %9s %9s %9s %8s %7s %10s %10s %8s\n' tool median_s min_s max_s MiB/s GB/s rows dmap/this rss_MiB
    for id in "dmap_$q" "duckdb_$q" "mawk_$q" "gawk_$q" "cref_$q" "cfloor_$q" "cat_$q"; do
        case $id in
        cat_*) tool="cat (read floor)" ;;
        dmap_*) tool="dmap --plain" ;;
        duckdb_*) tool="DuckDB (in-process)" ;;
        mawk_*) tool="mawk" ;;
        gawk_*) tool="gawk" ;;
        cref_*) tool="C loop (cref.c)" ;;
        cfloor_*) tool="fused floor (cfloor)" ;;
        esac
        [[ -n ${OK[$id]:-} ]] || continue
        if ! ok "$id"; then printf '  %-22s %9s\n' "$tool" FAILED; continue; fi
        r=""
        [[ $id != dmap_* ]] && ok "dmap_$q" && r=$(ratio "${MED[dmap_$q]}" "${MED[$id]}")
        rss=""
        [[ -n ${RSS[$id]:-} ]] && rss=$(awk -v k="${RSS[$id]}" 'BEGIN { printf "%.1f", k / 1024 }')
        [[ $id == duckdb_* && -n $DUCK_RSS ]] && rss="($(awk -v k="$DUCK_RSS" 'BEGIN { printf "%.0f", k / 1024 }'))"
        printf '  %-22s %9.3f %9.3f %9.3f %8.0f %7.2f %10s %10s %8s\n' "$tool" "${MED[$id]}" "${MIN[$id]}" "${MAX[$id]}" \
            "$(awk -v b="$STATS_BYTES" -v t="${MED[$id]}" 'BEGIN { print b / 1048576 / t }')" \
            "$(awk -v b="$STATS_BYTES" -v t="${MED[$id]}" 'BEGIN { print b / 1e9 / t }')" \
            "${ROWS_OF[$id]:--}" "${r:--}" "${rss:--}"
    done
    [[ $HAVE_DMAP == 1 ]] || echo "  dmap: not built yet"
done
echo
echo "  GB/s = file bytes / 1e9 / median. dmap/this = dmap's median / that tool's median."
echo "  rss_MiB: /usr/bin/time %M of one extra run; DuckDB's in parentheses is node's maxRSS over the whole"
echo "  script (both queries, node itself included), for information."
if ((${#DMAP_SUMMARY[@]})); then
    for q in "${QS[@]}"; do [[ -n ${DMAP_SUMMARY[$q]:-} ]] && echo "  dmap stderr ($q): ${DMAP_SUMMARY[$q]}"; done
fi

# q50 once more, interleaved: dmap, mawk and the floor alternate, round
# by round (for the ratios under the targets; the targets use the medians
# above)
IL_IDS=()
for id in dmap_q50 mawk_q50 cfloor_q50; do ok "$id" && IL_IDS+=("$id"); done
if ((${#IL_IDS[@]} > 1)); then
    progress "timing q50 again, interleaved: ${IL_IDS[*]} ($RUNS rounds)"
    time_interleaved "$RUNS" "${IL_IDS[@]}" 2>/dev/null
fi

# targets (issue 4)
d50=${MED[dmap_q50]:-} dmany=${MED[dmap_qmany]:-}
ok dmap_q50 || d50=""
ok dmap_qmany || dmany=""
gbs=""
[[ -n $d50 ]] && gbs=$(awk -v b="$STATS_BYTES" -v t="$d50" 'BEGIN { printf "%.2f", b / 1e9 / t }')
target "q50 dmap throughput, GB/s end to end" "$gbs" ge 1.5
target "q50 dmap / DuckDB" "$(ok duckdb_q50 && ratio "$d50" "${MED[duckdb_q50]}")" le 0.2
target "q50 dmap / mawk" "$(ok mawk_q50 && ratio "$d50" "${MED[mawk_q50]}")" le 0.05
rss50=""
[[ -n $d50 && -n ${RSS[dmap_q50]:-} ]] && rss50=$(awk -v k="${RSS[dmap_q50]}" 'BEGIN { printf "%.1f", k / 1024 }')
target "q50 dmap peak RSS, MiB" "$rss50" le 128
target "qmany dmap / DuckDB" "$(ok duckdb_qmany && ratio "$dmany" "${MED[duckdb_qmany]}")" le 0.5

target "q50 with having and arithmetic / plain q50 (interleaved)" "${H50_RATIO:-}" le 1.10
target "count(distinct hostname) dmap / DuckDB" "$(ok dmap_qdistinct && ok duckdb_qdistinct && ratio "${MED[dmap_qdistinct]}" "${MED[duckdb_qdistinct]}")" le 0.3
target "top(hostname,10) dmap / DuckDB" "$(ok dmap_qtop && ok duckdb_qtop && ratio "${MED[dmap_qtop]}" "${MED[duckdb_qtop]}")" le 0.3

echo
echo "--- issue 18: having, arithmetic, count(distinct), top ---"
echo "  q50h      = $Q50H"
echo "  qdistinct = $QDISTINCT   (DuckDB: count(DISTINCT hostname))"
echo "  qtop      = $QTOP   (DuckDB: GROUP BY hostname ORDER BY count(*) DESC, hostname LIMIT 10)"
printf '  %-34s %9s %9s %9s %10s\n' run median_s min_s max_s dmap/DuckDB
for id in dmap_q50h dmap_qdistinct duckdb_qdistinct dmap_qtop duckdb_qtop; do
    ok "$id" || continue
    r=""
    q=${id#*_}
    [[ $id == dmap_q[dt]* ]] && ok "duckdb_$q" && r=$(ratio "${MED[$id]}" "${MED[duckdb_$q]}")
    printf '  %-34s %9.3f %9.3f %9.3f %10s\n' "$id" "${MED[$id]}" "${MIN[$id]}" "${MAX[$id]}" "${r:--}"
done
if [[ -n ${H50_RATIO:-} ]]; then
    echo "  interleaved ($((RUNS * 2)) rounds): $H50_WALL, q50h / q50 $H50_RATIO"
    [[ -n ${H50_CPU:-} ]] && echo "  CPU time (user + system, $((RUNS * 2)) alternating rounds, median): $H50_CPU"
fi

echo
echo "--- reference figures quoted by issue 4 (its author's machine, 112 MB STATS file, 800k lines, 50 hostnames, count+avg group-by) ---"
echo "  Go DTail 1.34 s; DuckDB 0.38 s (in-process, 2 threads); mawk 0.70 s; a plain hand-written C loop 0.11 s"
scale=$(awk -v b="$STATS_BYTES" 'BEGIN { printf "%.4f", b / 112e6 }')
echo "  scaled to this file ($STATS_BYTES bytes = ${scale} x 112 MB): Go DTail $(awk -v s="$scale" 'BEGIN { printf "%.2f", 1.34 * s }') s, DuckDB $(awk -v s="$scale" 'BEGIN { printf "%.2f", 0.38 * s }') s, mawk $(awk -v s="$scale" 'BEGIN { printf "%.2f", 0.70 * s }') s, C loop $(awk -v s="$scale" 'BEGIN { printf "%.2f", 0.11 * s }') s"
if [[ -n $d50 ]]; then
    echo "  this run: dmap $(fmt "$d50" %.3f) s vs Go DTail (scaled) -> speed-up $(awk -v a="$d50" -v s="$scale" 'BEGIN { printf "%.1fx", 1.34 * s / a }')"
fi
echo "  (DTail's own report measured about 5 s for 100 MB.) Compare ratios from the same run, not figures across machines."

echo
echo "--- result checks ---"
if ((${#CHECKS[@]})); then printf '  %s\n' "${CHECKS[@]}"; else echo "  (none)"; fi

echo
echo "--- targets (issues 4 and 18) ---"
printf '  %s\n' "${SUMMARY[@]}"
echo "  $PASS_N PASS, $MISS_N MISS, $NA_N n/a"
if ok cfloor_q50 && ok mawk_q50; then
    echo "  for scale (not a target): the hand-fused floor (cfloor.c) / mawk: $(ratio "${MED[cfloor_q50]}" "${MED[mawk_q50]}")$([[ -n $d50 ]] && echo "; dmap / floor: $(ratio "$d50" "${MED[cfloor_q50]}")")"
fi
if [[ -n ${IMED[dmap_q50]:-} && -n ${IMED[mawk_q50]:-} ]]; then
    RATIO_FMT=%.3f
    echo "  q50 interleaved ($RUNS rounds of $(printf '%s ' "${IL_IDS[@]}" | sed 's/_q50//g; s/ $//')): dmap $(fmt "${IMED[dmap_q50]}" %.3f) s, mawk $(fmt "${IMED[mawk_q50]}" %.3f) s, dmap / mawk $(ratio "${IMED[dmap_q50]}" "${IMED[mawk_q50]}")$([[ -n ${IMED[cfloor_q50]:-} ]] && echo "; floor / mawk $(ratio "${IMED[cfloor_q50]}" "${IMED[mawk_q50]}")")"
    unset RATIO_FMT
fi
{
    printf 'id\tquery\tmedian_s\tmin_s\tmax_s\trows\trss_kib\n'
    for q in "${QS[@]}" "${Q18S[@]}"; do
        for id in "dmap_$q" "duckdb_$q" "mawk_$q" "gawk_$q" "cref_$q" "cfloor_$q" "cat_$q"; do
            ok "$id" || continue
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$q" "${MED[$id]}" "${MIN[$id]}" "${MAX[$id]}" "${ROWS_OF[$id]:-}" "${RSS[$id]:-}"
        done
    done
} >"$CACHE/dmap-results.tsv"
bench_finish "RESULT MISMATCH(ES) or failed command(s): the tools did not agree" \
    "results verified: every tool that ran gave the same groups, counts and averages (6 decimals)" \
    "$CACHE/dmap-results.tsv" "$MISS_N"
