# Exact quantiles, distinct counts and top values (issue 18), with DuckDB
# as the oracle (tests/support/duckdb/query.mjs): dmap's CSV is DuckDB's
# quantile_cont (printf %.6f), count(DISTINCT) and a GROUP BY/ORDER BY
# count top-k, byte for byte, serverless, through three dservers holding
# a split of the input, and spilled under a small memory budget (client
# and servers). Past the bounds the result says it is an estimate: a note
# on stderr and "<col>_approx" 1 in SQLite, within the stated error.
# Usage: agg_exact.sh serverless|fanout|spill|approx
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
DUCK_DIR=$(cd "$(dirname "$0")/../support/duckdb" && pwd)
command -v node >/dev/null || skip "node is not installed: DuckDB is the oracle (scripts/deps.sh installs it)"
[ -d "$DUCK_DIR/node_modules/@duckdb/node-api" ] ||
  die "DuckDB is not installed in $DUCK_DIR (scripts/deps.sh runs npm ci there)"

# duck LABEL SQL: DuckDB's rows as CSV in $T/LABEL.duck.
duck() {
  run "$1.duckdb" node "$DUCK_DIR/query.mjs" --csv "$2"
  expect_rc "$1.duckdb" 0
  cp "$OUT" "$T/$1.duck"
}

# The data: 10000 records of 5 hosts (2000 values each, under the bounds;
# all 10000 together exactly at the quantile bound), 1500 users, skewed
# paths with ties; the same records as CSV for DuckDB.
LOG=$T/data.log CSV=$T/data.csv
awk 'BEGIN {
  print "host,user,lat,path" > "'"$CSV"'"
  for (i = 0; i < 10000; i++) {
    h = "h" (i * 7) % 5; u = "u" (i * 31) % 1500
    lat = sprintf("%.3f", ((i * 7919) % 100003) / 1000 - (i % 97 == 0 ? 200 : 0))
    p = "/p" ((i * i) % 23) % 9
    printf "host=%s|user=%s|lat=%s|path=%s\n", h, u, lat, p
    printf "%s,%s,%s,%s\n", h, u, lat, p > "'"$CSV"'"
  } }' >"$LOG"
need_input "$LOG" "$CSV"
SRC="read_csv('$CSV', header=true, auto_detect=false, columns={'host':'VARCHAR','user':'VARCHAR','lat':'DOUBLE','path':'VARCHAR'})"
q6() { printf "printf('%%.6f', quantile_cont(lat, %s))" "$1"; }

# top_sql KEY K [TABLE]: per KEY, its K most frequent paths "path:count"
# joined by ",", most frequent first, ties in byte order (dmap's top cell).
top_sql() {
  echo "tops AS (SELECT $1, string_agg(path || ':' || n, ',' ORDER BY n DESC, path) AS top FROM (
      SELECT $1, path, n, row_number() OVER (PARTITION BY $1 ORDER BY n DESC, path) AS rn
      FROM (SELECT $1, path, count(*) AS n FROM ${3:-t} GROUP BY $1, path)) WHERE rn <= $2 GROUP BY $1)"
}

# By host: quantiles, p0/p100, distinct users, the top 3 paths.
Q_HOST='select host, p50(lat), p90(lat), p99(lat), p0(lat), p100(lat), quantile(lat, 0.25), count(distinct user), top(path, 3) group by host logformat generickv'
SQL_HOST="WITH t AS (SELECT * FROM $SRC), $(top_sql host 3)
SELECT t.host, $(q6 0.5), $(q6 0.9), $(q6 0.99), $(q6 0), $(q6 1), $(q6 0.25),
       count(DISTINCT user), any_value(tops.top)
FROM t JOIN tops USING (host) GROUP BY t.host ORDER BY t.host"
# All 10000 values in one group: exactly the quantile bound, still exact.
Q_ALL='select p99(lat), p50(lat), p0(lat), p100(lat), count(distinct user), count(distinct path), top(path, 5) logformat generickv'
SQL_ALL="WITH t AS (SELECT * FROM $SRC), g AS (SELECT 1 AS k, * FROM t), $(top_sql k 5 g)
SELECT $(q6 0.99), $(q6 0.5), $(q6 0), $(q6 1), count(DISTINCT user), count(DISTINCT path),
       any_value(tops.top) FROM g JOIN tops USING (k)"
# By user (1500 groups: what spills), ordered by a quantile.
Q_USER='select user, p50(lat), p100(lat), count(distinct path), top(path, 2) group by user rorder by p50(lat) logformat generickv'
SQL_USER="WITH t AS (SELECT * FROM $SRC), $(top_sql user 2)
SELECT t.user, $(q6 0.5), $(q6 1), count(DISTINCT path), any_value(tops.top)
FROM t JOIN tops USING (user) GROUP BY t.user ORDER BY quantile_cont(lat, 0.5), t.user"

