# shellcheck shell=bash disable=SC2034 # variables set here are the sourcing script's
# benchmarks/lib.sh - what the benchmark scripts share:
# options, progress and notes, finding the peers' tools, the generated data
# cache, timing and peak-RSS runs, and the common parts of the report.
# Sourced, not run: `. "$SCRIPT_DIR/lib.sh"` at the top of a script.
#
# Variables: the common options (SIZE_MB, RUNS, QUICK, STRICT, CACHE) get
# their defaults here and are set by common_opt; the script sets BENCH_TAG
# (the progress prefix: "[BENCH_TAG 12.3s] ..."), BENCH_ON_FAIL (what is
# told of a failed command; default note), RATIO_FMT (default %.2f), GEN
# and GEN_KEY (the generator and its key, from build_c); bench_start sets
# T_START and TMP, find_hyperfine and find_time HAVE_HYPERFINE and
# HAVE_TIME, and the measurements land in MED, MIN, MAX, RSS, OK and DESC
# (by run id).

BENCH_SCRIPT=${BASH_SOURCE[1]:-$0}
BENCH_NAME=$(basename "$BENCH_SCRIPT")
T_START=$EPOCHREALTIME   # bench_start sets it again

# ---------------------------------------------------------------- options
usage() { # the script's header comment, up to its first blank line
    sed -n '2,/^$/p' "$BENCH_SCRIPT" | sed -e '/^$/d' -e 's/^# \{0,1\}//'
    exit "${1:-0}"
}

# The common options' defaults (a script may then set its own)
SIZE_MB="" RUNS="" QUICK=0 STRICT=0
CACHE=${DTAIL_BENCH_DIR:-/tmp/dtail-bench}

# common_opt ARGS...: takes the options every script has (--size, --runs,
# --quick, --cache, --strict, --help) from the front of ARGS and sets SHIFT
# to the number of words used; any other word is a usage error.
common_opt() {
    SHIFT=1
    case $1 in
    --size) SIZE_MB=${2:?--size needs a value in MB}; SHIFT=2 ;;
    --size=*) SIZE_MB=${1#*=} ;;
    --runs) RUNS=${2:?--runs needs a value}; SHIFT=2 ;;
    --runs=*) RUNS=${1#*=} ;;
    --quick) QUICK=1 ;;
    --cache) CACHE=${2:?--cache needs a directory}; SHIFT=2 ;;
    --cache=*) CACHE=${1#*=} ;;
    --strict) STRICT=1 ;;
    -h | --help) usage 0 ;;
    *) echo "$BENCH_NAME: unknown argument: $1" >&2; usage 2 ;;
    esac
}

require_positive() { # VAR...: each must hold a positive integer
    local v
    for v in "$@"; do
        if ! [[ ${!v} =~ ^[1-9][0-9]*$ ]]; then
            echo "$BENCH_NAME: ${v} must be a positive integer, got '${!v}'" >&2
            exit 2
        fi
    done
}

# bench_start NAME: the clock, the cache and a scratch directory (removed
# on exit)
bench_start() {
    T_START=$EPOCHREALTIME
    mkdir -p "$CACHE" || exit 2
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/dtail-bench-$1.XXXXXX") || exit 2
    trap 'rm -rf "$TMP"' EXIT
}

