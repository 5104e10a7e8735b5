# logformats.sh FORMAT: a log format end to end (docs/log-formats.md), on a
# test file of realistic lines that tests/e2e/logformats.py writes (quoted
# values with spaces, escaped quotes, missing fields, IPv6 addresses, very
# long user agents, bad lines, bad times). For each query (group-by counts,
# sum/avg/max/min of numeric fields, bucket by time):
#   - dmap serverless, through one dserver holding the file and through
#     three holding its thirds print the same bytes (--output csv);
#   - the rows equal the oracle's: DuckDB reading the file with its own
#     readers (tsv, csvnoheader: read_csv; json: read_ndjson_objects; k8s:
#     read_json, the log's JSON through its JSON functions), the Python
#     oracle of logformats.py otherwise (logfmt, nginx, apache, syslog);
#   - the summary's parsed and unparsed lines and its unparsable times are
#     the oracle's counts, exactly; the unparsed lines and unparsable times
#     also through one dserver and three (their counts added).
# Times without a zone are the host's: the test runs at UTC+3 (TZ=UTC-3),
# so dmap, dserver and the oracle all take them at +03:00; times are
# written in UTC (--timezone UTC; the default would be the host's zone).
# Two more cases are formats with options (docs/log-formats.md, "Options"):
# pattern (logformat pattern "..." over a custom nginx log_format, the
# Python oracle) and csvsemi (logformat csv delimiter ";" timeformat "...",
# DuckDB reading the file with delim=';' and strptime).
# Usage: logformats.sh logfmt|nginx|apache|syslog|tsv|csvnoheader|json|k8s|pattern|csvsemi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/fanout_lib.sh"
FMT=${1:?format}
need_bin dmap dserver
PY="python3 $(dirname "$0")/logformats.py"
DUCK=$(cd "$(dirname "$0")/../support/duckdb" && pwd)
export TZ=UTC-3

IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN"
F=$FMT.log
$PY gen "$FMT" "$IN/$F" || die "the generator failed"
chmod 644 "$IN/$F"
LINES=$(wc -l <"$IN/$F")

duck() { # duck LABEL SQL: DuckDB's rows (JSON lines) into $T/LABEL.want
  [ -d "$DUCK/node_modules/@duckdb/node-api" ] ||
    die "DuckDB is not installed in $DUCK/node_modules (scripts/deps.sh runs npm ci there)"
  TZ=UTC run "duck_$1" node "$DUCK/query.mjs" "$2"
  [ "$RC" -eq 0 ] || die "DuckDB failed: $(head -c 600 "$ERR")"
  cp "$OUT" "$T/$1.want"
}

# The oracle's counts: parsed and unparsed lines, unparsable times.
COUNTS=
counts_py() { COUNTS=$($PY oracle "$FMT" "$IN/$F" "$1" | tail -n 1); }
counts_duck() { # counts_duck SQL: a row of parsed and badtime
  duck counts "$1"
  local p b
  p=$(sed -n 's/.*"parsed":\([0-9]*\).*/\1/p' "$T/counts.want")
  b=$(sed -n 's/.*"badtime":\([0-9]*\).*/\1/p' "$T/counts.want")
  COUNTS="{\"parsed\": $p, \"unparsed\": $((LINES - p - SKIPPED)), \"badtime\": $b}"
}

fanout_start_n 4   # servers 0..2 hold the thirds, server 3 the whole file
ONE=${FANOUT_SERVERS[3]}
THREE="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
SKIPPED=0
case $FMT in tsv|csvsemi) SKIPPED=1; fanout_place "$IN" "$F" 1 ;; *) fanout_place "$IN" "$F" ;; esac