# check LABEL CSV ORACLE: dmap's rows (its CSV without the header) are
# DuckDB's, byte for byte.
check() {
  need_input "$2"
  tail -n +2 "$2" >"$T/$1.rows"
  expect_bytes "$1 vs DuckDB" "$T/$1.rows" "$3"
}

# local_run LABEL QUERY [FLAGS...]: serverless dmap, CSV outfile $T/LABEL.csv.
local_run() {
  local label=$1 q=$2; shift 2
  run "$label" dmap --cfg none --noColor --logLevel info "$@" --query "$q outfile $T/$label.csv" "$LOG"
  expect_rc "$label" 0
}

case $mode in
  serverless)
    duck host "$SQL_HOST"
    duck all "$SQL_ALL"
    duck user "$SQL_USER"
    local_run host "$Q_HOST"
    check host "$T/host.csv" "$T/host.duck"
    local_run all "$Q_ALL"
    check all "$T/all.csv" "$T/all.duck"
    local_run user "$Q_USER"
    check user "$T/user.csv" "$T/user.duck"
    grep -q 'approximate' "$T"/*.err && fail "a note of estimates under the bounds: $(grep -h approximate "$T"/*.err)"
    # the values of the issue: p99{1,2}, p90 and p99 of 1..10, p99{0,0,0,10}
    printf 'g=a|v=1\ng=a|v=2\n' >"$T/i.log"
    for v in 1 2 3 4 5 6 7 8 9 10; do echo "g=b|v=$v"; done >>"$T/i.log"
    printf 'g=c|v=0\ng=c|v=0\ng=c|v=0\ng=c|v=10\n' >>"$T/i.log"
    run issue dmap --cfg none --plain --query 'select g, p99(v), p90(v), p0(v), p100(v) group by g logformat generickv outfile -' "$T/i.log"
    expect_rc issue 0
    printf 'g,p99(v),p90(v),p0(v),p100(v)\na,1.990000,1.900000,1.000000,2.000000\nb,9.910000,9.100000,1.000000,10.000000\nc,9.700000,7.000000,0.000000,10.000000\n' >"$T/issue.want"
    expect_bytes "the issue's quantiles" "$OUT" "$T/issue.want"
    ;;
  fanout)
    . "$(dirname "$0")/server_lib.sh"
    . "$(dirname "$0")/fanout_lib.sh"
    # The servers spill too: 256K for their group tables.
    SERVER_CFG_EXTRA='"MapMemoryLimit": "256K"'
    fanout_start_n 3
    # server i holds the i-th third of the records, under one name
    awk -v srv="$SRV" '{ line[NR] = $0 } END { for (i = 0; i < 3; i++) {
        f = srv "/s" i "/data.log"
        for (r = 1 + int(NR * i / 3); r <= int(NR * (i + 1) / 3); r++) print line[r] > f
        close(f) } }' "$LOG"
    chmod 644 "$SRV"/s*/data.log
    for c in host all user; do
      sql=SQL_${c^^} qv=Q_${c^^}
      duck "$c" "${!sql}"
      q=${!qv}
      local_run "$c.local" "$q"
      run "$c.three" dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel info --memory-limit 256K \
        --servers "$(fanout_list)" --query "$q outfile $T/$c.three.csv" --files data.log
      expect_rc "$c.three" 0
      expect_bytes "$c: three servers vs serverless" "$T/$c.three.csv" "$T/$c.local.csv"
      check "$c.three" "$T/$c.three.csv" "$T/$c.duck"
    done
    grep -q 'spill|.*merged result' "$T/user.three.err" || fail "the client did not spill the merge under 256K"
    poll 30 grep -qsF "Map spilled|" "${FANOUT_LOGS[@]}" || fail "no dserver spilled under MapMemoryLimit 256K"
    ;;
  spill)
    duck user "$SQL_USER"
    duck host "$SQL_HOST"
    SPILL_TMP=$T/tmp
    mkdir -p "$SPILL_TMP"
    for c in user host; do
      qv=Q_${c^^}
      q=${!qv}
      local_run "$c.mem" "$q"
      grep -q 'spill|' "$ERR" && fail "$c.mem: spilled without a limit"
      TMPDIR=$SPILL_TMP local_run "$c.spill" "$q" --memory-limit 256K
      expect_bytes "$c: spilled vs in memory" "$T/$c.spill.csv" "$T/$c.mem.csv"
      check "$c.spill" "$T/$c.spill.csv" "$T/$c.duck"
    done
    grep -q 'INFO|spill|' "$T/user.spill.err" || fail "user.spill: nothing spilled under 256K"
    # without order by: the rows stream from the merge
    q='select user, p99(lat), count(distinct path), top(path, 1) group by user logformat generickv'
    local_run nosort.mem "$q"
    TMPDIR=$SPILL_TMP local_run nosort.spill "$q" --memory-limit 256K
    grep -q 'INFO|spill|' "$ERR" || fail "nosort.spill: nothing spilled under 256K"
    expect_bytes "unordered: spilled vs in memory" "$T/nosort.spill.csv" "$T/nosort.mem.csv"
    ;;
  approx)
    # 30000 values in one group: past the quantile and distinct bounds, and
    # 30000 distinct paths past top's
    awk 'BEGIN { print "v,u" > "'"$T/big.csv"'"
      for (i = 0; i < 30000; i++) { v = (i * 7919) % 30011 / 10; u = "x" (i * 13) % 25000
        printf "v=%s|u=%s|p=/%d\n", v, u, i; printf "%s,%s\n", v, u > "'"$T/big.csv"'" } }' >"$T/big.log"
    need_input "$T/big.log"
    BIG="read_csv('$T/big.csv', header=true, auto_detect=false, columns={'v':'DOUBLE','u':'VARCHAR'})"
    duck big "SELECT quantile_cont(v, 0.5), quantile_cont(v, 0.99), count(DISTINCT u), min(v), max(v) FROM $BIG"
    IFS=, read -r p50 p99 nd lo hi <"$T/big.duck"
    q='select p50(v), p99(v), count(distinct u), p0(v), p100(v), top(p, 2) logformat generickv'
    run big dmap --cfg none --plain --query "$q outfile $T/big.csv.out" "$T/big.log"
    expect_rc big 0
    expect_contains "the note" "$ERR" "dmap: note: approximate result: p50(v) is approximate in 1 row (more than 10000 values: a DDSketch, within 1% of the true value)"
    expect_contains "the note" "$ERR" "count(distinct,u) is approximate in 1 row (more than 10000 distinct values: HyperLogLog, standard error 0.81%)"
    expect_contains "the note" "$ERR" "top(p,2) is approximate"
    grep -q 'p0(v)\|p100(v)' "$ERR" && fail "p0 and p100 are exact, yet noted: $(cat "$ERR")"
    IFS=, read -r g50 g99 gnd g0 g100 _ < <(tail -n 1 "$T/big.csv.out")
    awk -v g="$g50" -v w="$p50" -v g2="$g99" -v w2="$p99" -v n="$gnd" -v nw="$nd" \
        -v g0="$g0" -v lo="$lo" -v g100="$g100" -v hi="$hi" 'BEGIN {
      bad = ""
      if ((g - w) / w > 0.01 || (w - g) / w > 0.01) bad = bad " p50 " g " vs exact " w
      if ((g2 - w2) / w2 > 0.01 || (w2 - g2) / w2 > 0.01) bad = bad " p99 " g2 " vs exact " w2
      if ((n - nw) / nw > 0.0243 || (nw - n) / nw > 0.0243) bad = bad " distinct " n " vs " nw " (3 sigma: 2.43%)"
      if (g0 + 0 != lo + 0 || g100 + 0 != hi + 0) bad = bad " p0/p100 " g0 "/" g100 " vs " lo "/" hi
      if (bad != "") { print bad; exit 1 } }' >"$T/err.txt" || fail "estimates out of their bounds:$(cat "$T/err.txt")"
    # SQLite: the flags beside the values; exact results flag 0
    run bigsql dmap --cfg none --plain --query "$q outfile $T/big.sqlite" "$T/big.log"
    expect_rc bigsql 0
    run flags sqlite3 "$T/big.sqlite" 'SELECT "p50(v)_approx", "p99(v)_approx", "count(distinct,u)_approx", "p0(v)_approx", "p100(v)_approx", "top(p,2)_approx" FROM result'
    printf '1|1|1|0|0|1\n' >"$T/flags.want"
    expect_bytes "SQLite _approx flags past the bounds" "$OUT" "$T/flags.want"
    run small dmap --cfg none --plain --query 'select host, p50(lat), count(distinct user), top(path, 1) group by host logformat generickv outfile '"$T/small.sqlite" "$LOG"
    expect_rc small 0
    grep -q approximate "$ERR" && fail "a note under the bounds: $(cat "$ERR")"
    run flags0 sqlite3 "$T/small.sqlite" 'SELECT sum("p50(lat)_approx") + sum("count(distinct,user)_approx") + sum("top(path,1)_approx"), count(*), typeof("count(distinct,user)"), typeof("top(path,1)") FROM result'
    printf '0|5|integer|text\n' >"$T/flags0.want"
    expect_bytes "SQLite _approx flags under the bounds" "$OUT" "$T/flags0.want"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
