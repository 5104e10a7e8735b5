# dserver's scheduled and continuous jobs (Server.Schedule, Server.Continuous;
# docs/dserver.md "Jobs"): a real dserver runs them against its own files
# and writes their outfiles, which must hold what the serverless dmap of
# the same query over the same files writes.
# Usage: jobs.sh CASE
#   schedule    2 s after the start the job in its TimeRange writes
#               stats-YYYYMMDD.csv (today's local date); a job out of its
#               range, one whose outfile exists and one not enabled write
#               nothing; the start and end of the run are in the log
#   continuous  a continuous job (interval 1) follows a file from its end:
#               lines appended after its start are in its outfile within
#               seconds, as the serverless dmap gives them
#   bad_job     a job whose query does not parse, or whose keys are wrong,
#               stops dserver's start (exit 2) naming the job, before
#               anything is created
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"

DATA=$T/data
OUTDIR=$T/out

# The jobs write as dserver's user (nobody when the suite runs as root).
make_dirs() {
  mkdir -p "$DATA" "$OUTDIR" && chmod 755 "$DATA" && chmod 777 "$OUTDIR" ||
    die "cannot create $DATA and $OUTDIR"
}

# today_names PATTERN: the outfile PATTERN with $today as dserver may have
# filled it in: today, or tomorrow when midnight came during the test.
today_names() {
  local d
  for d in "$(date +%Y%m%d)" "$(date -d tomorrow +%Y%m%d)"; do
    printf '%s\n' "${1//\$today/$d}"
  done
}

# want_csv_of LABEL QUERY FILES: the serverless dmap's CSV of QUERY over
# FILES, into $T/LABEL.want.csv.
want_csv_of() {
  run "$1" dmap --cfg none --files "$3" "$2 outfile $T/$1.want.csv"
  expect_rc "$1" 0
  [ -s "$T/$1.want.csv" ] || die "$1: the serverless dmap wrote no CSV"
}

