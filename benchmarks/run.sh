#!/usr/bin/env bash
# benchmarks/run.sh - DTail in C benchmark: dcat and dgrep against cat,
# grep and ripgrep, in one run, on generated data (see benchmarks/README.md).
#
#   benchmarks/run.sh [--size MB] [--runs N] [--quick] [--files N] [--no-files]
#                     [--cache DIR] [--strict] [--help]
#
#   --size MB    size of the mixed log in MiB (default 1024; --quick: 256)
#   --runs N     timed runs per command, median reported (default 5; --quick: 3)
#   --files N    largest many-files directory; N/4 and N/2 are timed too (100000)
#   --no-files   skip the many-files (glob expansion) part
#   --cache DIR  where generated data is kept and reused (/tmp/dtail-bench)
#   --strict     exit 1 when any target is missed
#
# Environment:
#   DTAIL_BIN_DIR    where dcat and dgrep are (default: <repo>/build/bin)
#   DCAT, DGREP      override the binaries. A value whose first word is not
#                    named dcat / dgrep is a stand-in (e.g. DCAT=cat
#                    DGREP="grep -E"): it gets plain `FILE` / `PATTERN FILE`
#                    arguments instead of DTail flags.
#   DTAIL_ARGS       extra arguments given to every dcat and dgrep run
#   DTAIL_BENCH_DIR  data cache (default /tmp/dtail-bench); same as --cache
#   CC               compiler for gen.c (default cc)
#   BENCH_NO_HYPERFINE=1  time with the bash loop even if hyperfine exists
#
# Report on stdout, progress on stderr. Exit status: 0, or 1 when an output
# MISMATCH or a failed command was seen (with --strict also on any MISS).

set -uo pipefail
export LC_ALL=C

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$SCRIPT_DIR")
# shellcheck source=benchmarks/lib.sh
. "$SCRIPT_DIR/lib.sh"
BENCH_TAG=bench
BENCH_ON_FAIL=note   # failed commands are counted from OK[] at the end

NFILES=100000
DO_FILES=1
STATS_MB=100

while [[ $# -gt 0 ]]; do
    case $1 in
    --files) NFILES=${2:?--files needs a value}; shift 2 ;;
    --files=*) NFILES=${1#*=}; shift ;;
    --no-files) DO_FILES=0; shift ;;
    *) common_opt "$@"; shift "$SHIFT" ;;
    esac
done
if [[ $QUICK == 1 ]]; then
    : "${SIZE_MB:=256}"
    : "${RUNS:=3}"
fi
: "${SIZE_MB:=1024}"
: "${RUNS:=5}"
require_positive SIZE_MB RUNS NFILES
if ((NFILES < 4)); then NFILES=4; fi

bench_start run

# ------------------------------------------------------------------ tools
BIN_DIR=${DTAIL_BIN_DIR:-$REPO_DIR/build/bin}
DCAT=${DCAT:-$BIN_DIR/dcat}
DGREP=${DGREP:-$BIN_DIR/dgrep}
read -r -a DCAT_CMD <<<"$DCAT"
read -r -a DGREP_CMD <<<"$DGREP"
read -r -a DTAIL_EXTRA <<<"${DTAIL_ARGS:-}"

HAVE_DCAT=0 HAVE_DGREP=0 DCAT_STANDIN=0 DGREP_STANDIN=0
if have "${DCAT_CMD[0]}"; then HAVE_DCAT=1; else note "dcat not found (${DCAT_CMD[0]}): dcat rows skipped"; fi
if have "${DGREP_CMD[0]}"; then HAVE_DGREP=1; else note "dgrep not found (${DGREP_CMD[0]}): dgrep rows skipped"; fi
[[ $(basename "${DCAT_CMD[0]}") == dcat ]] || DCAT_STANDIN=1
[[ $(basename "${DGREP_CMD[0]}") == dgrep ]] || DGREP_STANDIN=1
[[ $HAVE_DCAT == 1 && $DCAT_STANDIN == 1 ]] && note "dcat is a STAND-IN: '$DCAT' (run as: $DCAT FILE)"
[[ $HAVE_DGREP == 1 && $DGREP_STANDIN == 1 ]] && note "dgrep is a STAND-IN: '$DGREP' (run as: $DGREP PATTERN FILE)"

