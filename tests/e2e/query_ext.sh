# The query language's extensions (issue 18; docs/query-language.md,
# Extensions) through the real dmap: boolean where (or, not, parentheses,
# in, matches), having, arithmetic in select, set, where and having,
# string escapes, division by zero, and the errors of every new keyword.
# Results are checked against DuckDB (tests/support/duckdb/kv_oracle.mjs) over
# a generated generickv log, serverless and through a real dserver, whose
# CSVs must be byte for byte the serverless ones.
# Usage: bash query_ext.sh oracle|server|divzero|escapes|errors|selct|dtail_dialect
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
ORACLE_JS=$(dirname "$0")/../support/duckdb/kv_oracle.mjs
COLS=host,status,bytes,ms,method,path,agent,note,total

# gen FILE: 6000 deterministic generickv lines. Some keys are missing
# (status, bytes, agent), some bytes are no number, web4's total is always
# 0 (a group sum to divide by), agents hold double quotes, notes a
# backslash or a tab, paths a '?'.
gen() {
  awk 'function rnd(m) { s = (s * 69069 + 1) % 4294967296; return int(s / 65536) % m }
  BEGIN {
    s = 42
    split("200 200 200 301 404 500", st, " ")
    split("GET POST PUT DELETE", me, " ")
    split("/api/users /api/orders?id=7 /static/app.css /health /api/users/42", pa, " ")
    split("0 25 5 75", fr, " ")
    for (i = 0; i < 6000; i++) {
      h = i % 5
      line = "host=web" h
      if (rnd(20)) line = line "|status=" st[rnd(6) + 1]
      b = rnd(30)
      if (b == 0) line = line "|bytes=n/a"
      else if (b != 1) line = line "|bytes=" (rnd(1000) * 100 + rnd(100))
      line = line "|ms=" rnd(500) "." fr[rnd(4) + 1]
      line = line "|method=" me[rnd(4) + 1] "|path=" pa[rnd(5) + 1]
      a = rnd(7)
      if (a == 0) line = line "|agent=\"Mozilla/5.0\" (X11)"
      else if (a < 5) line = line "|agent=curl/7." rnd(90)
      n = rnd(4)
      if (n == 0) line = line "|note=C:\\tmp\\x"
      else if (n == 1) line = line "|note=a\tb"
      else line = line "|note=plain"
      line = line "|total=" (h == 4 ? 0 : rnd(50))
      print line
    }
  }' >"$1"
}

DATA=$T/data.log
gen "$DATA"
need_input "$DATA"

# The queries, each with its DuckDB SQL (t's columns are VARCHAR; NUM(x)
# is TRY_CAST(x AS DOUBLE): what a numeric comparison or aggregate reads,
# NULL when the field is missing or no number). Rows in group-key order,
# as dmap writes them without order by.
NUMSQL() { printf 'TRY_CAST(%s AS DOUBLE)' "$1"; }
F() { printf "printf('%%f', %s)" "$1"; }
QS=() SQLS=()
add() { QS+=("$1 logformat generickv"); SQLS+=("$2"); }
add 'select host, count($line) where status == 404 or status == 500 and method eq "GET" group by host' \
    "SELECT host, count(*) FROM t WHERE $(NUMSQL status) = 404 OR ($(NUMSQL status) = 500 AND method = 'GET') GROUP BY host ORDER BY host"
add 'select host, count($line), sum(bytes) where not (method eq "GET" or method eq "PUT") bytes > 50000 group by host' \
    "SELECT host, count(*), $(F "sum($(NUMSQL bytes))") FROM t WHERE NOT (method = 'GET' OR method = 'PUT') AND $(NUMSQL bytes) > 50000 GROUP BY host ORDER BY host"
add 'select method, count($line) where status in (200, 301) and path not in ("/health", "/static/app.css") group by method' \
    "SELECT method, count(*) FROM t WHERE status IN ('200', '301') AND path NOT IN ('/health', '/static/app.css') GROUP BY method ORDER BY method"