# ------------------------------------------------------ progress and notes
elapsed() { awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
progress() { printf '[%s %6.1fs] %s\n' "$BENCH_TAG" "$(elapsed)" "$*" >&2; }

NOTES=()
note() { NOTES+=("$*"); progress "note: $*"; }
MISMATCHES=()
mismatch() {
    MISMATCHES+=("$*")
    printf '\n!!!!!!!! MISMATCH: %s\n\n' "$*" >&2
}
cmd_failed() { "${BENCH_ON_FAIL:-note}" "$@"; }
# failed TEXT: a command that failed (BENCH_ON_FAIL=failed sends
# cmd_failed here); bench_finish turns each into a mismatch.
FAILED=()
failed() { FAILED+=("$*"); note "FAILED: $*"; }

have() { command -v "$1" >/dev/null 2>&1; }

# ------------------------------------------------------------------ tools
find_hyperfine() { # sets HAVE_HYPERFINE
    HAVE_HYPERFINE=0
    if [[ ${BENCH_NO_HYPERFINE:-0} == 1 ]]; then
        note "BENCH_NO_HYPERFINE=1: using the bash timing loop"
    elif have hyperfine && hyperfine --help 2>/dev/null | grep -q -- '--output'; then
        HAVE_HYPERFINE=1
    else
        note "hyperfine >= 1.15 not found: using a bash timing loop (\$EPOCHREALTIME, output piped to 'gen sink')"
    fi
}

find_time() { # sets HAVE_TIME; installs /usr/bin/time when root and it is missing
    HAVE_TIME=0
    if [[ ! -x /usr/bin/time ]] && [[ $(id -u) == 0 ]] && have apt-get; then
        progress "installing package 'time' for peak-RSS measurement"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null 2>&1 || true
    fi
    if [[ -x /usr/bin/time ]]; then HAVE_TIME=1; else note "/usr/bin/time missing (package 'time'): peak RSS not measured"; fi
}

# find_duckdb DIR: sets HAVE_DUCKDB when @duckdb/node-api is in DIR's
# node_modules, running `npm install` there first unless INSTALL is 0
find_duckdb() {
    local dir=$1
    HAVE_DUCKDB=0
    if ! have node; then
        note "node not installed: DuckDB rows and the dmap/DuckDB targets skipped (apt-get install nodejs npm)"
    elif [[ -d $dir/node_modules/@duckdb/node-api ]]; then
        HAVE_DUCKDB=1
    elif [[ ${INSTALL:-1} == 0 ]]; then
        note "@duckdb/node-api is not installed in $dir and --no-install was given: DuckDB rows skipped"
    elif ! have npm; then
        note "npm not installed: cannot install @duckdb/node-api; DuckDB rows skipped"
    else
        progress "installing @duckdb/node-api into $dir/node_modules (npm install)"
        if (cd "$dir" && npm install --no-audit --no-fund --loglevel=error) >"$TMP/npm.log" 2>&1 &&
            [[ -d $dir/node_modules/@duckdb/node-api ]]; then
            HAVE_DUCKDB=1
        else
            note "npm install of @duckdb/node-api failed: DuckDB rows skipped ($(tail -3 "$TMP/npm.log" | tr '\n' ' '))"
        fi
    fi
}

# build_c NAME SRC: compile a single-file helper into the cache, once per
# source version; sets KEY to the source's key
build_c() {
    local out=$CACHE/$1 src=$2 key
    key=$(cksum <"$src" | awk '{print $1 "-" $2}')
    if [[ ! -x $out || ! -f $out.key || $(cat "$out.key") != "$key" ]]; then
        progress "building $1: ${CC:-cc} -O2 $src"
        "${CC:-cc}" -O2 -o "$out.new.$$" "$src" || return 1
        mv -f "$out.new.$$" "$out" && echo "$key" >"$out.key"
    fi
    KEY=$key
}

# ------------------------------------------------------------------- data
# field KEY "line of key=value words"
field() { sed -n "s/.*[ ]$1=\([^ ]*\).*/\1/p" <<<" $2"; }

free_mb() { df -Pm "$CACHE" | awk 'NR == 2 { print $4 }'; }

need_space() { # MB: exit unless the cache has about that much room
    if (($(free_mb) < $1)); then
        echo "$BENCH_NAME: not enough space in $CACHE: need about $1 MB" >&2
        exit 2
    fi
}

# ensure_file NAME SUBCOMMAND ARGS...: (re)generate $CACHE/NAME with
# `gen SUBCOMMAND ARGS...` unless its stamp says the same generator made it
# with the same arguments (the scripts share the cache). Sets STAMP to the
# generator's summary line. Before generating, GEN_NEED_MB (if set) MB must
# be free.
ensure_file() {
    local path=$CACHE/$1 key
    shift
    key="$GEN_KEY $*"
    if [[ -f $path && -f $path.stamp && $(head -1 "$path.stamp") == "$key" ]]; then
        STAMP=$(sed -n 2p "$path.stamp")
        if [[ $(stat -c %s "$path") == "$(field bytes "$STAMP")" ]]; then
            progress "reusing $path"
            return 0
        fi
    fi
    [[ -n ${GEN_NEED_MB:-} ]] && need_space "$GEN_NEED_MB"
    rm -f "$path" "$path.stamp"
    progress "generating $path (gen $*)"
    local t0=$EPOCHREALTIME
    STAMP=$("$GEN" "$1" "${@:2}" "$path") || { echo "$BENCH_NAME: gen $* failed" >&2; exit 2; }
    progress "  done in $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s: $STAMP"
    printf '%s\n%s\n' "$key" "$STAMP" >"$path.stamp"
}

# Other processes on the machine make the figures noisy: sample the CPU for
# a second before starting (BUSY_START) and say so in the report.
cpu_busy_pct() {
    local a b
    a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
    sleep 1
    b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); busy = y[1] - x[1]; idle = y[2] - x[2];
        if (busy + idle > 0) printf "%.0f", 100 * busy / (busy + idle); else print 0 }'
}
sample_cpu_busy() {
    BUSY_START=$(cpu_busy_pct 2>/dev/null || echo 0)
    if ((BUSY_START > 10)); then
        note "the machine was ${BUSY_START} % busy before the run (other processes): timings may be noisy"
    fi
}