N_CASES=0
# query LABEL NKEYS QUERY: the three runs give the same bytes, which are
# the rows of $T/LABEL.want (the first NKEYS columns the group key).
query() {
  local label=$1 nk=$2 q="$3 logformat ${LF:-$FMT}"
  N_CASES=$((N_CASES + 1))
  run "$label.local" dmap --cfg none --timezone UTC --output csv --query "$q" "$IN/$F"
  expect_rc "$label serverless" 0
  cp "$OUT" "$T/$label.csv"
  cp "$ERR" "$T/$label.summary"
  run "$label.one" dmap "${SERVER_CLIENT_FLAGS[@]}" --timezone UTC --logLevel warn --servers "$ONE" \
    --output csv --query "$q" --files "$F"
  expect_rc "$label one dserver" 0
  expect_bytes "$label: one dserver vs serverless: $q" "$OUT" "$T/$label.csv"
  cp "$ERR" "$T/$label.summary1"
  run "$label.three" dmap "${SERVER_CLIENT_FLAGS[@]}" --timezone UTC --logLevel warn --servers "$THREE" \
    --output csv --query "$q" --files "$F"
  expect_rc "$label three dservers" 0
  expect_bytes "$label: three dservers vs serverless: $q" "$OUT" "$T/$label.csv"
  cp "$ERR" "$T/$label.summary3"
  [ -f "$T/$label.want" ] || $PY oracle "$FMT" "$IN/$F" "$label" >"$T/$label.want"
  run "$label.check" $PY check "$T/$label.csv" "$T/$label.want" "$nk"
  [ "$RC" -eq 0 ] || fail "$label: dmap's rows are not the oracle's: $q: $(head -c 900 "$ERR")"
}

# The serverless summary of query LABEL says the counts in $COUNTS.
summary() {
  local label=$1 p u b s=$T/$1.summary
  p=$(echo "$COUNTS" | sed 's/.*"parsed": \([0-9]*\).*/\1/')
  u=$(echo "$COUNTS" | sed 's/.*"unparsed": \([0-9]*\).*/\1/')
  b=$(echo "$COUNTS" | sed 's/.*"badtime": \([0-9]*\).*/\1/')
  [ "$u" -gt 0 ] || fail "$label: the test file has no bad line"
  expect_contains "$label summary" "$s" "dmap: $LINES lines read, $LINES matched, $p parsed, $SKIPPED not for this format, $u unparsed,"
  # Serverless, through one dserver and through three (their counts
  # added): the same warnings, counted exactly.
  local name=${LF:-$FMT}
  name=${name%% *}
  for s in "$T/$label.summary" "$T/$label.summary1" "$T/$label.summary3"; do
    expect_contains "$label unparsed lines ($(basename "$s"))" "$s" "dmap: $u lines could not be parsed as log format $name"
    if [ "$b" -gt 0 ]; then
      expect_contains "$label unparsable times ($(basename "$s"))" "$s" "dmap: $b times could not be read as a timestamp"
    else
      grep -q "could not be read as a timestamp" "$s" && fail "$label: unparsable times reported in $(basename "$s"), the oracle has none"
    fi
  done
  note "$FMT $label: $p parsed, $u unparsed, $b unparsable times"
}

case $FMT in
logfmt)
  query level 1 'select level, count($line), sum(took), avg(took), max(took) group by level'
  query minute 1 'select bucket($time, 1m), count($line) group by bucket($time, 1m)'
  query user 2 'select user, status, count($line), min(took) group by user, status'
  counts_py minute; summary minute
  ;;
nginx|apache)
  query status 1 'select $status, count($line), sum($body_bytes_sent), avg($request_time), max($request_time) group by $status'
  query bucket 1 'select bucket($time, 5m), count($line), sum($body_bytes_sent) group by bucket($time, 5m)'
  query method 2 'select $method, $http_x_forwarded_for, count($line), max($body_bytes_sent) group by $method, $http_x_forwarded_for'
  counts_py bucket; summary bucket
  ;;
syslog)
  query severity 2 'select $severity, $facility, count($line) group by $severity, $facility'
  query host 2 'select $host, $app, count($line), sum(`ex@32473.n`), max($pid) group by $host, $app'
  query bucket 1 'select bucket($time, 10m), count($line) group by bucket($time, 10m)'
  counts_py bucket; summary bucket
  ;;