add 'select method, count($line), avg(ms) where path matches "^/api/(users|orders)" agent nmatches "curl" group by method' \
    "SELECT method, count(*), $(F "avg($(NUMSQL ms))") FROM t WHERE regexp_matches(path, '^/api/(users|orders)') AND NOT regexp_matches(agent, 'curl') GROUP BY method ORDER BY method"
add 'select count($line) where not status == 200 or bytes > 99000' \
    "SELECT count(*) FROM t WHERE NOT ($(NUMSQL status) = 200) OR $(NUMSQL bytes) > 99000"
add 'select host, method, count($line), sum(bytes) group by host, method having count($line) > 300 and sum(bytes) > 14000000 or method eq "DELETE"' \
    "SELECT host, method, count(*), $(F "sum($(NUMSQL bytes))") FROM t GROUP BY host, method HAVING count(*) > 300 AND sum($(NUMSQL bytes)) > 14000000 OR method = 'DELETE' ORDER BY host || ',' || method"
add 'select host, sum(bytes)/1024, count($line)*100/sum(total), avg(ms)*2 - 1, (max(ms) - min(ms)) / 2 group by host' \
    "SELECT host, $(F "sum($(NUMSQL bytes))/1024"), CASE WHEN sum($(NUMSQL total)) = 0 THEN NULL ELSE $(F "count(*)*100/sum($(NUMSQL total))") END, $(F "avg($(NUMSQL ms))*2-1"), $(F "(max($(NUMSQL ms)) - min($(NUMSQL ms))) / 2") FROM t GROUP BY host ORDER BY host"
add 'select host, count($line), sum($kb) set $kb = bytes / 1024 where bytes * 2 > 100000 group by host' \
    "SELECT host, count(*), $(F "sum($(NUMSQL bytes) / 1024)") FROM t WHERE $(NUMSQL bytes) * 2 > 100000 GROUP BY host ORDER BY host"
add 'select host, method, sum(bytes)/count($line) group by host, method having sum(bytes)/count($line) > 46000 order by sum(bytes)/count($line) limit 5' \
    "SELECT host, method, $(F "sum($(NUMSQL bytes))/count(*)") FROM t GROUP BY host, method HAVING sum($(NUMSQL bytes))/count(*) > 46000 ORDER BY sum($(NUMSQL bytes))/count(*) DESC, host || ',' || method LIMIT 5"
add 'select count($line), sum(bytes) where agent contains "\"Mozilla" or note contains "\\tmp\\"' \
    "SELECT count(*), $(F "sum($(NUMSQL bytes))") FROM t WHERE contains(agent, '\"Mozilla') OR contains(note, '\\tmp\\')"
add 'select count($line) where note eq "a\tb" or agent matches "\x22Moz" and path matches "\\?id="' \
    "SELECT count(*) FROM t WHERE note = 'a' || chr(9) || 'b' OR (regexp_matches(agent, '\"Moz') AND regexp_matches(path, '\\?id='))"

# duck DIR: DuckDB's answer to every query, DIR/N.csv.
duck() {
  mkdir -p "$1"
  command -v node >/dev/null || skip "node is not installed: DuckDB is the oracle (apt-get install nodejs npm)"
  run duckdb timeout 120 node "$ORACLE_JS" --kv "$DATA" --columns "$COLS" --out "$1" "${SQLS[@]}"
  [ "$RC" -eq 77 ] && die "@duckdb/node-api is not installed in tests/support/duckdb (scripts/deps.sh runs npm ci there)"
  expect_rc duckdb 0
  [ "$RC" -eq 0 ] || die "the DuckDB oracle failed"
}

# rows CSV: the rows of a dmap CSV outfile (its header is checked apart).
rows() { tail -n +2 "$1"; }