# ----------------------------------------------------------------- timing
# shq ARGS...: one string that hyperfine -N splits back into ARGS
shq() {
    local a out=""
    for a in "$@"; do out+="'${a//\'/\'\\\'\'}' "; done
    printf '%s' "${out% }"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A MED MIN MAX RSS OK DESC

# time_once FILE CMD...: one run of CMD piped into `gen sink`; its wall
# seconds are appended to FILE. Returns CMD's exit status.
time_once() {
    local file=$1 t0 t1 rc
    shift
    t0=$EPOCHREALTIME
    "$@" 2>/dev/null | "$GEN" sink
    rc=${PIPESTATUS[0]}
    t1=$EPOCHREALTIME
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$file"
    return "$rc"
}

# time_cmd ID WARMUP RUNS -- CMD...: median wall seconds, output to a pipe.
# hyperfine -N --output=pipe: no shell, stdout is a pipe that hyperfine
# drains (with splice on Linux); the fallback pipes into `gen sink`.
# TIME_CMD_MIN_RUNS=1: at least RUNS runs and 3 s of them (hyperfine
# --min-runs), so a fast command's median spans more than a moment of the
# machine's drifting speed.
time_cmd() {
    local id=$1 warm=$2 runs=$3 rflag=--runs
    shift 4
    [[ ${TIME_CMD_MIN_RUNS:-0} == 1 ]] && rflag=--min-runs
    DESC[$id]=$(shq "$@")
    if [[ $HAVE_HYPERFINE == 1 ]]; then
        if ! hyperfine -N --output=pipe --style none --warmup "$warm" "$rflag" "$runs" \
            --export-json "$TMP/$id.json" -- "$(shq "$@")" >"$TMP/$id.hf" 2>&1; then
            OK[$id]=0
            cmd_failed "$id: command failed under hyperfine: ${DESC[$id]} ($(tail -2 "$TMP/$id.hf" | tr '\n' ' '))"
            return 1
        fi
        MED[$id]=$(sed -n 's/.*"median": *\([0-9.eE+-]*\).*/\1/p' "$TMP/$id.json" | head -1)
        MIN[$id]=$(sed -n 's/.*"min": *\([0-9.eE+-]*\).*/\1/p' "$TMP/$id.json" | head -1)
        MAX[$id]=$(sed -n 's/.*"max": *\([0-9.eE+-]*\).*/\1/p' "$TMP/$id.json" | head -1)
    else
        local i rc
        for ((i = 0; i < warm; i++)); do "$@" 2>/dev/null | "$GEN" sink; done
        : >"$TMP/$id.times"
        for ((i = 0; i < runs; i++)); do
            time_once "$TMP/$id.times" "$@"
            rc=$?
            if [[ $rc != 0 ]]; then
                OK[$id]=0
                cmd_failed "$id: command failed (exit $rc): ${DESC[$id]}"
                return 1
            fi
        done
        MED[$id]=$(median <"$TMP/$id.times")
        MIN[$id]=$(sort -g "$TMP/$id.times" | head -1)
        MAX[$id]=$(sort -g "$TMP/$id.times" | tail -1)
    fi
    OK[$id]=1
}

# time_interleaved ROUNDS ID...: the IDs' commands (as time_cmd ran them)
# timed again in rounds, every command once per round, so that a drift of
# the machine's speed during the run (seen on this project's VM: a third in
# a minute) hits all of them alike; time_cmd times each in a block of its
# own. Wall time of the command piped into `gen sink`, as time_cmd's
# fallback. Sets IMED[ID], the median seconds.
declare -A IMED
time_interleaved() {
    local rounds=$1 id r
    shift
    for id in "$@"; do : >"$TMP/$id.itimes"; done
    for ((r = 0; r < rounds; r++)); do
        for id in "$@"; do
            eval "time_once \"\$TMP/\$id.itimes\" ${DESC[$id]}"
        done
    done
    for id in "$@"; do IMED[$id]=$(median <"$TMP/$id.itimes"); done
}

# check_run ID MODE -- CMD...: one untimed run, its peak RSS recorded with
# /usr/bin/time. MODE sum / usum: stdout goes through `gen sum` (-u) and
# V_OUT is its "bytes=.. lines=.. sum=.."; remote: V_OUT is the count of
# lines starting with REMOTE|; any other MODE is a file that gets stdout.
# Returns non-zero when the command failed.
check_run() {
    local id=$1 mode=$2 rc
    shift 3
    local timer=()
    [[ $HAVE_TIME == 1 ]] && timer=(/usr/bin/time -f %M -o "$TMP/$id.rss")
    case $mode in
    sum) { "${timer[@]}" "$@" 2>"$TMP/$id.err"; echo $? >"$TMP/$id.rc"; } | "$GEN" sum >"$TMP/$id.out" ;;
    usum) { "${timer[@]}" "$@" 2>"$TMP/$id.err"; echo $? >"$TMP/$id.rc"; } | "$GEN" sum -u >"$TMP/$id.out" ;;
    remote) { "${timer[@]}" "$@" 2>"$TMP/$id.err"; echo $? >"$TMP/$id.rc"; } | grep -c '^REMOTE|' >"$TMP/$id.out" ;;
    *) "${timer[@]}" "$@" >"$mode" 2>"$TMP/$id.err"; echo $? >"$TMP/$id.rc"; : >"$TMP/$id.out" ;;
    esac
    rc=$(cat "$TMP/$id.rc")
    V_OUT=$(cat "$TMP/$id.out")
    if [[ $HAVE_TIME == 1 && -s $TMP/$id.rss ]]; then
        RSS[$id]=$(tail -1 "$TMP/$id.rss")
    fi
    if [[ $rc != 0 ]]; then
        OK[$id]=0
        cmd_failed "$id: exit status $rc from: $(shq "$@") -- stderr: $(head -c 300 "$TMP/$id.err" | tr '\n' ' ')"
        return 1
    fi
    return 0
}