case ${1:-} in
schedule)
  make_dirs
  cp "$M" "$DATA/a.log" && cp "$SRVLOG" "$DATA/b.log" && chmod 644 "$DATA"/*.log ||
    die "cannot copy the inputs"
  printf 'keep\n' >"$OUTDIR/done.csv" && chmod 666 "$OUTDIR/done.csv"
  # An hour twelve hours away: out of range for the whole test.
  far=$(((10#$(date +%H) + 12) % 24))
  q=$COMPAT_Q1
  job() {   # NAME ENABLE OUTFILE TIMERANGE
    printf '{"Name": "%s", "Enable": %s, "Files": "%s/*.log", "Query": "%s",
      "Outfile": "%s", "TimeRange": %s, "Servers": ["localhost"], "AllowFrom": ["localhost"]}' \
      "$1" "$2" "$DATA" "$q" "$3" "$4"
  }
  # daily comes last: once its run is logged, the others were looked at.
  SERVER_CFG_EXTRA="\"Schedule\": [
    $(job later true "$OUTDIR/later.csv" "[$far, $((far + 1))]"),
    $(job done true "$OUTDIR/done.csv" '[0, 24]'),
    $(job off false "$OUTDIR/off.csv" '[0, 24]'),
    $(job daily true "$OUTDIR/stats-\$today.csv" '[0, 24]')]"
  server_setup
  server_start
  poll 30 grep -qF 'Job exited with status' "$SERVER_LOG" ||
    die "no run ended within 30 s; log: $(grep -v STATS "$SERVER_LOG" | tail -n 5 | tr '\n' ' ')"
  expect_log started "Starting scheduled job runner after 2s"
  expect_log run_start "Starting job daily|files $DATA/*.log|outfile $OUTDIR/stats-"
  expect_log run_end "Job exited with status 0|daily|outfile $OUTDIR/stats-"
  expect_log rows "files 2 read, 0 failed"
  want_csv_of daily "$q" "$DATA/*.log"
  got=
  while read -r f; do [ -f "$f" ] && got=$f; done < <(today_names "$OUTDIR/stats-\$today.csv")
  if [ -z "$got" ]; then
    fail "daily: no outfile $OUTDIR/stats-$(date +%Y%m%d).csv; $OUTDIR has: $(ls "$OUTDIR" | tr '\n' ' ')"
  else
    expect_bytes daily "$got" "$T/daily.want.csv"
  fi
  [ -e "$OUTDIR/later.csv" ] && fail "later: written out of its TimeRange"
  [ -e "$OUTDIR/off.csv" ] && fail "off: written though not enabled"
  [ "$(cat "$OUTDIR/done.csv")" = keep ] || fail "done: an existing outfile was written over"
  [ "$(grep -c 'Starting job ' "$SERVER_LOG")" -eq 1 ] ||
    fail "$(grep -c 'Starting job ' "$SERVER_LOG") runs started, want 1 (daily)"
  server_alive
  server_stop
  ;;
continuous)
  make_dirs
  : >"$DATA/live.log" && chmod 644 "$DATA/live.log" || die "cannot create live.log"
  head -n 300 "$M" >"$T/chunk.log"
  q='from STATS select count($line),avg($goroutines),max(lifetimeConnections) group by $hostname'
  SERVER_CFG_EXTRA="\"Continuous\": [{\"Name\": \"live\", \"Enable\": true,
    \"Files\": \"$DATA/live.log\", \"Query\": \"$q interval 1\",
    \"Outfile\": \"$OUTDIR/live-\$today.csv\", \"RestartOnDayChange\": true}]"
  server_setup
  server_start
  # The first interval writes the header: the file is followed by then.
  poll 30 eval 'ls "$OUTDIR"/live-*.csv >/dev/null 2>&1' ||
    die "live: no outfile within 30 s; log: $(grep -v STATS "$SERVER_LOG" | tail -n 5 | tr '\n' ' ')"
  expect_log started "Starting continuous job runner after 2s"
  expect_log run_start "Starting job live|files $DATA/live.log|outfile $OUTDIR/live-"
  out=$(ls "$OUTDIR"/live-*.csv 2>/dev/null | head -n 1)
  want_csv_of live "$q" "$T/chunk.log"
  cat "$T/chunk.log" >>"$DATA/live.log"   # one write: one interval's lines
  if ! poll 30 cmp -s "$out" "$T/live.want.csv"; then
    fail "live: the outfile does not hold the appended lines' result"
    expect_bytes live "$out" "$T/live.want.csv"
  fi
  # Idle intervals keep the rows.
  sleep 2.2
  expect_bytes live_kept "$out" "$T/live.want.csv"
  server_alive
  server_stop
  expect_log run_end "Job exited with status 0|live|outfile $OUTDIR/live-"
  ;;
bad_job)
  make_dirs
  # bad LABEL WANT JOBS: dserver with these jobs must refuse to start
  # with WANT on stderr.
  bad() {
    SERVER_CFG_EXTRA="$3"
    rm -rf "$SRV"
    server_setup
    server_refuses "$1" "$2"
  }
  bad query "Server.Schedule[0] (job broken): Query: invalid query: unknown clause word 'selec'" \
    "\"Schedule\": [{\"Name\": \"broken\", \"Enable\": true, \"Files\": \"$DATA/a.log\",
      \"Query\": \"from STATS selec count(\$line)\", \"Outfile\": \"$OUTDIR/x.csv\",
      \"TimeRange\": [0, 24]}]"
  bad key "Server.Continuous[0] (job follow): TimeRange is a key of Schedule jobs" \
    "\"Continuous\": [{\"Name\": \"follow\", \"Files\": \"$DATA/a.log\",
      \"Query\": \"from STATS select count(\$line)\", \"Outfile\": \"$OUTDIR/x.csv\",
      \"TimeRange\": [0, 24]}]"
  bad server "Server.Schedule[0] (job remote): Servers[0] \"web2:2222\" is not this server" \
    "\"Schedule\": [{\"Name\": \"remote\", \"Files\": \"$DATA/a.log\", \"Servers\": [\"web2:2222\"],
      \"Query\": \"from STATS select count(\$line)\", \"Outfile\": \"$OUTDIR/x.csv\",
      \"TimeRange\": [0, 24]}]"
  bad outdir "Server.Schedule[0] (job nowhere): Outfile: outfile $OUTDIR/no/x.csv" \
    "\"Schedule\": [{\"Name\": \"nowhere\", \"Files\": \"$DATA/a.log\",
      \"Query\": \"from STATS select count(\$line)\", \"Outfile\": \"$OUTDIR/no/x.csv\",
      \"TimeRange\": [0, 24]}]"
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