# the header dmap must write for query i: the select items' canonical names
header_of() {
  case $1 in
    6) echo 'host,sum(bytes)/1024,count($line)*100/sum(total),avg(ms)*2-1,(max(ms)-min(ms))/2' ;;
    8) echo 'host,method,sum(bytes)/count($line)' ;;
    *) echo '' ;;
  esac
}

check_all() { # WHERE(local|server): every query's rows against DuckDB
  local where=$1 i n=${#QS[@]} h
  for ((i = 0; i < n; i++)); do
    if [ "$where" = local ]; then
      run "q$i.local" dmap --cfg none --logLevel warn --query "${QS[$i]} outfile $T/q$i.local.csv" "$DATA"
    else
      run "q$i.server" dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel warn \
        --query "${QS[$i]} outfile $T/q$i.server.csv" --files "$DATA"
    fi
    expect_rc "q$i.$where" 0
    [ -f "$T/q$i.$where.csv" ] || { fail "q$i ($where): no CSV: ${QS[$i]}"; continue; }
    rows "$T/q$i.$where.csv" >"$T/q$i.$where.rows"
    [ -s "$T/duck/$((i + 1)).csv" ] || fail "q$i: DuckDB selected nothing: ${SQLS[$i]}"
    expect_bytes "q$i ($where) vs DuckDB: ${QS[$i]}" "$T/q$i.$where.rows" "$T/duck/$((i + 1)).csv"
    h=$(header_of "$i")
    [ -z "$h" ] || [ "$(head -n 1 "$T/q$i.$where.csv")" = "$h" ] ||
      fail "q$i ($where): header $(head -n 1 "$T/q$i.$where.csv"), want $h"
  done
}

case $mode in
oracle)
  duck "$T/duck"
  check_all local
  ;;