HAVE_GREP=0 HAVE_RG=0 HAVE_CAT=0
have cat && HAVE_CAT=1
have grep && HAVE_GREP=1
have rg && HAVE_RG=1
[[ $HAVE_RG == 1 ]] || note "rg (ripgrep) not installed: rg rows and the dgrep targets are skipped (apt-get install ripgrep)"
[[ $HAVE_GREP == 1 ]] || note "grep not installed: grep rows skipped"

find_hyperfine
find_time

# Command builders. Each prints nothing; they fill the global array CMD.
dcat_plain() {
    if [[ $DCAT_STANDIN == 1 ]]; then CMD=("${DCAT_CMD[@]}" "$@")
    else CMD=("${DCAT_CMD[@]}" "${DTAIL_EXTRA[@]}" --plain "$@"); fi
}
dcat_color() {
    if [[ $DCAT_STANDIN == 1 ]]; then CMD=("${DCAT_CMD[@]}" "$@")
    else CMD=("${DCAT_CMD[@]}" "${DTAIL_EXTRA[@]}" --noColor "$@"); fi
}
dcat_glob() { # $1 = directory
    if [[ $DCAT_STANDIN == 1 ]]; then
        CMD=(bash -c 'printf "%s\0" "$1"/* | xargs -0 "${@:2}"' _ "$1" "${DCAT_CMD[@]}")
    else CMD=("${DCAT_CMD[@]}" "${DTAIL_EXTRA[@]}" --plain --files "$1/*"); fi
}
dgrep_plain() { # $1 = pattern, $2 = file
    if [[ $DGREP_STANDIN == 1 ]]; then CMD=("${DGREP_CMD[@]}" "$1" "$2")
    else CMD=("${DGREP_CMD[@]}" "${DTAIL_EXTRA[@]}" --plain --grep "$1" "$2"); fi
}
dgrep_color() {
    if [[ $DGREP_STANDIN == 1 ]]; then CMD=("${DGREP_CMD[@]}" "$1" "$2")
    else CMD=("${DGREP_CMD[@]}" "${DTAIL_EXTRA[@]}" --noColor --grep "$1" "$2"); fi
}
RG=(rg --no-line-number --no-filename --color never)

# ------------------------------------------------------------ generator
GEN=$CACHE/gen
GEN_SRC=$SCRIPT_DIR/gen.c
build_c gen "$GEN_SRC" || { echo "run.sh: cannot build $GEN_SRC" >&2; exit 2; }
GEN_KEY=$KEY

ensure_dir() { # NAME N
    local n=$2 path=$CACHE/$1 key="$GEN_KEY manyfiles $2"
    if [[ -d $path && -f $path.stamp && $(head -1 "$path.stamp") == "$key" ]]; then
        STAMP=$(sed -n 2p "$path.stamp")
        progress "reusing $path/"
        return 0
    fi
    rm -rf "$path" "$path.stamp"
    progress "generating $path/ ($n files)"
    STAMP=$("$GEN" manyfiles "$n" "$path") || { echo "run.sh: gen manyfiles failed" >&2; exit 2; }
    printf '%s\n%s\n' "$key" "$STAMP" >"$path.stamp"
}

need=$((SIZE_MB + STATS_MB + 200))
[[ -f $CACHE/mixed-$SIZE_MB.log ]] && need=$((need - SIZE_MB))
need_space "$need"

