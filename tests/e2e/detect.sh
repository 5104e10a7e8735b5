# Log format detection: a dmap query with neither logformat nor from reads
# each file in the format its first lines are in, says which on stderr,
# and gives the result of the same query with that logformat clause
# (byte for byte, serverless and through a dserver); files of different
# formats are refused by name; plain text and DTail's lines keep today's
# meaning (generic: every line).
# Usage: bash detect.sh serverless|server
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN" || die "mkdir $IN"
{
  for i in $(seq 1 300); do
    printf '2001:db8::%x - - [01/May/2024:10:%02d:00 +0000] "GET /p%d HTTP/1.1" %s %d "-" "Mozilla/5.0 (X11; Linux x86_64) \\"q\\""\n' \
      "$i" $((i % 60)) $((i % 7)) "$( [ $((i % 5)) = 0 ] && echo 404 || echo 200)" $((i * 3))
  done
} >"$IN/access.log"
for i in $(seq 1 200); do
  printf 'time=2024-05-01T10:%02d:00Z level=%s msg="req %d done" dur=%d\n' $((i % 60)) \
    "$( [ $((i % 4)) = 0 ] && echo error || echo info)" "$i" "$i"
done >"$IN/app.logfmt"
for i in $(seq 1 100); do
  printf '{"ts":"2024-05-01T10:00:%02dZ","level":"%s","n":%d,"msg":"a, b"}\n' $((i % 60)) \
    "$( [ $((i % 3)) = 0 ] && echo warn || echo info)" "$i"
done >"$IN/app.json"
printf 'just some text\nmore text, here\n' >"$IN/plain.txt"
chmod 644 "$IN"/*

# QUERY|FILE|FORMAT: each query without logformat equals the query with
# logformat FORMAT over FILE.
CASES=(
  'select $status, count($line), sum($body_bytes_sent) group by $status|access.log|nginx'
  'select level, count($line), max(dur) group by level|app.logfmt|logfmt'
  'select level, count($line), avg(n) group by level|app.json|json'
)

case $mode in
serverless)
  n=0
  for c in "${CASES[@]}"; do
    n=$((n + 1))
    IFS='|' read -r q f fmt <<<"$c"
    run "want$n" dmap --cfg none --noColor --query "$q logformat $fmt outfile $T/want$n.csv" "$IN/$f"
    expect_rc "want$n" 0
    run "got$n" dmap --cfg none --noColor --query "$q outfile $T/got$n.csv" "$IN/$f"
    expect_rc "got$n" 0
    expect_bytes "detected $fmt for $f" "$T/got$n.csv" "$T/want$n.csv"
    expect_contains "got$n" "$ERR" "dmap: $IN/$f: detected logformat $fmt"
    [ "$(wc -l <"$T/got$n.csv")" -gt 1 ] || fail "$f: the result has no rows"
  done
  # Two files of one format: one line for the choice.
  cp "$IN/app.json" "$IN/app2.json"
  run two dmap --cfg none --noColor --query 'select count($line) outfile '"$T"'/two.csv' "$IN/app.json" "$IN/app2.json"
  expect_rc two 0
  expect_contains two "$ERR" "dmap: $IN/app.json and 1 more: detected logformat json"
  # Different formats: refused, naming both.
  run mixed dmap --cfg none --noColor --query 'select count($line)' "$IN/app.json" "$IN/access.log"
  expect_rc mixed 2
  expect_contains mixed "$ERR" "$IN/app.json is json, $IN/access.log is nginx: the files have different log formats"
  # Plain text: generic as before, and nothing said.
  run plain dmap --cfg none --noColor --query 'select count($line)' "$IN/plain.txt"
  expect_rc plain 0
  grep -q detected "$ERR" && fail "plain text: a format was announced"
  # The REPL: .schema shows the detected format and a query reads it.
  printf '.schema\nselect level, count($line) group by level outfile %s;\n' "$T/repl.csv" >"$T/repl.in"
  RUN_STDIN=$T/repl.in run repl dmap --cfg none --noColor --repl "$IN/app.logfmt"
  expect_rc repl 0
  expect_contains repl "$OUT" "log format logfmt:"
  expect_contains repl "$ERR" "dmap: $IN/app.logfmt: detected logformat logfmt"
  run replwant dmap --cfg none --noColor --query "select level, count(\$line) group by level logformat logfmt outfile $T/repl.want.csv" "$IN/app.logfmt"
  expect_bytes "REPL query reads the detected format" "$T/repl.csv" "$T/repl.want.csv"
  # A query that names its format or table is read as it says.
  run named dmap --cfg none --noColor --query 'select count($line) logformat generic' "$IN/app.json"
  grep -q detected "$ERR" && fail "logformat given: a format was detected"
  ;;
server)
  . "$(dirname "$0")/server_lib.sh"
  server_setup
  server_start
  n=0
  for c in "${CASES[@]}"; do
    n=$((n + 1))
    IFS='|' read -r q f fmt <<<"$c"
    run "local$n" dmap --cfg none --noColor --query "$q outfile $T/local$n.csv" "$IN/$f"
    expect_rc "local$n" 0
    run "srv$n" dmap "${SERVER_CLIENT_FLAGS[@]}" --query "$q outfile $T/srv$n.csv" --files "$IN/$f"
    expect_rc "srv$n" 0
    expect_bytes "through dserver: detected $fmt for $f" "$T/srv$n.csv" "$T/local$n.csv"
    expect_contains "srv$n" "$ERR" "detected logformat $fmt"
  done
  run mixed dmap "${SERVER_CLIENT_FLAGS[@]}" --query 'select count($line)' --files "$IN/app.json,$IN/access.log"
  [ "$RC" -ne 0 ] || fail "mixed formats through dserver: exit 0"
  expect_contains mixed "$ERR" "the files have different log formats"
  server_alive
  server_stop
  ;;
*) die "unknown mode $mode" ;;
esac
finish