server)
  . "$(dirname "$0")/server_lib.sh"
  chmod 644 "$DATA"
  duck "$T/duck"
  server_setup
  server_start
  check_all local
  check_all server
  # The same bytes, header included, either way.
  for ((i = 0; i < ${#QS[@]}; i++)); do
    [ -f "$T/q$i.server.csv" ] && expect_bytes "q$i server = serverless" "$T/q$i.server.csv" "$T/q$i.local.csv"
  done
  server_stop
  ;;
divzero)
  # An arithmetic column dividing by a group's zero sum: an empty cell,
  # counted in the summary line and warned about; per line (set), a
  # missing value, counted too. The same through a dserver.
  . "$(dirname "$0")/server_lib.sh"
  chmod 644 "$DATA"
  Q='select host, count($line)*100/sum(total) group by host logformat generickv'
  run dz dmap --cfg none --query "$Q outfile $T/dz.csv" "$DATA"
  expect_rc dz 0
  [ "$(grep '^web4,' "$T/dz.csv")" = "web4," ] || fail "divzero: web4's cell is not empty: $(grep '^web4' "$T/dz.csv")"
  [ "$(grep -c '^web[0-3],[0-9]' "$T/dz.csv")" -eq 4 ] || fail "divzero: the other groups lost their values"
  expect_contains "divzero summary" "$ERR" "5 groups, 1 divided by zero,"
  expect_contains "divzero warning" "$ERR" "dmap: warning: 1 division by zero:"
  # per line: every line with a numeric bytes and a total of 0 divides by
  # zero (all of web4's, and a few more)
  want=$(awk -F'|' '{ b = t = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^bytes=/) b = substr($i, 7); if ($i ~ /^total=/) t = substr($i, 7) }
                     if (b ~ /^[0-9]+$/ && t == "0") n++ } END { print n + 0 }' "$DATA")
  [ "$want" -gt 1000 ] || die "only $want lines divide by zero"
  Q2='select host, sum($r), count($r) set $r = bytes / total group by host logformat generickv'
  run dzl dmap --cfg none --query "$Q2 outfile $T/dzl.csv" "$DATA"
  expect_rc dzl 0
  expect_contains "per-line divzero summary" "$ERR" "$want divided by zero,"
  [ "$(grep '^web4,' "$T/dzl.csv")" = "web4,,0" ] || fail "divzero per line: web4 is $(grep '^web4' "$T/dzl.csv")"
  server_setup
  server_start
  run dzs dmap "${SERVER_CLIENT_FLAGS[@]}" --query "$Q outfile $T/dzs.csv" --files "$DATA"
  expect_rc dzs 0
  expect_bytes "divzero through the server" "$T/dzs.csv" "$T/dz.csv"
  expect_contains "divzero warning through the server" "$ERR" "dmap: warning: 1 division by zero:"
  run dzls dmap "${SERVER_CLIENT_FLAGS[@]}" --query "$Q2 outfile $T/dzls.csv" --files "$DATA"
  expect_rc dzls 0
  expect_bytes "per-line divzero through the server" "$T/dzls.csv" "$T/dzl.csv"
  expect_contains "per-line divzero counted on the server" "$ERR" "dmap: warning: $want divisions by zero:"
  server_stop
  ;;
escapes)
  # \" \\ \t \n \xNN in "strings": a regex for a quoted field needs no
  # undocumented \x22 any more; unknown escapes (\d) stay for the regex.
  printf 'GET "/a b" 200 12ms\nGET "/c" 404 7ms\nx\\y\ttab\n' >"$T/esc.log"
  e() { # LABEL WHERE WANTED-COUNT
    run "$1" dmap --cfg none --query "select count(\$line) where $2" "$T/esc.log"
    expect_rc "$1" 0
    expect_contains "$1: $2" "$OUT" " $3 "
  }
  e quote '$line contains "\"/a b\""' 1
  e x22 '$line matches "\x22/c\x22"' 1
  e regex_d '$line matches "\"[^\"]*\" \d+ \d+ms"' 2
  e backslash '$line hasprefix "x\\y"' 1
  e tab '$line hassuffix "\ttab"' 1
  e xhex '$line contains "\x79\x09"' 1
  ;;
errors)
  # Every new keyword misused: exit 2 before reading input, with the
  # message and a caret under the place.
  err() { # LABEL QUERY MESSAGE
    RUN_STDIN=/dev/zero RUN_TIMEOUT=5 run "$1" dmap --cfg none --query "$2"
    expect_rc "$1" 2
    expect_contains "$1" "$ERR" "$3"
    grep -q '^ *\^$' "$ERR" || fail "$1: no caret line"
  }
  err or_end 'select count($line) where a > 1 or' 'incomplete where condition before the end of the query'
  err or_start 'select count($line) where or a > 1' "unexpected '>' in where clause"
  err not_end 'select count($line) where not' 'incomplete where condition: not needs a condition after it'
  err in_empty 'select count($line) where a in ()' 'empty list after in'
  err in_field 'select count($line) where a in (b)' "the list of in holds \"quoted\" strings and numbers; 'b' is not one"
  err in_set 'select $x set $x in ("a")' "unknown operator 'in' in set clause"
  err in_noparen 'select count($line) where a in "x"' 'in takes a list in parentheses'
  err not_value 'select count($line) where a not "x"' "'not' between two values must be 'not in (...)'"
  err matches_word 'select count($line) where a matches b' 'matches takes a "quoted" regular expression'
  err matches_bad 'select count($line) where a matches "(x"' 'invalid regex in matches: missing closing parenthesis'
  err nmatches_word 'select count($line) where a nmatches 3' 'nmatches takes a "quoted" regular expression'
  err having_empty 'select count($line) group by a having' 'having needs a condition on the groups'
  err having_agg_where 'select count($line) where count($line) > 1' 'having tests the groups'
  err having_order 'select count($line) group by a having x > 1 order by sum(b)' 'order by sum(b): the column must be in the select clause'
  err arith_string 'select sum(a) / "2"' "arithmetic '/' on the quoted string \"2\""
  err arith_end 'select sum(a) /' "incomplete arithmetic: '/' needs a value after it"
  err arith_word 'select avg(ms)*2-1 group by x' "'2-1' is one word, a field name: write 2 - 1, with spaces, for arithmetic"
  err arith_nested 'select sum(count(a)) / 2' 'aggregate count() can only be a select item'
  err arith_set_agg 'select $x set $x = sum(a) * 2' 'aggregate sum() can only be a select item, not part of set'
  err escape_hex 'select count($line) where a eq "\xZ1"' '\x needs two hex digits'
  err escape_nul 'select count($line) where a eq "\x00"' 'a string cannot hold a NUL byte'
  err escape_open 'select count($line) where a eq "x\"' 'unterminated string'
  ;;
