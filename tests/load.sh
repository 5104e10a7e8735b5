#!/usr/bin/env bash
# load.sh: runs the ctest suite (or a part of it) while the machine is busy,
# to find tests that depend on the machine's speed. Beside the suite it
# starts N CPU-bound loops and, unless --no-io, an I/O hog that writes,
# syncs and deletes a file in a loop; it repeats the suite R times per build
# directory and reports every failure with its test name, build and run.
# Every process it starts is stopped when it ends (also on ^C).
#
#   bash tests/load.sh [--busy N] [--reps R] [--no-io] [-j J] [-R REGEX]
#                      [-E REGEX] [BUILD_DIR...]
#
# Defaults: --busy 2, --reps 5, -j $(nproc), build directory `build`.
# Exit status: 0 when every run passed, 1 when any failed, 2 on bad usage.
# Logs of each run: $LOAD_LOG_DIR (default /tmp/dtail-load.<pid>)/<build>.<run>.log
set -u
cd "$(dirname "$0")/.."

busy=2 reps=5 io=1 jobs=$(nproc) regex= exclude=
dirs=()
usage() { echo "usage: bash tests/load.sh [--busy N] [--reps R] [--no-io] [-j J] [-R REGEX] [-E REGEX] [BUILD_DIR...]" >&2; exit 2; }
number() { case $2 in ''|*[!0-9]*) echo "load.sh: $1 takes a whole number, not '$2'" >&2; exit 2 ;; esac; }
while [ $# -gt 0 ]; do
  case $1 in
    --busy) [ $# -ge 2 ] || usage; number "$1" "$2"; busy=$2; shift 2 ;;
    --reps) [ $# -ge 2 ] || usage; number "$1" "$2"; reps=$2; shift 2 ;;
    -j) [ $# -ge 2 ] || usage; number "$1" "$2"; jobs=$2; shift 2 ;;
    -R) [ $# -ge 2 ] || usage; regex=$2; shift 2 ;;
    -E) [ $# -ge 2 ] || usage; exclude=$2; shift 2 ;;
    --no-io) io=0; shift ;;
    -h|--help) usage ;;
    -*) echo "load.sh: unknown option $1" >&2; usage ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || dirs=(build)
[ "$reps" -ge 1 ] || { echo "load.sh: --reps must be at least 1" >&2; exit 2; }
for d in "${dirs[@]}"; do
  [ -f "$d/CTestTestfile.cmake" ] || { echo "load.sh: $d is not a configured build directory (no CTestTestfile.cmake); build it first" >&2; exit 2; }
done

logs=${LOAD_LOG_DIR:-/tmp/dtail-load.$$}
mkdir -p "$logs" || exit 2
hog_dir=$(mktemp -d "${TMPDIR:-/tmp}/dtail-load-hog.XXXXXX") || exit 2
pids=()
ctest_pid=
stop_load() {
  local p
  # ctest's tests run in process groups of their own: end ctest and every
  # descendant.
  if [ -n "$ctest_pid" ]; then
    kill_tree "$ctest_pid"
    wait "$ctest_pid" 2>/dev/null
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=()
  rm -rf "$hog_dir"
}
kill_tree() {   # PID: SIGTERM to PID and all its descendants, children first
  local c
  for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do kill_tree "$c"; done
  kill "$1" 2>/dev/null
  kill -CONT "$1" 2>/dev/null   # a test may have stopped it (SIGSTOP)
}
trap stop_load EXIT
trap 'exit 130' INT TERM HUP

# The load: bash busy loops (one core each) and an I/O writer that makes the
# page cache and the disk queue busy as a neighbour's backup would.
for ((i = 0; i < busy; i++)); do
  bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
  pids+=($!)
done
if [ "$io" -eq 1 ]; then
  bash -c 'while :; do dd if=/dev/zero of="$1/hog" bs=1M count=256 conv=fsync status=none; rm -f "$1/hog"; done' \
    _ "$hog_dir" </dev/null >/dev/null 2>&1 &
  pids+=($!)
fi
echo "load: $busy busy loop(s), I/O hog $([ "$io" -eq 1 ] && echo on || echo off), $reps run(s) of ctest -j$jobs${regex:+ -R '$regex'}${exclude:+ -E '$exclude'} in: ${dirs[*]}"
echo "load: logs in $logs"

args=(-j"$jobs" --timeout 300 --output-on-failure)
[ -n "$regex" ] && args+=(-R "$regex")
[ -n "$exclude" ] && args+=(-E "$exclude")
runs=0 failed_runs=0 failures=0
: >"$logs/failures"
start=$SECONDS
for d in "${dirs[@]}"; do
  b=$(basename "$d")
  for ((r = 1; r <= reps; r++)); do
    log=$logs/$b.$r.log
    t0=$SECONDS
    # In the background: a signal to this script then runs its trap at
    # once (bash defers traps until a foreground child ends), and the trap
    # stops ctest and its tests too.
    ctest --test-dir "$d" "${args[@]}" >"$log" 2>&1 &
    ctest_pid=$!
    wait "$ctest_pid"
    rc=$?
    ctest_pid=
    runs=$((runs + 1))
    # ctest lists the failed tests after "The following tests FAILED:" as
    # "<tab>NUM - NAME (Failed|Timeout|...)".
    names=$(sed -n '/The following tests FAILED:/,$p' "$log" | sed -n 's/^[[:space:]]*[0-9][0-9]* - \([^ ]*\) (\(.*\))$/\1 (\2)/p')
    total=$(sed -n 's/.* tests passed, \([0-9][0-9]*\) tests failed out of \([0-9][0-9]*\)/\1 \2/p' "$log" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -n "$names" ]; then
      failed_runs=$((failed_runs + 1))
      [ -n "$names" ] || names="(ctest exit $rc, no test named: see the log)"
      while IFS= read -r n; do
        failures=$((failures + 1))
        echo "load: FAIL $b run $r: $n" | tee -a "$logs/failures"
      done <<<"$names"
    fi
    echo "load: $b run $r/$reps: ${total:+${total% *} of ${total#* } failed, }$((SECONDS - t0)) s, log $log"
  done
done
echo "load: $runs run(s), $failed_runs with failures, $failures failure(s) in total, $((SECONDS - start)) s"
if [ "$failures" -gt 0 ]; then
  echo "load: failures by test:"
  sed 's/^load: FAIL [^:]*: //' "$logs/failures" | sort | uniq -c | sort -rn | sed 's/^/  /'
  exit 1
fi
exit 0
