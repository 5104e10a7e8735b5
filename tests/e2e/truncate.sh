# A file truncated while it is read (copytruncate during a run): the run
# ends within a bound with a non-zero exit and an error naming the file,
# serverless and through a dserver, for cat, grep (both the one-core and
# the parallel scan) and map; the dserver then still serves new requests.
#
# The truncation comes while the reader is inside the file by construction:
# the reading process (the client, or the dserver) is stopped with SIGSTOP
# once it has the file mapped, the file is truncated, and it goes on. A run
# that finished reading before it could be stopped is started again; each
# case needs REPS runs that were stopped inside the file.
# Usage: truncate.sh local_dmap|local_dgrep|local_dgrep_one|local_dcat|
#                    server_dmap|server_dgrep|server_dcat
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
mode=${1:?mode}
need_bin dcat dgrep dmap
REPS=${TRUNCATE_REPS:-20}

IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN" || die "mkdir $IN"
# 64 MiB of STATS lines: over the size the scans split across cores.
{ yes 'INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|hostname=h1|user9=x|lat=7' || :; } |
  head -c 67108864 >"$IN/base.log" || die "cannot write the input"
F=$IN/live.log
# A run this script stopped must not outlive it, stopped or not.
RUN_PID=
truncate_cleanup() {
  if [ -n "$RUN_PID" ]; then
    kill -KILL "$RUN_PID" 2>/dev/null
    kill -CONT "$RUN_PID" 2>/dev/null
  fi
  [ -n "$SERVER_CHILD" ] && kill -CONT "$SERVER_CHILD" 2>/dev/null
  server_cleanup
}
trap truncate_cleanup EXIT

BASE_LINES=$(wc -l <"$IN/base.log")

# complete OUT: the run's output covers the whole input: every line (each
# matches the grep), or, for dmap, a count of all of them.
complete() {
  if [ "$COUNTS" = 1 ]; then
    grep -qE "(^|[^0-9])($BASE_LINES|$((BASE_LINES + 1)))([^0-9]|\$)" "$1"
  else
    [ "$(wc -l <"$1")" -ge "$BASE_LINES" ]
  fi
}
COUNTS=0
case $mode in *dmap) COUNTS=1 ;; esac

# stopped PID: the process is in the stopped state.
stopped() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ]; }

# mapped PID FILE: PID has a window of FILE mapped: it opened it, took its
# size (fstat) and is reading it (every reader of a file this large maps
# it). Holding the file open is not enough: stopped between the open and
# the fstat, a reader rightly takes the truncated file for an empty one.
mapped() { grep -qF -- " $2" "/proc/$1/maps" 2>/dev/null; }

# stop_inside PID FILE RUN: stops PID with SIGSTOP the moment it has FILE
# mapped; 0 when it is stopped so, 1 when the run RUN (the client: PID
# itself, or the client of the dserver PID) ended or PID unmapped the file
# first (then it runs on). A dserver outlives the run, so the run's end,
# not the reader's, ends the looking.
stop_inside() {
  local pid=$1 f=$2 run=$3 i
  for ((i = 0; i < 6000; i++)); do
    kill -0 "$run" 2>/dev/null || return 1
    if mapped "$pid" "$f"; then
      kill -STOP "$pid"
      poll 30 stopped "$pid" || return 1
      mapped "$pid" "$f" && return 0
      kill -CONT "$pid"
      return 1
    fi
    sleep 0.005
  done
  return 1
}

