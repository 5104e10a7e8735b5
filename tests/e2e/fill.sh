# group by bucket(...) fill end to end (docs/query-language.md, "fill"): a
# generated logfmt log whose minutes have holes (and the same records as
# CSV for DuckDB), dmap serverless, through one dserver holding the file
# and through three holding its thirds (the holes between their parts are
# filled after the merge): the same bytes, and the rows of DuckDB's
# generate_series LEFT JOIN the grouped records. Also: the SQLite export
# has every bucket with NULL where empty, a second key gets every bucket
# per value, the row limit is an error naming the range, fill without
# bucket() is a query error with a caret.
# Usage: fill.sh CASE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/fanout_lib.sh"

need_bin dmap dserver
command -v python3 >/dev/null || skip "python3 is not installed"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
DUCK=$(cd "$(dirname "$0")/../support/duckdb" && pwd)
[ -d "$DUCK/node_modules/@duckdb/node-api" ] ||
  die "DuckDB is not installed in $DUCK/node_modules (scripts/deps.sh runs npm ci there)"
IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN"

# 600 records over about 26 hours: runs of busy minutes, then quiet stretches
# (no record at all for up to 40 minutes), levels info/warn/error, warn
# and error rarer (their own holes), and a record with no time.
awk 'BEGIN { srand(19); t = 1714557600; n = 0
  printf "ts,level,took\n" > "'"$IN"'/app.csv"
  while (n < 600) {
    if (rand() < 0.08) t += 60 * int(5 + rand() * 36); else t += int(rand() * 50)
    r = rand(); lv = r < 0.8 ? "info" : r < 0.95 ? "warn" : "error"
    took = int(rand() * 1000)
    ts = strftime("%Y-%m-%dT%H:%M:%SZ", t, 1)
    printf "ts=%s level=%s took=%d msg=\"record %d\"\n", ts, lv, took, n
    printf "%s,%s,%d\n", ts, lv, took >> "'"$IN"'/app.csv"
    n++
  }
  print "level=info took=1 msg=\"no time\"" }' >"$IN/app.log" 2>/dev/null ||
  die "cannot generate the log (awk needs strftime: gawk or mawk 1.3.4)"