MIXED=$CACHE/mixed-$SIZE_MB.log
ensure_file "mixed-$SIZE_MB.log" mixed "$SIZE_MB"
MIXED_STAMP=$STAMP
STATS=$CACHE/stats-$STATS_MB.log
ensure_file "stats-$STATS_MB.log" stats "$STATS_MB"
STATS_STAMP=$STAMP
ONELINE=$CACHE/oneline.log
ensure_file oneline.log oneline
ONELINE_STAMP=$STAMP

FILE_COUNTS=()
if [[ $DO_FILES == 1 ]]; then
    FILE_COUNTS=($((NFILES / 4)) $((NFILES / 2)) "$NFILES")
    for n in "${FILE_COUNTS[@]}"; do ensure_dir "files-$n" "$n"; done
fi

MIXED_BYTES=$(field bytes "$MIXED_STAMP")
STATS_BYTES=$(field bytes "$STATS_STAMP")
RARE=$(field rare_token "$MIXED_STAMP")
REGEX='ERROR.*user[0-9]+'

mem_avail_mb=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo 2>/dev/null || echo 0)
if ((mem_avail_mb > 0 && mem_avail_mb < (MIXED_BYTES >> 20) + 512)); then
    note "only ${mem_avail_mb} MB of memory available: the ${SIZE_MB} MB file may not stay in the page cache"
fi

sample_cpu_busy

progress "warming the page cache"
cat "$MIXED" "$STATS" "$ONELINE" >/dev/null
for n in "${FILE_COUNTS[@]}"; do
    find "$CACHE/files-$n" -type f -print0 | xargs -0 cat >/dev/null
done

# ------------------------------------------------- measuring (lib.sh times)
# Rows of the main table, in order.
ROWS=()
declare -A R_CASE R_TOOL R_PEER R_TARGET R_BYTES R_STANDIN

add_row() { # ID CASE TOOL PEER_ID TARGET BYTES STANDIN
    ROWS+=("$1")
    R_CASE[$1]=$2 R_TOOL[$1]=$3 R_PEER[$1]=$4 R_TARGET[$1]=$5 R_BYTES[$1]=$6 R_STANDIN[$1]=${7:-0}
}

