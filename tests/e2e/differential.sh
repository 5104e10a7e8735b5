# The one run path, shown from the outside: every query runs serverless,
# through one dserver holding the whole input, and through three dservers
# holding a three-way split of it (contiguous thirds, each server its own
# part under the same relative name), and the three outputs must be the
# same bytes (sorted rows where the query has no order by). The queries: the
# project's query tests that run on data, DTail's compat queries (with
# ../shared), and generated ones over every log format. Lines too: dcat and
# dgrep (patterns, -i, --invert, context, --max) the same three ways.
# Usage: differential.sh map|lines
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/fanout_lib.sh"
mode=${1:?mode}
need_bin dcat dgrep dmap
# One host name everywhere: $hostname is a group key of several queries.
export DTAIL_HOSTNAME_OVERRIDE=difftest

fanout_start_n 4   # servers 0..2 hold the thirds, server 3 the whole input
ONE=${FANOUT_SERVERS[3]}
THREE="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN"

place() { fanout_place "$IN" "$@"; }

# query LABEL FILE QUERY: fanout_lib.sh's fanout_query over $IN.
query() { fanout_query "$@"; }

# lines LABEL TOOL FILE ARGS...: the lines the three runs print, as
# multisets (three servers interleave), and one server's in order.
lines() {
  local label=$1 tool=$2 file=$3; shift 3
  FANOUT_CASES=$((FANOUT_CASES + 1))
  run "$label.local" "$tool" --cfg none --plain "$@" "$IN/$file"
  expect_rc "$label.local" 0
  cp "$OUT" "$T/$label.local.txt"
  run "$label.one" "$tool" "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "$ONE" "$@" --files "$file"
  expect_rc "$label.one" 0
  expect_bytes "$label: one server vs serverless: $tool $*" "$OUT" "$T/$label.local.txt"
  [ "${ONE_ONLY:-0}" = 0 ] || return 0
  run "$label.three" "$tool" "${SERVER_CLIENT_FLAGS[@]}" --plain --servers "$THREE" "$@" --files "$file"
  expect_rc "$label.three" 0
  expect_multiset "$label: three servers vs serverless: $tool $*" "$OUT" "$T/$label.local.txt"
}

# The inputs, deterministic: DTail STATS lines, key=value lines, CSV, JSON
# and plain text. Integer values only: a sum is then exact whatever order
# partial sums are added in.
awk 'BEGIN { srand(7); for (i = 0; i < 6000; i++) {
  g = int(rand() * 9); v = int(rand() * 10000); c = int(rand() * 5)
  printf "INFO|1002-0711%02d|1|stats.go:56|%d|13|7|0.21|471h0m21s|MAPREDUCE:STATS|grp=g%d|lat=%d|currentConnections=%d|lifetimeConnections=%d\n", i % 60, 8 + g, g, v, c, i % 11 } }' >"$IN/stats.log"
awk 'BEGIN { srand(11); for (i = 0; i < 5000; i++)
  printf "id=u%d|v=%d|k=%s|s=%s\n", i, int(rand() * 1000), substr("abcdefg", int(rand() * 7) + 1, 1), (i % 3 ? "ok" : "fail") }' >"$IN/kv.log"
{ echo "name,age,city"
  awk 'BEGIN { srand(13); for (i = 0; i < 4000; i++)
    printf "n%d,%d,%s\n", i, 18 + int(rand() * 60), (rand() < 0.5 ? "Berlin" : (rand() < 0.5 ? "\"Paris, FR\"" : "Oslo")) }'; } >"$IN/people.csv"
awk 'BEGIN { srand(17); for (i = 0; i < 4000; i++)
  printf "{\"level\":\"%s\",\"req\":{\"user\":{\"id\":%d},\"ms\":%d},\"tags\":[\"a\"]}\n", (i % 4 ? "INFO" : "WARN"), int(rand() * 50), int(rand() * 900) }' >"$IN/events.json"
awk 'BEGIN { srand(19); for (i = 0; i < 8000; i++)
  printf "%s line %d: Server %s at %d ms\n", (i % 5 ? "INFO" : "ERROR"), i, (i % 7 ? "ok" : "DOWN"), int(rand() * 1000) }' >"$IN/app.log"