chmod 644 "$IN"/*

# same_everywhere LABEL QUERY: serverless, one dserver, three: one CSV.
same_everywhere() {
  local label=$1 q="$2 logformat logfmt"
  run "$label.local" dmap --cfg none --timezone "${TZONE:-UTC}" --output csv --query "$q" "$IN/app.log"
  expect_rc "$label serverless" 0
  cp "$OUT" "$T/$label.csv"
  run "$label.one" dmap "${SERVER_CLIENT_FLAGS[@]}" --timezone "${TZONE:-UTC}" --servers "$ONE" \
    --output csv --query "$q" --files app.log
  expect_rc "$label one dserver" 0
  expect_bytes "$label: one dserver vs serverless" "$OUT" "$T/$label.csv"
  run "$label.three" dmap "${SERVER_CLIENT_FLAGS[@]}" --timezone "${TZONE:-UTC}" --servers "$THREE" \
    --output csv --query "$q" --files app.log
  expect_rc "$label three dservers" 0
  expect_bytes "$label: three dservers vs serverless" "$OUT" "$T/$label.csv"
}

# oracle LABEL SQL: DuckDB's rows (CSV, NULL empty) equal dmap's rows
# (after the header), numbers as numbers.
oracle() {
  TZ=UTC run "duck_$1" node "$DUCK/query.mjs" --csv "$2"
  [ "$RC" -eq 0 ] || { fail "$1: DuckDB failed: $(head -c 600 "$ERR")"; return; }
  run "check_$1" python3 - "$T/$1.csv" "$OUT" <<'PY'
import csv, sys
got = list(csv.reader(open(sys.argv[1])))[1:]
want = list(csv.reader(open(sys.argv[2])))
def same(a, b):
    if a == b:
        return True
    try:
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))
    except ValueError:
        return False
bad = 0
if len(got) != len(want):
    print(f"{len(got)} rows, DuckDB has {len(want)}", file=sys.stderr); sys.exit(1)
for i, (g, w) in enumerate(zip(got, want)):
    if len(g) != len(w) or not all(same(a, b) for a, b in zip(g, w)):
        print(f"row {i + 1}: {g} vs DuckDB {w}", file=sys.stderr); bad += 1
        if bad > 5: break
sys.exit(1 if bad else 0)
PY
  [ "$RC" -eq 0 ] || fail "$1: dmap's rows are not DuckDB's: $(head -c 900 "$ERR")"
}

RAW="read_csv('$IN/app.csv', header=true, columns={'ts': 'TIMESTAMP', 'level': 'VARCHAR', 'took': 'BIGINT'})"
SERIES="(SELECT unnest(generate_series(min(time_bucket(INTERVAL 1 minute, ts)), max(time_bucket(INTERVAL 1 minute, ts)), INTERVAL 1 minute)) AS b FROM $RAW)"
D="(SELECT time_bucket(INTERVAL 1 minute, ts) AS b, level, took FROM $RAW)"

case ${1:-} in
series)
  fanout_start_n 4
  ONE=${FANOUT_SERVERS[3]}
  THREE="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
  fanout_place "$IN" app.log
  Q='select bucket($time, 1m), count($line), sum(took), avg(took), max(took) group by bucket($time, 1m) fill'
  same_everywhere minute "$Q"
  # The record without a time is its own group, first (empty key), as
  # without fill; the rest is the series.
  head -n 2 "$T/minute.csv" | tail -n 1 | grep -q '^,1,1' || fail "minute: the timeless record's group is not first: $(sed -n 2p "$T/minute.csv")"
  sed -i 2d "$T/minute.csv"
  oracle minute "SELECT strftime(s.b, '%Y-%m-%dT%H:%M:%SZ'), count(d.took), sum(d.took), avg(d.took), max(d.took) FROM $SERIES s LEFT JOIN $D d USING (b) GROUP BY s.b ORDER BY s.b"
  filled=$(grep -c ',0,,,$' "$T/minute.csv")
  [ "$filled" -gt 60 ] || fail "minute: only $filled filled minutes; the data should have many holes"
  # Two keys: every level gets every minute.
  Q2='select bucket($time, 1m), level, count($line), min(took) group by bucket($time, 1m), level fill'
  same_everywhere level "$Q2"
  grep -v '^,' "$T/level.csv" >"$T/level.tmp" && mv "$T/level.tmp" "$T/level.csv"
  oracle level "SELECT strftime(s.b, '%Y-%m-%dT%H:%M:%SZ'), l.level, count(d.took), min(d.took) FROM $SERIES s CROSS JOIN (SELECT DISTINCT level FROM $RAW) l LEFT JOIN $D d ON d.b = s.b AND d.level = l.level GROUP BY s.b, l.level ORDER BY s.b, l.level"
  # Ordered and limited: fill first, then order and limit.
  same_everywhere ordered 'select bucket($time, 10m), count($line) group by bucket($time, 10m) fill order by count($line) limit 5'
  # SQLite through a dserver: no hole, NULL where empty.
  run sqlite dmap "${SERVER_CLIENT_FLAGS[@]}" --timezone UTC --servers "$THREE" \
    --query "$Q logformat logfmt outfile $T/fill.sqlite" --files app.log
  expect_rc sqlite 0
  run sq_rows sqlite3 "$T/fill.sqlite" 'SELECT count(*), sum("count($line)" = 0), sum("count($line)" = 0 AND "sum(took)" IS NULL AND "max(took)" IS NULL) FROM result'
  n=$(($(wc -l <"$T/minute.csv") - 1 + 1))   # the series plus the timeless group
  expect_contains sq_rows "$OUT" "$n|$filled|$filled"
  fanout_stop_all
  ;;
zone)
  # --timezone Europe/Berlin across the end of summer time (2024-10-27,
  # 03:00 CEST is 02:00 CET): the filled days and hours take the offset
  # in force at their start, the 25-hour day is one day, the repeated
  # hour 02:00 is there twice (+02:00, then +01:00), serverless and
  # through one and three dservers alike.
  [ -r /usr/share/zoneinfo/Europe/Berlin ] || skip "no tz database (/usr/share/zoneinfo)"
  printf '%s\n' 'ts=2024-10-26T10:00:00Z took=1' 'ts=2024-10-26T23:30:00Z took=2' \
    'ts=2024-10-27T02:30:00Z took=3' 'ts=2024-10-29T10:00:00Z took=4' >"$IN/app.log"
  fanout_start_n 4
  ONE=${FANOUT_SERVERS[3]}
  THREE="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
  fanout_place "$IN" app.log
  TZONE=Europe/Berlin
  same_everywhere day 'select bucket($time, 1d), count($line), sum(took) group by bucket($time, 1d) fill'
  printf '%s\n' '"bucket($time,1d)",count($line),sum(took)' '2024-10-26T00:00:00+02:00,1,1.000000' \
    '2024-10-27T00:00:00+02:00,2,5.000000' '2024-10-28T00:00:00+01:00,0,' '2024-10-29T00:00:00+01:00,1,4.000000' >"$T/day.want"
  expect_bytes "day: Berlin's days" "$T/day.csv" "$T/day.want"
  same_everywhere hour 'select bucket($time, 1h), count($line) group by bucket($time, 1h) fill'
  # 10:00Z on the 26th to 10:00Z on the 29th: 73 hours, a header.
  expect_lines hour "$T/hour.csv" 74
  for h in 2024-10-27T01:00:00+02:00,1 2024-10-27T02:00:00+02:00,0 2024-10-27T02:00:00+01:00,0 \
           2024-10-27T03:00:00+01:00,1 2024-10-26T12:00:00+02:00,1 2024-10-29T11:00:00+01:00,1; do
    [ "$(grep -cx "$h" "$T/hour.csv")" = 1 ] || fail "hour: no single row $h: $(grep -n '2024-10-27T0[1-4]' "$T/hour.csv")"
  done
  grep -q '^2024-10-27T03:00:00+02:00' "$T/hour.csv" && fail "hour: 03:00+02:00 does not exist in Berlin"
  fanout_stop_all
  ;;
errors)
  run nobucket dmap --cfg none --query 'select count($line) group by level fill logformat logfmt' "$IN/app.log"
  expect_rc nobucket 2
  expect_contains nobucket "$ERR" "fill needs a bucket(...) among the group by keys"
  expect_contains nobucket "$ERR" "                                   ^"
  # A field named fill still groups (alone, or backticked).
  run field dmap --cfg none --output csv --query 'select count($line) group by fill logformat logfmt' "$IN/app.log"
  expect_rc field 0
  # `fill` backticked is a key (a field no record has), not the word: the
  # minutes that have records, as without it, not the filled series.
  run plain dmap --cfg none --output csv --query 'select count($line) group by bucket($time, 1m) logformat logfmt' "$IN/app.log"
  expect_rc plain 0
  cp "$OUT" "$T/plain.csv"
  run backticked dmap --cfg none --output csv --query 'select count($line) group by bucket($time, 1m), `fill` logformat logfmt' "$IN/app.log"
  expect_rc backticked 0
  expect_bytes backticked "$OUT" "$T/plain.csv"
  run filled dmap --cfg none --output csv --query 'select count($line) group by bucket($time, 1m) fill logformat logfmt' "$IN/app.log"
  expect_rc filled 0
  [ "$(wc -l <"$OUT")" -gt "$(wc -l <"$T/plain.csv")" ] || fail "filled: no more rows than the minutes with records"
  # Too many rows: refused, naming the range and the limit.
  run toomany dmap --cfg none --query 'select count($line) group by bucket($time, 1s), took fill logformat logfmt' "$IN/app.log"
  expect_rc toomany 2
  expect_contains toomany "$ERR" "are over the limit of 1000000 rows"
  expect_contains toomany "$ERR" "from 2024-05-01T"
  ;;
*) die "usage: fill.sh series|zone|errors" ;;
esac
finish
