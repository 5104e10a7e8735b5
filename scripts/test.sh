#!/usr/bin/env bash
# test.sh: the README's second command, and what CI runs. Installs what is
# missing, then builds and runs the whole suite three times:
#   1. release build (-O2 -g): unit, fuzz-corpus replay and end-to-end tests;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build: the same suite;
#   3. clang libFuzzer build: a short fuzz run of every target.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
jobs=$(nproc)
status=0

run_suite() {   # run_suite NAME BUILD_DIR CMAKE_ARGS...
  local name=$1 dir=$2
  shift 2
  echo "=== $name: configure and build ($dir)"
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  echo "=== $name: ctest"
  if ! ctest --test-dir "$dir" -j"$jobs" --output-on-failure --timeout 300 "${CTEST_ARGS[@]}"; then
    status=1
  fi
}

CTEST_ARGS=()
run_suite release build -DCMAKE_BUILD_TYPE=RelWithDebInfo
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_suite sanitizers build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDTAIL_SANITIZE=ON
CTEST_ARGS=(-R '^fuzz_smoke_')
run_suite fuzz build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DDTAIL_SANITIZE=ON -DDTAIL_FUZZ=ON
exit $status