# measure ID CASE TOOL PEER TARGET BYTES STANDIN CHECKMODE EXPECT -- CMD...
# EXPECT: for sum mode "lines=N" or "bytes=.. lines=.. sum=.." (compared as
# a prefix-free set of key=value words); for remote mode the line count.
declare -A V_RESULT
measure() {
    local id=$1 case_=$2 tool=$3 peer=$4 target=$5 bytes=$6 standin=$7 mode=$8 expect=$9
    shift 9
    add_row "$id" "$case_" "$tool" "$peer" "$target" "$bytes" "$standin"
    progress "checking $tool ($case_)"
    if ! check_run "$id" "$mode" -- "${@:2}"; then
        return 0
    fi
    V_RESULT[$id]=$V_OUT
    local k want got
    if [[ $mode == remote ]]; then
        if [[ $standin == 1 ]]; then :
        elif [[ $V_OUT != "$expect" ]]; then
            mismatch "$tool ($case_): $V_OUT lines start with REMOTE|, expected $expect"
        fi
    else
        for k in $expect; do
            want=${k#*=}
            got=$(field "${k%%=*}" "$V_OUT")
            if [[ $got != "$want" ]]; then
                mismatch "$tool ($case_): ${k%%=*}=$got, expected $want [output: $V_OUT]"
            fi
        done
    fi
    progress "timing $tool ($case_)"
    time_cmd "$id" 1 "$RUNS" -- "${@:2}"
}

expect_of() { # the check words from a stamp: bytes lines sum
    echo "bytes=$(field bytes "$1") lines=$(field lines "$1") sum=$(field sum "$1")"
}

# ------------------------------------------------------------- the runs
C1="cat (whole file)"
EXP_ALL=$(expect_of "$MIXED_STAMP")
NLINES=$(field lines "$MIXED_STAMP")
[[ $HAVE_CAT == 1 ]] && measure cat "$C1" "cat" "" "" "$MIXED_BYTES" 0 sum "$EXP_ALL" -- cat "$MIXED"
if [[ $HAVE_DCAT == 1 ]]; then
    dcat_plain "$MIXED"
    measure dcat "$C1" "dcat --plain" cat 1.2 "$MIXED_BYTES" "$DCAT_STANDIN" sum "$EXP_ALL" -- "${CMD[@]}"
    dcat_color "$MIXED"
    measure dcat_c "$C1" "dcat --noColor" cat "" "$MIXED_BYTES" "$DCAT_STANDIN" remote "$NLINES" -- "${CMD[@]}"
fi

# pattern_case KEY CASE PATTERN GREP_FLAG EXPECTED_LINES TARGET
pattern_case() {
    local key=$1 case_=$2 pat=$3 gflag=$4 want=$5 target=$6 file=${7:-$MIXED} bytes=${8:-$MIXED_BYTES}
    local ref=""
    if [[ $HAVE_GREP == 1 ]]; then
        measure "grep_$key" "$case_" "grep $gflag" "" "" "$bytes" 0 sum "lines=$want" -- grep "$gflag" "$pat" "$file"
        [[ -n ${V_RESULT[grep_$key]:-} ]] && ref=${V_RESULT[grep_$key]}
    fi
    if [[ $HAVE_RG == 1 ]]; then
        measure "rg_$key" "$case_" "rg" "" "" "$bytes" 0 sum "${ref:-lines=$want}" -- "${RG[@]}" "$pat" "$file"
        [[ -z $ref && -n ${V_RESULT[rg_$key]:-} ]] && ref=${V_RESULT[rg_$key]}
    fi
    if [[ $HAVE_DGREP == 1 ]]; then
        dgrep_plain "$pat" "$file"
        measure "dgrep_$key" "$case_" "dgrep --plain" "${HAVE_RG/1/rg_$key}" "$target" "$bytes" "$DGREP_STANDIN" sum "${ref:-lines=$want}" -- "${CMD[@]}"
        if [[ $key != stats ]]; then
            dgrep_color "$pat" "$file"
            measure "dgrep_c_$key" "$case_" "dgrep --noColor" "${HAVE_RG/1/rg_$key}" "" "$bytes" "$DGREP_STANDIN" remote "$want" -- "${CMD[@]}"
        fi
    fi
}
# peer id "0" (no rg) means no ratio
pattern_case rare "rare literal $RARE (0.07 %)" "$RARE" -F "$(field rare_lines "$MIXED_STAMP")" 1.0
pattern_case error "literal ERROR (19 %)" ERROR -F "$(field error_lines "$MIXED_STAMP")" 1.0
pattern_case regex "regex $REGEX" "$REGEX" -E "$(field regex_lines "$MIXED_STAMP")" 1.5
pattern_case stats "stats file: literal hostname=host00 (2 %)" "hostname=host00" -F \
    "$(field host00_lines "$STATS_STAMP")" "" "$STATS" "$STATS_BYTES"

# ------------------------------------------------------- one-line file
ONE_RUNS=200
declare -a ONE_IDS=()
one_line() { # ID LABEL TARGET_MS -- CMD...
    local id=$1 label=$2 target=$3
    shift 4
    progress "one-line file: $label"
    ONE_IDS+=("$id")
    R_TOOL[$id]=$label R_TARGET[$id]=$target
    if ! check_run "$id" sum -- "$@"; then return 0; fi
    if [[ $V_OUT != "$(expect_of "$ONELINE_STAMP")" ]]; then
        mismatch "$label (one-line file): $V_OUT, expected $(expect_of "$ONELINE_STAMP")"
    fi
    time_cmd "$id" 20 "$ONE_RUNS" -- "$@"
}
[[ $HAVE_CAT == 1 ]] && one_line one_cat "cat" "" -- cat "$ONELINE"
if [[ $HAVE_DCAT == 1 ]]; then
    dcat_plain "$ONELINE"
    one_line one_dcat "dcat --plain" 5 -- "${CMD[@]}"
    dcat_color "$ONELINE"
    # non-plain output is not the file's bytes: only the time counts here
    ONE_IDS+=(one_dcat_c)
    R_TOOL[one_dcat_c]="dcat --noColor" R_TARGET[one_dcat_c]=5
    progress "one-line file: dcat --noColor"
    check_run one_dcat_c remote -- "${CMD[@]}" && time_cmd one_dcat_c 20 "$ONE_RUNS" -- "${CMD[@]}"
fi
if [[ $HAVE_DGREP == 1 ]]; then
    dgrep_plain INFO "$ONELINE"
    one_line one_dgrep "dgrep --plain --grep INFO" "" -- "${CMD[@]}"
fi

# ------------------------------------------------- glob / many files
GLOB_RUNS=$RUNS
((GLOB_RUNS > 5)) && GLOB_RUNS=5
for n in "${FILE_COUNTS[@]}"; do
    dir=$CACHE/files-$n
    ref=""
    progress "glob over $n files: cat"
    if check_run "glob_cat_$n" usum -- bash -c 'printf "%s\0" "$1"/* | xargs -0 cat' _ "$dir"; then
        ref=$V_OUT
        if [[ $(field lines "$ref") != "$(field lines "$(sed -n 2p "$dir.stamp")")" ]]; then
            mismatch "cat over $dir/*: $(field lines "$ref") lines, generator wrote $(field lines "$(sed -n 2p "$dir.stamp")")"
        fi
        time_cmd "glob_cat_$n" 1 "$GLOB_RUNS" -- bash -c 'printf "%s\0" "$1"/* | xargs -0 cat' _ "$dir"
    fi
    if [[ $HAVE_DCAT == 1 ]]; then
        dcat_glob "$dir"
        progress "glob over $n files: dcat"
        if check_run "glob_dcat_$n" usum -- "${CMD[@]}"; then
            if [[ -n $ref ]]; then
                if [[ $(field usum "$V_OUT") != "$(field usum "$ref")" || $(field bytes "$V_OUT") != "$(field bytes "$ref")" ]]; then
                    mismatch "dcat --plain --files '$dir/*': $V_OUT; cat gives $ref"
                elif [[ $(field sum "$V_OUT") != "$(field sum "$ref")" ]]; then
                    note "dcat over $n files: same lines as cat, in another order"
                fi
            fi
            time_cmd "glob_dcat_$n" 1 "$GLOB_RUNS" -- "${CMD[@]}"
        fi
    fi
done

# ---------------------------------------------------------------- report
PASS_N=0 MISS_N=0
SUMMARY=()
verdict() { # VALUE LIMIT: sets VERDICT to PASS or MISS and counts it
    if le "$1" "$2"; then PASS_N=$((PASS_N + 1)); VERDICT=PASS; else MISS_N=$((MISS_N + 1)); VERDICT=MISS; fi
}

echo
echo "=== DTail in C benchmark ==="
print_machine
echo "tools   : $(cat --version | head -1); $([[ $HAVE_GREP == 1 ]] && grep --version | head -1); $([[ $HAVE_RG == 1 ]] && rg --version | head -1)"
echo "dcat    : ${DCAT}$([[ $DCAT_STANDIN == 1 ]] && echo '   <-- STAND-IN')"
echo "dgrep   : ${DGREP}$([[ $DGREP_STANDIN == 1 ]] && echo '   <-- STAND-IN')"
echo "data    : $MIXED ($MIXED_BYTES bytes, $NLINES lines, ERROR lines $(field error_lines "$MIXED_STAMP"), $RARE lines $(field rare_lines "$MIXED_STAMP"), regex lines $(field regex_lines "$MIXED_STAMP"))"
echo "          $STATS ($STATS_BYTES bytes, $(field lines "$STATS_STAMP") lines, 50 hostname= values)"
if [[ $HAVE_HYPERFINE == 1 ]]; then
    echo "timing  : $(hyperfine --version), -N --output=pipe (no shell; stdout is a pipe drained by hyperfine), 1 warm-up + $RUNS runs, median; LC_ALL=C; page cache warm"
else
    echo "timing  : bash \$EPOCHREALTIME loop, CMD | gen sink (splice to /dev/null), 1 warm-up + $RUNS runs, median; LC_ALL=C; page cache warm"
fi
echo
printf '%-44s %-16s %9s %9s %8s %6s %-4s %-7s %s\n' "case" "tool" "median_s" "min_s" "MiB/s" "ratio" "vs" "target" "result"
printf '%s\n' "$(printf '%.0s-' {1..118})"
prev_case=""
for id in "${ROWS[@]}"; do
    c=${R_CASE[$id]}
    [[ $c == "$prev_case" ]] && c=""
    prev_case=${R_CASE[$id]}
    tool=${R_TOOL[$id]}
    [[ ${R_STANDIN[$id]} == 1 ]] && tool="$tool*"
    if [[ ${OK[$id]:-0} != 1 ]]; then
        printf '%-44s %-16s %9s\n' "$c" "$tool" "FAILED"
        continue
    fi
    med=${MED[$id]}
    mibs=$(awk -v b="${R_BYTES[$id]}" -v t="$med" 'BEGIN { printf "%.0f", b / 1048576 / t }')
    peer=${R_PEER[$id]} r="" vs="" tgt="" res=""
    if [[ -n $peer && $peer != 0 && ${OK[$peer]:-0} == 1 ]]; then
        r=$(ratio "$med" "${MED[$peer]}")
        vs=${R_TOOL[$peer]%% *}
    fi
    if [[ -n ${R_TARGET[$id]} ]]; then
        tgt="<=${R_TARGET[$id]}x"
        if [[ -n $r ]]; then
            verdict "$r" "${R_TARGET[$id]}"
            res=$VERDICT
            SUMMARY+=("$res  ${R_TOOL[$id]} (${R_CASE[$id]}): ${r}x ${vs}, target <= ${R_TARGET[$id]}x")
        else
            res="n/a"
        fi
    elif [[ -n $r ]]; then
        res="info"
    fi
    printf '%-44s %-16s %9.3f %9.3f %8s %6s %-4s %-7s %s\n' "$c" "$tool" "$med" "${MIN[$id]}" "$mibs" "${r:--}" "${vs:--}" "${tgt:--}" "$res"
done
[[ $DCAT_STANDIN == 1 || $DGREP_STANDIN == 1 ]] && echo "(* = stand-in command, not DTail in C)"

echo
echo "--- peak RSS (/usr/bin/time %M, one run each; target for every dcat/dgrep run <= 64 MiB) ---"
if [[ $HAVE_TIME == 1 ]]; then
    rss_max=0 rss_max_what=""
    rss_ids=("${ROWS[@]}" "${ONE_IDS[@]}")
    for n in "${FILE_COUNTS[@]}"; do rss_ids+=("glob_cat_$n" "glob_dcat_$n"); done
    for id in "${rss_ids[@]}"; do
        [[ -n ${RSS[$id]:-} && ${OK[$id]:-0} == 1 ]] || continue
        mib=$(awk -v k="${RSS[$id]}" 'BEGIN { printf "%.1f", k / 1024 }')
        case $id in
        glob_cat_*) tool="xargs cat" what="glob, ${id#glob_cat_} files" ;;
        glob_dcat_*) tool="dcat --files" what="glob, ${id#glob_dcat_} files" ;;
        *) tool=${R_TOOL[$id]} what=${R_CASE[$id]:-one-line file} ;;
        esac
        res="info"
        if [[ $tool == dcat* || $tool == dgrep* ]]; then
            if le "$mib" 64; then res="ok (<= 64)"; else res="OVER 64 MiB"; fi
            if awk -v a="$mib" -v b="$rss_max" 'BEGIN { exit !(a > b) }'; then
                rss_max=$mib rss_max_what="$tool, $what"
            fi
            [[ ( $tool == dcat* && $DCAT_STANDIN == 1 ) || ( $tool == dgrep* && $DGREP_STANDIN == 1 ) ]] && tool="$tool*"
        fi
        printf '  %-28s %-44s %8s MiB  %s\n' "$tool" "$what" "$mib" "$res"
    done
    if [[ -n $rss_max_what ]]; then
        verdict "$rss_max" 64
        echo "  largest dcat/dgrep peak RSS: $rss_max MiB ($rss_max_what)  $VERDICT"
        SUMMARY+=("$VERDICT  peak RSS: largest over all dcat/dgrep runs $rss_max MiB ($rss_max_what), target <= 64 MiB")
    fi
