# The generated differential test of the query language (issue 18):
# query_diff.py writes, from a fixed seed, CSV and JSON logs with nulls,
# missing fields, non-numbers and ties, and 70-odd queries using every
# construct (or, not, parentheses, in, matches, having, arithmetic in
# select, set, where and having, division by zero, count(distinct), top,
# exact and approximate quantiles, escapes, order by and limit), each with
# the SQL that encodes dmap's documented semantics.
#   oracle  every query through serverless dmap, its CSV against DuckDB's
#           rows (tests/support/duckdb/query.mjs --batch over the same
#           files: read_csv, read_ndjson_objects), numbers to 1e-9
#           relative, quantiles and distinct counts exactly while exact,
#           within their stated bounds beyond
#   fanout  every query serverless, through one dserver and through three
#           holding a three-way split of each file: the same bytes
#           (fanout_lib.sh's fanout_query, as differential.sh)
# Usage: query_diff.sh oracle|fanout
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
command -v python3 >/dev/null || skip "python3 is not installed: it generates the queries"
GEN=$(dirname "$0")/query_diff.py
IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN"
python3 "$GEN" gen "$IN" >"$T/gen.out" 2>&1 || die "query_diff.py gen failed: $(cat "$T/gen.out")"
note "$(cat "$T/gen.out")"
need_input "$IN/web.csv" "$IN/ev.json" "$IN/big.csv" "$IN/cases.tsv"
chmod 644 "$IN"/*

case $mode in
oracle)
  DUCK_DIR=$(cd "$(dirname "$0")/../support/duckdb" && pwd)
  command -v node >/dev/null || skip "node is not installed: DuckDB is the oracle (scripts/deps.sh installs it)"
  [ -d "$DUCK_DIR/node_modules/@duckdb/node-api" ] ||
    skip "@duckdb/node-api is not installed in $DUCK_DIR (scripts/deps.sh runs npm ci there)"
  run duckdb node "$DUCK_DIR/query.mjs" --batch "$IN/duck.sql"
  expect_rc duckdb 0
  cp "$OUT" "$IN/duck.jsonl"
  mkdir -p "$IN/out"
  while IFS=$'\t' read -r i file q; do
    run "q$i" dmap --cfg none --logLevel error --query "$q outfile $IN/out/$i.csv" "$IN/$file"
    expect_rc "q$i: $q" 0
  done <"$IN/cases.tsv"
  run check python3 "$GEN" check "$IN"
  cat "$OUT" >&2
  [ "$RC" -eq 0 ] || fail "dmap and DuckDB differ (above)"
  ;;
fanout)
  . "$(dirname "$0")/server_lib.sh"
  . "$(dirname "$0")/fanout_lib.sh"
  fanout_start_n 4   # servers 0..2 hold the thirds, server 3 the whole input
  fanout_place "$IN" web.csv 1
  fanout_place "$IN" big.csv 1
  fanout_place "$IN" ev.json
  FANOUT_EXACT=1
  while IFS=$'\t' read -r i file q; do
    fanout_query "q$i" "$file" "$q"
  done <"$IN/cases.tsv"
  fanout_stop_all
  note "$FANOUT_CASES queries, the same bytes serverless, through one dserver and through three"
  ;;
*) die "unknown mode $mode" ;;
esac
finish