# one_run LABEL READER CMD...: CMD in the background on a fresh copy of
# the input, READER the process that reads the file ("self": CMD itself);
# stopped inside the file, truncated to 0, continued. Returns 2 when it
# could not be stopped inside the file (not counted), else checks the run.
one_run() {
  local label=$1 reader=$2 pid rpid start
  shift 2
  cp "$IN/base.log" "$F" && chmod 644 "$F" || die "cp"
  OUT=$T/$label.out ERR=$T/$label.err
  start=$SECONDS
  "$@" >"$OUT" 2>"$ERR" </dev/null &
  pid=$!
  RUN_PID=$pid
  rpid=$pid
  [ "$reader" = self ] || rpid=$reader
  if ! stop_inside "$rpid" "$F" "$pid"; then
    wait "$pid"
    return 2
  fi
  : >"$F"
  kill -CONT "$rpid"
  # The bound only guards against a hang (the old defect: for ever).
  if ! poll 60 pid_gone "$pid"; then
    fail "$label: still running 60 s after the truncation"
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid"
  RC=$?
  RUN_PID=
  E2E_RUNS=$((E2E_RUNS + 1))
  # A run that had read everything before the truncation gives exit 0
  # with the whole output, which is right: not counted, repeated.
  if [ "$RC" -eq 0 ] && complete "$OUT"; then
    return 2
  fi
  [ "$RC" -ne 0 ] || fail "$label: exit 0 with part of the output after its input was truncated"
  [ "$RC" -lt 124 ] || fail "$label: exit $RC (killed?)"
  grep -qF -- "$F: file shrank while being read" "$ERR" ||
    { fail "$label: no error naming $F"; show_stderr; }
  return 0
}

# reps LABEL READER CMD...: REPS counted runs (at most 5 * REPS tries).
reps() {
  local label=$1 done=0 tries=0 rc
  shift
  while [ "$done" -lt "$REPS" ] && [ "$tries" -lt $((REPS * 5)) ]; do
    tries=$((tries + 1))
    one_run "$label.$done" "$@"
    rc=$?
    [ "$rc" -eq 2 ] || done=$((done + 1))
  done
  [ "$done" -eq "$REPS" ] || fail "$label: only $done of $REPS runs could be stopped inside the file ($tries tries)"
  note "$label: $done runs truncated inside the file ($tries tries)"
}

Q='select count($line),last($line) where $line contains "user9"'
case $mode in
local_dmap)
  reps dmap self "$DTAIL_BIN/dmap" --cfg none --query "$Q" "$F"
  ;;
local_dgrep)   # the parallel scan (a plain grep of a large file)
  reps dgrep self "$DTAIL_BIN/dgrep" --cfg none --plain --grep user9 "$F"
  ;;
local_dgrep_one)   # the one-core scan (context lines)
  reps dgrep1 self "$DTAIL_BIN/dgrep" --cfg none --plain --grep user9 --before 1 "$F"
  ;;
local_dcat)   # mapped bytes written to the output without a copy
  reps dcat self "$DTAIL_BIN/dcat" --cfg none --plain "$F"
  ;;
server_dmap|server_dgrep|server_dcat)
  server_setup
  server_start
  case $mode in
    server_dmap) reps sdmap "$SERVER_CHILD" "$DTAIL_BIN/dmap" "${SERVER_CLIENT_FLAGS[@]}" --query "$Q" --files "$F" ;;
    server_dgrep) reps sdgrep "$SERVER_CHILD" "$DTAIL_BIN/dgrep" "${SERVER_CLIENT_FLAGS[@]}" --plain --grep user9 --files "$F" ;;
    server_dcat) reps sdcat "$SERVER_CHILD" "$DTAIL_BIN/dcat" "${SERVER_CLIENT_FLAGS[@]}" --plain --files "$F" ;;
  esac
  # The server still serves: no session is wedged, no slot held.
  echo "one line" >"$IN/one.log"
  chmod 644 "$IN/one.log"
  run after dcat "${SERVER_CLIENT_FLAGS[@]}" --plain --files "$IN/one.log"
  expect_rc after 0
  expect_bytes after "$OUT" "$IN/one.log"
  run aftermap dmap "${SERVER_CLIENT_FLAGS[@]}" --query 'select count($line)' --files "$IN/one.log"
  expect_rc aftermap 0
  run health dtailhealth --server "$SERVER" --connectTimeout 30000
  expect_rc health 0
  server_alive
  server_stop
  ;;
*) die "unknown mode $mode" ;;
esac
finish