tsv)
  RAW="read_csv('$IN/$F', auto_detect=false, delim='\t', header=true, quote='', escape='',
    columns={'time':'VARCHAR','user':'VARCHAR','status':'VARCHAR','bytes':'VARCHAR','lat':'VARCHAR','msg':'VARCHAR'},
    null_padding=true, ignore_errors=true)"
  B5="coalesce(strftime(to_timestamp(floor(epoch(TRY_CAST(time AS TIMESTAMPTZ)) / 300) * 300) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ'), '')"
  duck user "SELECT coalesce(\"user\", '') AS k, count(*) AS c, sum(TRY_CAST(bytes AS DOUBLE)),
    avg(TRY_CAST(lat AS DOUBLE)), max(TRY_CAST(lat AS DOUBLE)) FROM $RAW GROUP BY 1"
  query user 1 'select user, count($line), sum(bytes), avg(lat), max(lat) group by user'
  duck bucket "SELECT $B5 AS b, coalesce(status, '') AS s, count(*) AS c FROM $RAW GROUP BY 1, 2"
  query bucket 2 'select bucket(time, 5m), status, count($line) group by bucket(time, 5m), status'
  duck msg "SELECT coalesce(replace(msg, '\\t', chr(9)), '') AS m, count(*) AS c, min(TRY_CAST(bytes AS DOUBLE)) FROM $RAW GROUP BY 1"
  query msg 1 'select msg, count($line), min(bytes) group by msg'
  counts_duck "SELECT count(*) AS parsed, count(*) FILTER (WHERE time IS NOT NULL AND TRY_CAST(time AS TIMESTAMPTZ) IS NULL) AS badtime FROM $RAW"
  summary bucket
  ;;
csvnoheader)
  RAW="read_csv('$IN/$F', auto_detect=false, delim=',', header=false, quote='\"', escape='\"',
    columns={'c0':'VARCHAR','c1':'VARCHAR','c2':'VARCHAR','c3':'VARCHAR','c4':'VARCHAR','c5':'VARCHAR'},
    null_padding=true, ignore_errors=true, parallel=false)"
  duck first "SELECT coalesce(c0, '') AS k, count(*) AS c, sum(TRY_CAST(c2 AS DOUBLE)),
    avg(TRY_CAST(c3 AS DOUBLE)) FROM $RAW GROUP BY 1"
  query first 1 'select $1, count($line), sum($3), avg($4) group by $1'
  duck second "SELECT coalesce(c1, '') AS k, count(*) AS c, max(TRY_CAST(c2 AS DOUBLE)),
    min(TRY_CAST(c3 AS DOUBLE)), count(c4) FILTER (WHERE c4 IS NOT NULL) AS e FROM $RAW GROUP BY 1"
  query second 1 'select $2, count($line), max($3), min($4), count($5) group by $2'
  counts_duck "SELECT count(*) AS parsed, 0 AS badtime FROM $RAW"
  summary first
  ;;
json)
  RAW="(SELECT json AS j FROM read_ndjson_objects('$IN/$F', ignore_errors=true) WHERE json IS NOT NULL)"
  S="json_extract_string(j, '\$.req.ms')"
  duck level "SELECT json_extract_string(j, '\$.level') AS k, count(*) AS c, sum(TRY_CAST($S AS DOUBLE)),
    max(TRY_CAST($S AS DOUBLE)), max(TRY_CAST(json_extract_string(j, '\$.req.user.id') AS DOUBLE)) FROM $RAW GROUP BY 1"
  query level 1 'select level, count($line), sum(req.ms), max(req.ms), max(req.user.id) group by level'
  duck tags "SELECT coalesce(json_extract_string(j, '\$.tags[0]'), '') AS a,
    coalesce(json_extract_string(j, '\$.tags[1]'), '') AS b, count(*) AS c FROM $RAW GROUP BY 1, 2"
  query tags 2 'select tags.0, tags.1, count($line) group by tags.0, tags.1'
  T5="TRY_CAST(json_extract_string(j, '\$.time') AS TIMESTAMPTZ)"
  duck bucket "SELECT coalesce(strftime(to_timestamp(floor(epoch($T5) / 300) * 300) AT TIME ZONE 'UTC',
    '%Y-%m-%dT%H:%M:%SZ'), '') AS b, count(*) AS c FROM $RAW GROUP BY 1"
  query bucket 1 'select bucket($time, 5m), count($line) group by bucket($time, 5m)'
  counts_duck "SELECT count(*) AS parsed, count(*) FILTER (WHERE json_extract_string(j, '\$.time') IS NOT NULL
    AND $T5 IS NULL) AS badtime FROM $RAW"
  summary bucket
  ;;