spill)
  # Arithmetic columns and having over a spilled result (--memory-limit):
  # the same rows as in memory, in key order, ordered by an arithmetic
  # column with a limit, and the terminal's first rows.
  awk 'BEGIN { for (i = 0; i < 240000; i++) {
    k = (i * 7919) % 80021; v = (i * 31) % 1000
    printf "id=g%d|v=%d.%d\n", k, v, (i % 4) * 25 } }' >"$T/many.log"
  S='select id, sum(v)/count($line), count($line)*2 - 1 group by id having count($line) >= 3 and sum(v) > 1500 logformat generickv'
  mkdir -p "$T/tmp"
  for q in "$S" "$S order by sum(v)/count(\$line) limit 100" "$S rorder by count(\$line)*2 - 1"; do
    n=$((${n:-0} + 1))
    run "mem$n" dmap --cfg none --query "$q outfile $T/mem$n.csv" "$T/many.log"
    expect_rc "mem$n" 0
    run "spill$n" env TMPDIR="$T/tmp" "$DTAIL_BIN/dmap" --cfg none --logLevel info --memory-limit 256K \
      --query "$q outfile $T/spill$n.csv" "$T/many.log"
    expect_rc "spill$n" 0
    grep -q 'INFO|spill|' "$ERR" || fail "spill$n: nothing spilled under 256K"
    [ "$(wc -l <"$T/mem$n.csv")" -gt 50 ] || fail "mem$n: having kept almost nothing"
    expect_bytes "spilled = in memory: $q" "$T/spill$n.csv" "$T/mem$n.csv"
  done
  run tmem dmap --cfg none --query "$S" "$T/many.log"
  run tspill env TMPDIR="$T/tmp" "$DTAIL_BIN/dmap" --cfg none --memory-limit 256K --query "$S" "$T/many.log"
  expect_bytes "terminal table spilled = in memory" "$T/tspill.out" "$T/tmem.out"
  expect_lines "terminal table" "$T/tmem.out" 12
  ;;
selct)
  # A misspelt query without --query is that query's error, not "No
  # mapreduce query specified" (DTail finds the query by "select ").
  run selct dmap --cfg none 'selct count($line) from STATS' "$DATA"
  expect_rc selct 2
  expect_contains selct "$ERR" "unknown clause word 'selct'; did you mean select?"
  grep -q '^\^$' "$ERR" || fail "selct: no caret under the word"
  run slect dmap --cfg none 'from STATS slect count($line)' "$DATA"
  expect_rc slect 2
  expect_contains slect "$ERR" "unknown clause word 'slect'; did you mean select?"
  # Only a file argument: still the usage error.
  run nq dmap --cfg none "$DATA"
  expect_rc nq 2
  expect_contains nq "$ERR" "No mapreduce query specified"
  # A file whose name looks like a query is still a file.
  cp "$DATA" "$T/selct x"
  (cd "$T" && run file dmap --cfg none 'selct x')
  grep -q "unknown clause word" "$T/file.err" && fail "the file 'selct x' was read as a query"
  expect_contains file "$T/file.err" "No mapreduce query specified"
  ;;
*)
  die "unknown mode $mode"
  ;;
esac
finish
