# json(FIELD).path end to end (docs/query-language.md, "JSON logs"): JSON
# lines whose msg string holds the application's JSON (tests/e2e/
# jsonpath.py writes them: nesting, arrays, escapes, \u, missing keys,
# null, invalid inner JSON), dmap serverless, through one dserver and
# through three holding its thirds (the same bytes), against DuckDB's
# json_extract_string of the same file; parse errors with a caret.
# Usage: jsonpath.sh CASE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/fanout_lib.sh"

need_bin dmap dserver
command -v python3 >/dev/null || skip "python3 is not installed"
PY="python3 $(dirname "$0")/jsonpath.py"
DUCK=$(cd "$(dirname "$0")/../support/duckdb" && pwd)
[ -d "$DUCK/node_modules/@duckdb/node-api" ] ||
  die "DuckDB is not installed in $DUCK/node_modules (scripts/deps.sh runs npm ci there)"
IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN"
$PY gen "$IN/app.log" || die "cannot generate the log"
chmod 644 "$IN/app.log"

# same_everywhere LABEL QUERY: serverless, one dserver, three: one CSV.
same_everywhere() {
  local label=$1 q="$2 logformat json"
  run "$label.local" dmap --cfg none --output csv --query "$q" "$IN/app.log"
  expect_rc "$label serverless" 0
  cp "$OUT" "$T/$label.csv"
  run "$label.one" dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$ONE" --output csv --query "$q" \
    --files app.log
  expect_rc "$label one dserver" 0
  expect_bytes "$label: one dserver vs serverless" "$OUT" "$T/$label.csv"
  run "$label.three" dmap "${SERVER_CLIENT_FLAGS[@]}" --servers "$THREE" --output csv \
    --query "$q" --files app.log
  expect_rc "$label three dservers" 0
  expect_bytes "$label: three dservers vs serverless" "$OUT" "$T/$label.csv"
}

# oracle LABEL SQL: DuckDB's rows are dmap's (any order).
oracle() {
  run "duck_$1" node "$DUCK/query.mjs" --csv "$2"
  [ "$RC" -eq 0 ] || { fail "$1: DuckDB failed: $(head -c 600 "$ERR")"; return; }
  run "check_$1" $PY check "$T/$1.csv" "$OUT"
  [ "$RC" -eq 0 ] || fail "$1: dmap's rows are not DuckDB's: $(head -c 900 "$ERR")"
}

# The inner JSON where it is JSON, else NULL (json_extract_string fails
# on text that is none).
I="(SELECT CASE WHEN json_valid(json_extract_string(json, '\$.msg')) THEN json_extract_string(json, '\$.msg') END AS j FROM read_ndjson_objects('$IN/app.log'))"

case ${1:-} in
oracle)
  fanout_start_n 4
  ONE=${FANOUT_SERVERS[3]}
  THREE="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
  fanout_place "$IN" app.log
  same_everywhere level 'select json(msg).level, count($line), avg(json(msg).http.ms), max(json(msg).http.ms) group by json(msg).level'
  oracle level "SELECT json_extract_string(j, '\$.level'), count(*), avg(TRY_CAST(json_extract_string(j, '\$.http.ms') AS DOUBLE)), max(TRY_CAST(json_extract_string(j, '\$.http.ms') AS DOUBLE)) FROM $I GROUP BY 1"
  same_everywhere status 'select json(msg).http.status, count($line) group by json(msg).http.status'
  oracle status "SELECT json_extract_string(j, '\$.http.status'), count(*) FROM $I GROUP BY 1"
  same_everywhere tag 'select json(msg).tags.1, count($line) group by json(msg).tags.1 where json(msg).http.status == 200'
  oracle tag "SELECT json_extract_string(j, '\$.tags[1]'), count(*) FROM $I WHERE TRY_CAST(json_extract_string(j, '\$.http.status') AS DOUBLE) = 200 GROUP BY 1"
  fanout_stop_all
  ;;
errors)
  run nopath dmap --cfg none --query 'select json(msg), count($line) logformat json' "$IN/app.log"
  expect_rc nopath 2
  expect_contains nopath "$ERR" "json() needs a path after it: json(msg).level"
  run notjson dmap --cfg none --query 'select count(msg).x logformat json' "$IN/app.log"
  expect_rc notjson 2
  expect_contains notjson "$ERR" "a path such as .level only follows json(...)"
  run empty dmap --cfg none --query 'select json(msg).a..b logformat json' "$IN/app.log"
  expect_rc empty 2
  expect_contains empty "$ERR" "has an empty step"
  expect_contains empty "$ERR" "                ^"
  ;;
*) die "usage: jsonpath.sh oracle|errors" ;;
esac
finish