# ----------------------------------------------------------------- report
fmt() { awk -v v="$1" -v f="$2" 'BEGIN { if (v == "") print "-"; else printf f, v }'; }
# ratio A B: A / B with RATIO_FMT (default %.2f), empty when either is missing
ratio() { awk -v a="$1" -v b="$2" -v f="${RATIO_FMT:-%.2f}" 'BEGIN { if (a == "" || b == "" || b == 0) print ""; else printf f, a / b }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

ok() { [[ ${OK[$1]:-0} == 1 ]]; }   # ID: the run ID was measured

# target TEXT VALUE OP LIMIT: a line of SUMMARY (PASS, MISS or n/a) and
# its count in PASS_N, MISS_N or NA_N; OP is le or ge; VALUE empty means n/a
PASS_N=0 MISS_N=0 NA_N=0
SUMMARY=()
target() {
    local text=$1 v=$2 op=$3 lim=$4 res
    if [[ -z $v ]]; then
        res="n/a " NA_N=$((NA_N + 1))
    elif $op "$v" "$lim"; then
        res=PASS PASS_N=$((PASS_N + 1))
    else
        res=MISS MISS_N=$((MISS_N + 1))
    fi
    SUMMARY+=("$res  $text: ${v:-not measured} (target $([[ $op == le ]] && echo '<=' || echo '>=') $lim)")
}

print_machine() {
    local host_cpu
    host_cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
    echo "machine : $(nproc) cores, ${host_cpu:-unknown CPU}, $(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, Linux $(uname -r)"
}

# print_verdict WHAT VERIFIED: the notes, then the mismatches ("N WHAT")
# in a banner, or the line VERIFIED when there were none
print_verdict() {
    if ((${#NOTES[@]})); then
        echo
        echo "--- notes ---"
        printf '  %s\n' "${NOTES[@]}"
    fi
    echo
    if ((${#MISMATCHES[@]})); then
        echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
        echo "!!! ${#MISMATCHES[@]} $1"
        printf '!!! MISMATCH: %s\n' "${MISMATCHES[@]}"
        echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"
    else
        echo "$2"
    fi
}

print_footer() { # [TSV]: where the machine-readable copy went, and the run's conditions
    echo "${1:+results also in $1; }total time $(elapsed) s; CPU busy before the run ${BUSY_START:-?} %, load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_finish WHAT VERIFIED TSV MISSES: the end of a benchmark. Each
# failed command becomes a mismatch; then print_verdict WHAT VERIFIED, the
# footer (TSV may be empty), and the exit: 1 on any mismatch, 1 with
# --strict when MISSES (a count of missed targets) is not 0, else 0.
bench_finish() {
    local f
    for f in "${FAILED[@]}"; do mismatch "failed: $f"; done
    print_verdict "$1" "$2"
    print_footer "$3"
    ((${#MISMATCHES[@]})) && exit 1
    ((STRICT && ${4:-0})) && exit 1
    exit 0
}