else
    echo "  not measured (/usr/bin/time missing)"
fi

echo
echo "--- one-line file ($(field bytes "$ONELINE_STAMP") bytes), median of $ONE_RUNS runs after 20 warm-ups; target dcat <= 5 ms ---"
for id in "${ONE_IDS[@]}"; do
    if [[ ${OK[$id]:-0} != 1 ]]; then
        printf '  %-28s %s\n' "${R_TOOL[$id]}" "FAILED"
        continue
    fi
    ms=$(awk -v s="${MED[$id]}" 'BEGIN { printf "%.2f", s * 1000 }')
    res="info"
    if [[ -n ${R_TARGET[$id]} ]]; then
        verdict "$ms" "${R_TARGET[$id]}"
        res=$VERDICT
        SUMMARY+=("$res  ${R_TOOL[$id]} of a one-line file: $ms ms, target <= ${R_TARGET[$id]} ms")
    fi
    tool=${R_TOOL[$id]}
    [[ ( $tool == dcat* && $DCAT_STANDIN == 1 ) || ( $tool == dgrep* && $DGREP_STANDIN == 1 ) ]] && tool="$tool*"
    printf '  %-28s %8s ms   (min %.2f ms)  %s\n' "$tool" "$ms" "$(awk -v s="${MIN[$id]}" 'BEGIN { print s * 1000 }')" "$res"