k8s)
  RAW="(SELECT CASE WHEN json_valid(log) THEN log END::JSON AS j, stream, time
    FROM read_json('$IN/$F', format='newline_delimited', ignore_errors=true,
      columns={'log':'VARCHAR','stream':'VARCHAR','time':'VARCHAR'})
    WHERE CASE WHEN json_valid(log) THEN json_type(log::JSON) END = 'OBJECT')"
  S="json_extract_string(j, '\$.req.ms')"
  duck level "SELECT json_extract_string(j, '\$.level') AS k, count(*) AS c, sum(TRY_CAST($S AS DOUBLE)),
    max(TRY_CAST($S AS DOUBLE)) FROM $RAW GROUP BY 1"
  query level 1 'select level, count($line), sum(req.ms), max(req.ms) group by level'
  duck bucket "SELECT coalesce(stream, '') AS s, coalesce(strftime(to_timestamp(floor(epoch(TRY_CAST(time AS TIMESTAMPTZ))
    / 300) * 300) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ'), '') AS b, count(*) AS c FROM $RAW GROUP BY 1, 2"
  query bucket 2 'select $stream, bucket($time, 5m), count($line) group by $stream, bucket($time, 5m)'
  counts_duck "SELECT count(*) AS parsed, count(*) FILTER (WHERE time IS NOT NULL AND TRY_CAST(time AS TIMESTAMPTZ) IS NULL) AS badtime FROM $RAW"
  summary bucket
  ;;
pattern)
  LF="pattern \"$($PY pattern | sed 's/"/\\"/g')\""
  query status 1 'select $status, count($line), sum($body_bytes_sent), avg($request_time), max($request_time) group by $status'
  query bucket 1 'select bucket($time, 5m), count($line), sum($body_bytes_sent) group by bucket($time, 5m)'
  query user 2 'select $remote_user, $upstream_connect_time, count($line), min($body_bytes_sent) group by $remote_user, $upstream_connect_time'
  counts_py bucket; summary bucket
  ;;
csvsemi)
  LF="csv delimiter \";\" timeformat \"$($PY timeformat)\""
  RAW="read_csv('$IN/$F', auto_detect=false, delim=';', header=true, quote='\"', escape='\"',
    columns={'ts':'VARCHAR','user':'VARCHAR','bytes':'VARCHAR','lat':'VARCHAR','msg':'VARCHAR'},
    null_padding=true, ignore_errors=true, parallel=false)"
  TS="try_strptime(ts, '$($PY timeformat)')"
  duck user "SELECT coalesce(\"user\", '') AS k, count(*) AS c, sum(TRY_CAST(bytes AS DOUBLE)),
    avg(TRY_CAST(lat AS DOUBLE)), max(TRY_CAST(lat AS DOUBLE)) FROM $RAW GROUP BY 1"
  query user 1 'select user, count($line), sum(bytes), avg(lat), max(lat) group by user'
  # zoneless times are the host's (+03:00), written in UTC
  duck bucket "SELECT coalesce(strftime(time_bucket(INTERVAL 5 MINUTE, $TS - INTERVAL 3 HOUR), '%Y-%m-%dT%H:%M:%SZ'), '') AS b,
    count(*) AS c FROM $RAW GROUP BY 1"
  query bucket 1 'select bucket(ts, 5m), count($line) group by bucket(ts, 5m)'
  counts_duck "SELECT count(*) AS parsed, count(*) FILTER (WHERE $TS IS NULL) AS badtime FROM $RAW"
  summary bucket
  ;;
*) die "unknown format $FMT" ;;
esac
fanout_stop_all
note "logformats $FMT: $N_CASES queries, each serverless, through one dserver and three, against the oracle"
finish