chmod 644 "$IN"/*
for f in stats.log kv.log events.json app.log; do place "$f"; done
place people.csv 1

case $mode in
map)
  S='from STATS select'
  K='logformat generickv'
  # Generated queries over every log format.
  query st_all stats.log "$S count(\$line),sum(lat),min(lat),max(lat),avg(lat),grp group by grp"
  query st_where stats.log "$S count(\$line),sum(lat),grp group by grp where lat > 5000"
  query st_two stats.log "$S count(\$line),max(currentConnections),grp,lifetimeConnections group by grp, lifetimeConnections"
  query st_order stats.log "$S sum(lat),grp group by grp order by sum(lat) limit 4"
  query st_rorder stats.log "$S count(\$line),grp group by grp rorder by count(\$line)"
  query st_pct stats.log "$S percentage(lat),percentile(lat),grp group by grp"
  query st_quant stats.log "$S p90(lat),quantile(lat,0.5),grp group by grp"
  query st_set stats.log "$S count(\$line),\$m group by \$m set \$m = maskdigits(\$time)"
  query st_time stats.log "$S count(\$time),\$time,max(\$goroutines),min(\$goroutines) group by \$time order by count(\$time)"
  query st_nogroup stats.log "$S count(\$line),sum(lat),avg(lat)"
  query kv_all kv.log "select count(\$line),sum(v),min(v),max(v),k group by k $K"
  query kv_two kv.log "select count(\$line),avg(v),k,s group by k, s $K"
  query kv_where kv.log "select count(\$line),k group by k where s eq \"fail\" $K"
  query kv_limit kv.log "select sum(v),k group by k order by sum(v) limit 3 $K"
  query csv_all people.csv "select count(\$line),sum(age),min(age),max(age),city group by city logformat csv"
  query csv_where people.csv "select count(\$line),city group by city where age > 40 logformat csv"
  query json_all events.json "select count(\$line),sum(req.ms),max(req.user.id),level group by level logformat json"
  query json_id events.json "select count(\$line),req.user.id group by req.user.id order by count(\$line) limit 5 logformat json"
  query gen_count app.log "select count(\$line)"
  query gen_mask app.log "select count(\$line),\$m group by \$m set \$m = maskdigits(\$line)"
  # The project's query tests (tests/query/clauses.test) that run on data.
  query qt_limit stats.log "LIMIT 3 Group \$hostname SELECT count(\$line) FROM stats Where \$goroutines => 10, lifetimeConnections =< 3 INTERVAL 0 RORDER count(\$line)"
  query qt_set stats.log "$S \$mask,\$md5,\$foo,\$bar,\$baz,count(\$line) group by \$hostname set \$mask = maskdigits(\$time), \$md5 = md5sum(\$hostname), \$foo = 42, \$bar = \"baz\", \$baz = \$hostname"
  # last() takes the last line read, and which of three servers read a
  # line last is not the file's order: through one server only.
  ONE_ONLY=1 query st_last stats.log "$S count(\$line),last(lat),grp group by grp"
  # DTail's compat queries over its own data (../shared).
  if [ -f "$COMPAT/mapr_testdata.log" ]; then
    cp "$COMPAT/mapr_testdata.log" "$IN/mapr.log" && chmod 644 "$IN/mapr.log"
    place mapr.log
    ONE_ONLY=1 query compat_1a mapr.log "$COMPAT_Q1"
    query compat_1b mapr.log "from STATS select count(\$line),avg(\$goroutines),min(concurrentConnections),max(lifetimeConnections) group by \$hostname where lifetimeConnections >= 3"
    query compat_2 mapr.log "$COMPAT_Q2"
    ONE_ONLY=1 query compat_1d mapr.log "$COMPAT_Q1D"
  else
    note "no ../shared/compat: DTail's compat queries skipped"
  fi
  ;;
lines)
  lines cat_all dcat app.log
  lines cat_json dcat events.json
  lines grep_lit dgrep app.log --grep DOWN
  lines grep_re dgrep app.log --grep '^ERROR line [0-9]+5:'
  lines grep_icase dgrep app.log -i --grep 'server down'
  lines grep_invert dgrep app.log --invert --grep INFO
  lines grep_json dgrep events.json --grep '"WARN"'
  # Context and --max count within a file: a three-way split changes
  # which lines are near a cut, so one server only.
  ONE_ONLY=1 lines grep_ctx dgrep app.log --grep DOWN --before 2 --after 1
  ONE_ONLY=1 lines grep_max dgrep app.log --grep ERROR --max 7
  ;;
*) die "unknown mode $mode" ;;
esac
fanout_stop_all
note "differential $mode: $FANOUT_CASES cases, each serverless, through one dserver and (but where noted) through three"
finish