done

if ((${#FILE_COUNTS[@]})); then
    echo
    echo "--- glob expansion: dcat --plain --files \"DIR/*\" vs printf '%s\\0' DIR/* | xargs -0 cat, median of $GLOB_RUNS ---"
    printf '  %8s %12s %12s %12s %12s %7s\n' files cat_s dcat_s "cat_us/file" "dcat_us/file" ratio
    for n in "${FILE_COUNTS[@]}"; do
        cs=${MED[glob_cat_$n]:-} ds=${MED[glob_dcat_$n]:-}
        [[ ${OK[glob_cat_$n]:-0} == 1 ]] || cs=""
        [[ ${OK[glob_dcat_$n]:-0} == 1 ]] || ds=""
        printf '  %8s %12s %12s %12s %12s %7s\n' "$n" "$(fmt "$cs" %.3f)" "$(fmt "$ds" %.3f)" \
            "$(fmt "$([[ -n $cs ]] && awk -v t="$cs" -v n="$n" 'BEGIN { print t / n * 1e6 }')" %.1f)" \
            "$(fmt "$([[ -n $ds ]] && awk -v t="$ds" -v n="$n" 'BEGIN { print t / n * 1e6 }')" %.1f)" \
            "$(fmt "$(ratio "$ds" "$cs")" %s)"
    done
    lo=${FILE_COUNTS[0]} hi=${FILE_COUNTS[2]}
    if [[ ${OK[glob_dcat_$lo]:-0} == 1 && ${OK[glob_dcat_$hi]:-0} == 1 ]]; then
        # per-file cost at N relative to N/4: 1.0 is perfectly linear
        g=$(awk -v a="${MED[glob_dcat_$lo]}" -v b="${MED[glob_dcat_$hi]}" -v na="$lo" -v nb="$hi" \
            'BEGIN { printf "%.2f", (b / nb) / (a / na) }')
        verdict "$g" 1.5
        res=$VERDICT
        echo "  linearity: dcat per-file cost at $hi files / at $lo files = $g (1.00 = linear; target <= 1.5)  $res"
        SUMMARY+=("$res  glob expansion linear: per-file cost ratio ${hi}/${lo} files = $g, target <= 1.5")
    fi
fi

echo
echo "--- reference: Go DTail, published figures on the same class of machine (1 GiB, warm cache, output to a pipe) ---"
echo "  Go dcat 1.15 s, Go dgrep 1.07 s; cat 0.30 s; rg rare literal 0.15 s; rg 19 % literal 0.36 s"
scale=$(awk -v b="$MIXED_BYTES" 'BEGIN { printf "%.4f", b / 1073741824 }')
if [[ ${OK[dcat]:-0} == 1 ]]; then
    echo "  this run: dcat --plain $(fmt "${MED[dcat]}" %.3f) s vs Go dcat $(awk -v s="$scale" 'BEGIN { printf "%.3f", 1.15 * s }') s (scaled to this size), speed-up $(awk -v a="${MED[dcat]}" -v s="$scale" 'BEGIN { printf "%.2fx", 1.15 * s / a }')"
fi
if [[ ${OK[dgrep_error]:-0} == 1 ]]; then
    echo "  this run: dgrep --plain ERROR $(fmt "${MED[dgrep_error]}" %.3f) s vs Go dgrep $(awk -v s="$scale" 'BEGIN { printf "%.3f", 1.07 * s }') s (scaled), speed-up $(awk -v a="${MED[dgrep_error]}" -v s="$scale" 'BEGIN { printf "%.2fx", 1.07 * s / a }')"
fi

echo
echo "--- targets ---"
if ((${#SUMMARY[@]})); then printf '  %s\n' "${SUMMARY[@]}"; else echo "  (none evaluated)"; fi
echo "  $PASS_N PASS, $MISS_N MISS"
print_verdict "OUTPUT MISMATCH(ES): the outputs did not agree" \
    "outputs verified: every command that ran agreed (bytes, lines and checksum; line counts for non-plain output)"
nfailed=0
for id in "${!OK[@]}"; do [[ ${OK[$id]} == 1 ]] || nfailed=$((nfailed + 1)); done
((nfailed)) && echo "!!! $nfailed command(s) FAILED (see notes)"

# machine-readable copy
{
    printf 'id\ttool\tcase\tmedian_s\tmin_s\tmax_s\trss_kib\n'
    for id in "${ROWS[@]}" "${ONE_IDS[@]}"; do
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "${R_TOOL[$id]}" "${R_CASE[$id]:-one-line}" \
            "${MED[$id]:-}" "${MIN[$id]:-}" "${MAX[$id]:-}" "${RSS[$id]:-}"
    done
    for n in "${FILE_COUNTS[@]}"; do
        for id in "glob_cat_$n" "glob_dcat_$n"; do
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "${id#glob_}" "glob $n files" \
                "${MED[$id]:-}" "${MIN[$id]:-}" "${MAX[$id]:-}" "${RSS[$id]:-}"
        done
    done
} >"$CACHE/results.tsv"
print_footer "$CACHE/results.tsv"

if ((${#MISMATCHES[@]} || nfailed)); then exit 1; fi
if ((STRICT && MISS_N)); then exit 1; fi
exit 0
