# output.sh MODE: results on stdout for the next program in a pipe
# (docs/dmap.md "Output on stdout"): dmap's and dtail --query's --output,
# `outfile -`, --query-file, and the REPL's .mode, .read and piped input.
#   csv|tsv|json   dmap --output FORM, serverless and through a dserver:
#                  byte-identical, parsed back (Python's json and csv), and
#                  equal to DuckDB's result of the same query on the same
#                  data (values with commas, quotes, tabs, backslashes,
#                  UTF-8; a group without numbers: null / an empty field)
#   table          --output table is the default table, the same through
#                  a dserver; machine forms print no interim tables
#   outfile_stdout `outfile -`: the CSV alone on stdout, serverless and
#                  through a dserver, the bytes of --output csv
#   query_file     --query-file FILE and -, the same result as --query
#   errors         bad --output values and the flags that conflict
#   dtail          dtail --query --output: one header, a row per group per
#                  interval (deltas), serverless and through a dserver
#   repl_mode      .mode csv|tsv|json|table on piped input
#   repl_read      .read FILE: its queries and commands, nested, a last
#                  query without ';'
#   repl_pipe      piped input: the first error ends the session with its
#                  status (2 a query error, 1 a missing file), a last query
#                  without ';' still runs, nothing but results on stdout
. "$(dirname "$0")/lib.sh"

MODE=${1:?mode}
need_bin dmap dtail
CHECK=$(dirname "$0")/output_check.py
DUCK=$(cd "$(dirname "$0")/../support/duckdb" && pwd)

# The data: generickv lines whose user values hold what CSV, TSV and JSON
# must quote or escape (a log field cannot hold a newline).
kv_data() {
  local users=('alice' 'b,ob' 'say "hi", ok' $'tab\there' 'back\slash' 'caf\xc3\xa9 \xe2\x82\xac')
  local i u
  : >"$1"
  for i in $(seq 0 41); do
    u=${users[$((i % 6))]}
    printf 'user=%b|bytes=%d|lat=%d.%02d\n' "$u" $((i * 37 % 101)) $((i % 9)) $((i * 13 % 100)) >>"$1"
  done
  # A group whose lat is never a number: avg and min have none.
  printf 'user=nobody|bytes=5|lat=n/a\nuser=nobody|bytes=7|lat=-\n' >>"$1"
}
KVQ='select user, count($line), sum(bytes), avg(lat), min(lat), max(bytes) group by user logformat generickv'

# duck_want FILE OUT: DuckDB's rows of KVQ over FILE.
duck_want() {
  [ -d "$DUCK/node_modules/@duckdb/node-api" ] ||
    die "DuckDB is not installed in $DUCK/node_modules (scripts/deps.sh runs npm ci there)"
  command -v node >/dev/null || die "node is not installed (scripts/deps.sh)"
  local sql="WITH t AS (SELECT substr(c0, 6) AS u, TRY_CAST(substr(c1, 7) AS DOUBLE) AS b,
      TRY_CAST(substr(c2, 5) AS DOUBLE) AS l
    FROM read_csv('$1', delim='|', header=false, quote='', escape='', auto_detect=false,
      columns={'c0': 'VARCHAR', 'c1': 'VARCHAR', 'c2': 'VARCHAR'}))
  SELECT u AS \"user\", count(*) AS \"count(\$line)\", sum(b) AS \"sum(bytes)\",
    avg(l) AS \"avg(lat)\", min(l) AS \"min(lat)\", max(b) AS \"max(bytes)\"
  FROM t GROUP BY u ORDER BY u"
  run duck node "$DUCK/query.mjs" "$sql"
  [ "$RC" -eq 0 ] || die "DuckDB failed: $(head -c 400 "$ERR")"
  cp "$OUT" "$2"
}

server_up() {
  . "$(dirname "$0")/server_lib.sh"
  server_setup
  server_start
}

# form_case FORM: serverless and through the server, the same bytes, and
# what a parser reads back is DuckDB's result.
form_case() {
  kv_data "$T/kv.log"
  duck_want "$T/kv.log" "$T/want.json"
  run local dmap --cfg none --output "$1" --query "$KVQ" "$T/kv.log"
  expect_rc "serverless --output $1" 0
  cp "$OUT" "$T/local.out"
  expect_contains "summary on stderr" "$ERR" "dmap: 44 lines read"
  run_sh check "python3 '$CHECK' '$1' '$T/local.out' '$T/want.json'"
  [ "$RC" -eq 0 ] || fail "serverless --output $1 disagrees with DuckDB: $(cat "$ERR")"
  server_up
  run remote dmap "${SERVER_CLIENT_FLAGS[@]}" --files "$T/kv.log" --output "$1" --query "$KVQ"
  expect_rc "--output $1 through dserver" 0
  expect_bytes "--output $1 through dserver" "$OUT" "$T/local.out"
  server_stop
}

case $MODE in
  csv|tsv|json)
    form_case "$MODE"
    ;;
  table)
    kv_data "$T/kv.log"
    run dflt dmap --cfg none --query "$KVQ" "$T/kv.log"
    run tbl dmap --cfg none --output table --query "$KVQ" "$T/kv.log"
    expect_rc "--output table" 0
    expect_bytes "--output table is the default" "$T/tbl.out" "$T/dflt.out"
    expect_contains "a table" "$T/tbl.out" "------|"
    # An interval asks for interim tables; the machine forms print the
    # final result alone, and say so.
    run iv dmap --cfg none --output json --query "$KVQ interval 1" "$T/kv.log"
    expect_rc "json with interval" 0
    [ "$(wc -l <"$OUT")" -eq 7 ] || fail "json with interval: $(wc -l <"$OUT") lines, want 7 rows"
    expect_contains "interval warning" "$ERR" "with -output json only the final result is printed"
    # 12 groups: the table shows 10 and says so; csv shows all, no note.
    for i in $(seq 1 12); do echo "user=u$i|bytes=1"; done >"$T/many.log"
    MQ='select user, count($line) group by user logformat generickv'
    run m10 dmap --cfg none --query "$MQ" "$T/many.log"
    expect_contains "table limit note" "$ERR" "Got 12 results but limited terminal output to 10 rows"
    run mall dmap --cfg none --output csv --query "$MQ" "$T/many.log"
    [ "$(wc -l <"$OUT")" -eq 13 ] || fail "csv of 12 groups: $(wc -l <"$OUT") lines, want 13"
    grep -q "Got 12 results" "$ERR" && fail "csv: the table's limit note on stderr"
    server_up
    run remote dmap "${SERVER_CLIENT_FLAGS[@]}" --files "$T/kv.log" --output table --query "$KVQ"
    expect_rc "--output table through dserver" 0
    expect_bytes "--output table through dserver" "$OUT" "$T/dflt.out"
    run remote_all dmap "${SERVER_CLIENT_FLAGS[@]}" --files "$T/many.log" --output csv --query "$MQ"
    expect_bytes "csv of 12 groups through dserver" "$OUT" "$T/mall.out"
    server_stop
    ;;
  outfile_stdout)
    kv_data "$T/kv.log"
    mkdir "$T/cwd" && cd "$T/cwd" || die "cd"
    run csv dmap --cfg none --output csv --query "$KVQ" "$T/kv.log"
    run dash dmap --cfg none --query "$KVQ outfile -" "$T/kv.log"
    expect_rc "outfile -" 0
    expect_bytes "outfile - is --output csv" "$T/dash.out" "$T/csv.out"
    expect_contains "summary on stderr" "$ERR" "dmap: 44 lines read"
    server_up
    run rdash dmap "${SERVER_CLIENT_FLAGS[@]}" --files "$T/kv.log" --query "$KVQ outfile -"
    expect_rc "outfile - through dserver" 0
    expect_bytes "outfile - through dserver" "$OUT" "$T/csv.out"
    server_stop
    [ -z "$(ls -A "$T/cwd")" ] || fail "files made in the working directory: $(ls -A "$T/cwd")"
    ;;
  query_file)
    kv_data "$T/kv.log"
    run want dmap --cfg none --output json --query "$KVQ" "$T/kv.log"
    # Lines, and the ';' that ends a query in the REPL and in .read.
    printf '%s\n  %s;\n\n' "${KVQ%% group*}" "group${KVQ#* group}" >"$T/q.dmap"
    run qf dmap --cfg none --output json --query-file "$T/q.dmap" "$T/kv.log"
    expect_rc "--query-file" 0
    expect_bytes "--query-file" "$OUT" "$T/want.out"
    RUN_STDIN=$T/q.dmap run qs dmap --cfg none --output json --query-file - --files "$T/kv.log"
    expect_rc "--query-file -" 0
    expect_bytes "--query-file - (stdin)" "$OUT" "$T/want.out"
    # The outfile's .query holds the query as the file gave it.
    printf '%s outfile %s\n' "$KVQ" "$T/o.csv" >"$T/qo.dmap"
    run qo dmap --cfg none --query-file "$T/qo.dmap" "$T/kv.log"
    expect_rc "--query-file with outfile" 0
    printf '%s outfile %s' "$KVQ" "$T/o.csv" >"$T/qo.want"
    expect_bytes ".query of --query-file" "$T/o.csv.query" "$T/qo.want"
    # dtail --query-file, and the errors.
    printf 'from STATS select count($line)\n' >"$T/d.dmap"
    RUN_STDIN=$M run dt dtail --cfg none --timeout 1 --output csv --query-file "$T/d.dmap"
    expect_rc "dtail --query-file" 0
    expect_contains "dtail --query-file: the query ran" "$OUT" "count(\$line)"
    run both dmap --cfg none --query-file "$T/q.dmap" --query "$KVQ" "$T/kv.log"
    expect_rc "--query-file and --query" 2
    expect_contains "--query-file and --query" "$ERR" "flags -query and -query-file both give the query"
    run pos dmap --cfg none --query-file "$T/q.dmap" "$KVQ" "$T/kv.log"
    expect_rc "--query-file and a query argument" 2
    expect_contains "--query-file and a query argument" "$ERR" "both give the query: use one"
    run none dmap --cfg none --query-file "$T/no.dmap" "$T/kv.log"
    expect_rc "missing --query-file" 2
    expect_contains "missing --query-file" "$ERR" "-query-file $T/no.dmap: No such file or directory"
    printf ' \n;\n' >"$T/blank.dmap"
    run blank dmap --cfg none --query-file "$T/blank.dmap" "$T/kv.log"
    expect_rc "blank --query-file" 2
    expect_contains "blank --query-file" "$ERR" "holds no query"
    RUN_STDIN=$T/q.dmap run stdin2 dmap --cfg none --query-file -
    expect_rc "--query-file - without input files" 2
    expect_contains "--query-file - without files" "$ERR" "stdin cannot be an input too"
    RUN_STDIN=$T/q.dmap run stdin3 dmap --cfg none --query-file - "$T/kv.log" -
    expect_rc "--query-file - with - as input" 2
    run repl dmap --cfg none --repl --query-file "$T/q.dmap" "$T/kv.log"
    expect_rc "--repl --query-file" 2
    ;;
  errors)
    kv_data "$T/kv.log"
    run bad dmap --cfg none --output xml --query "$KVQ" "$T/kv.log"
    expect_rc "--output xml" 2
    expect_contains "--output xml" "$ERR" 'invalid value "xml" for flag -output: use table, csv, tsv or json'
    expect_empty "--output xml: nothing on stdout" "$OUT"
    run upper dmap --cfg none --output JSON --query "$KVQ" "$T/kv.log"
    expect_rc "--output JSON" 2
    run noval dmap --cfg none --query "$KVQ" "$T/kv.log" --output
    expect_rc "--output without a value" 2
    run of dmap --cfg none --output csv --query "$KVQ outfile $T/x.csv" "$T/kv.log"
    expect_rc "--output with outfile" 2
    expect_contains "--output with outfile" "$ERR" "flag -output csv has no effect with outfile $T/x.csv"
    [ -e "$T/x.csv" ] && fail "--output with outfile wrote the outfile"
    run ofd dmap --cfg none --output json --query "$KVQ outfile -" "$T/kv.log"
    expect_rc "--output with outfile -" 2
    expect_empty "--output with outfile -: nothing on stdout" "$OUT"
    run col dmap --cfg none --output tsv --color always --query "$KVQ" "$T/kv.log"
    expect_rc "--output tsv --color always" 2
    expect_contains "--color always" "$ERR" "flag -color always has no effect with -output tsv"
    run dt dtail --cfg none --output csv --files "$T/kv.log"
    expect_rc "dtail --output without --query" 2
    expect_contains "dtail --output without --query" "$ERR" "flag -output has no effect without -query"
    run dto dtail --cfg none --output csv --query "$KVQ outfile $T/y.csv" --files "$T/kv.log"
    expect_rc "dtail --output with outfile" 2
    for b in dcat dgrep; do
      run "$b" "$b" --cfg none --output csv "$T/kv.log"
      expect_rc "$b --output" 2
      expect_contains "$b has no --output" "$ERR" "flag provided but not defined: --output"
    done
    ;;
  dtail)
    # A run that never ends by itself, fed through a FIFO: each batch is
    # reported in its own interval; one header, then each interval's rows.
    mkfifo "$T/fifo"
    Q='select user, count($line), sum(bytes) group by user logformat generickv interval 1'
    for f in csv json; do
      ( exec 3>"$T/fifo"; printf 'user=a|bytes=1\nuser=a|bytes=2\nuser=b|bytes=5\n' >&3
        poll 30 grep -q '"b"\|^b,' "$T/bg.out"
        printf 'user=a|bytes=10\n' >&3
        poll 30 grep -q '10' "$T/bg.out" ) &
      writer=$!
      "$DTAIL_BIN/dtail" --cfg none --output "$f" --query "$Q" --timeout 40 <"$T/fifo" >"$T/bg.out" 2>"$T/bg.err" &
      BG_PID=$!
      (sleep 60 && kill -KILL "$BG_PID") </dev/null >/dev/null 2>&1 &
      BG_WATCHDOG=$!
      poll 40 pid_gone "$writer" || fail "$f: the second batch was not reported within 40 s"
      bg_stop TERM 30
      expect_rc "dtail --output $f after SIGTERM" 0
      cp "$T/bg.out" "$T/dtail.$f"
    done
    printf 'user,count($line),sum(bytes)\na,2,3.000000\nb,1,5.000000\na,1,10.000000\n' >"$T/want.csv"
    expect_bytes "dtail --output csv: one header, each interval's rows" "$T/dtail.csv" "$T/want.csv"
    printf '%s\n' '{"user":"a","count($line)":2,"sum(bytes)":3.000000}' \
      '{"user":"b","count($line)":1,"sum(bytes)":5.000000}' \
      '{"user":"a","count($line)":1,"sum(bytes)":10.000000}' >"$T/want.jsonl"
    expect_bytes "dtail --output json: a line per row per interval" "$T/dtail.json" "$T/want.jsonl"
    run_sh parse "python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' '$T/dtail.json'"
    [ "$RC" -eq 0 ] || fail "dtail --output json is not JSON lines: $(cat "$ERR")"
    # Through a dserver: the same stream from the server's deltas.
    . "$(dirname "$0")/server_lib.sh"
    . "$(dirname "$0")/fanout_lib.sh"
    . "$(dirname "$0")/interactive_lib.sh"
    follow_servers 1
    bg_start dtail "${SERVER_CLIENT_FLAGS[@]}" --servers "$(fanout_list)" --files data.log \
      --output json --query "$Q"
    wait_follow_new 0 1 || die "the server did not follow data.log"
    printf 'user=a|bytes=1\nuser=a|bytes=2\nuser=b|bytes=5\n' >>"$SRV/s0/data.log"
    wait_out '"user":"b"' 30
    printf 'user=a|bytes=10\n' >>"$SRV/s0/data.log"
    wait_out '"sum(bytes)":10.000000' 30
    bg_stop TERM 30
    expect_rc "dtail --output json through dserver" 0
    expect_bytes "dtail --output json through dserver" "$OUT" "$T/want.jsonl"
    fanout_stop_all
    ;;
  repl_mode)
    kv_data "$T/kv.log"
    for f in csv tsv json table; do
      run "want_$f" dmap --cfg none --output "$f" --query "$KVQ" "$T/kv.log"
    done
    printf '.mode csv\n%s;\n.mode tsv\n%s;\n.mode json\n%s;\n.mode table\n%s;\n' \
      "$KVQ" "$KVQ" "$KVQ" "$KVQ" >"$T/in"
    RUN_STDIN=$T/in run modes dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl .mode" 0
    cat "$T"/want_{csv,tsv,json,table}.out >"$T/want.modes"
    expect_bytes "repl .mode csv, tsv, json, table" "$OUT" "$T/want.modes"
    # --output is the first mode; .format is .mode's other name.
    printf '%s;\n.format csv\n%s;\n' "$KVQ" "$KVQ" >"$T/in2"
    RUN_STDIN=$T/in2 run first dmap --cfg none --repl --output json "$T/kv.log"
    expect_rc "repl --output json" 0
    cat "$T"/want_{json,csv}.out >"$T/want.first"
    expect_bytes "repl --output json, then .format csv" "$OUT" "$T/want.first"
    ;;
  repl_read)
    kv_data "$T/kv.log"
    run want_csv dmap --cfg none --output csv --query "$KVQ" "$T/kv.log"
    run want_json dmap --cfg none --output json --query "$KVQ" "$T/kv.log"
    # A file of a command and two queries, the last one without ';', read
    # from a file that .read's again (nested).
    printf '.mode csv\n%s\n;\n\n.mode json\n%s' "$KVQ" "$KVQ" >"$T/inner.dmap"
    printf '.read %s\n' "$T/inner.dmap" >"$T/outer.dmap"
    printf '.read %s\n.mode csv\n%s\n' "$T/outer.dmap" "$KVQ" >"$T/in"
    RUN_STDIN=$T/in run rd dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl .read" 0
    cat "$T"/want_{csv,json,csv}.out >"$T/want.read"
    expect_bytes "repl .read (nested, last query without ;)" "$OUT" "$T/want.read"
    # A file that reads itself stops at the depth bound, as an error.
    printf '.read %s\n' "$T/self.dmap" >"$T/self.dmap"
    printf '.read %s\n' "$T/self.dmap" >"$T/in2"
    RUN_STDIN=$T/in2 run self dmap --cfg none --repl "$T/kv.log"
    expect_rc ".read of itself" 2
    expect_contains ".read of itself" "$ERR" ".read nested more than 16 deep"
    ;;
  repl_pipe)
    kv_data "$T/kv.log"
    run want_csv dmap --cfg none --output csv --query "$KVQ" "$T/kv.log"
    # The last query without ';' (and without a final newline) runs; stdout
    # holds the results alone: no banner, no prompt.
    printf '.mode csv\n%s' "$KVQ" >"$T/in"
    RUN_STDIN=$T/in run last dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl last query without ;" 0
    expect_bytes "repl last query without ; (and only results on stdout)" "$OUT" "$T/want_csv.out"
    # The first error ends the session with its status; nothing after it runs.
    printf '.mode csv\n%s;\nselect cnt($line);\n%s;\n' "$KVQ" "$KVQ" >"$T/in2"
    RUN_STDIN=$T/in2 run bail dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl bails on a query error" 2
    expect_bytes "repl bail: the results before the error only" "$OUT" "$T/want_csv.out"
    expect_contains "repl bail: the error" "$ERR" "unknown aggregate or function 'cnt'"
    printf '.mode csv\n.read %s/none.dmap\n%s;\n' "$T" "$KVQ" >"$T/in3"
    RUN_STDIN=$T/in3 run bail_read dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl bails on a missing .read file" 1
    expect_empty "repl bail on .read: nothing ran after it" "$OUT"
    printf '.mdoe csv\n%s;\n' "$KVQ" >"$T/in4"
    RUN_STDIN=$T/in4 run bail_cmd dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl bails on an unknown command" 2
    expect_empty "repl bail on a command: nothing ran after it" "$OUT"
    printf '.mode csv\n%s outfile %s/no/such/x.csv;\n%s;\n' "$KVQ" "$T" "$KVQ" >"$T/in5"
    RUN_STDIN=$T/in5 run bail_out dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl bails on an outfile that cannot be written" 1
    expect_empty "repl bail on an outfile: nothing ran after it" "$OUT"
    # .quit ends it with 0; what follows does not run.
    printf '.mode csv\n%s;\n.quit\nselect cnt($line);\n' "$KVQ" >"$T/in6"
    RUN_STDIN=$T/in6 run quit dmap --cfg none --repl "$T/kv.log"
    expect_rc "repl .quit" 0
    expect_bytes "repl .quit" "$OUT" "$T/want_csv.out"
    ;;
  *) die "unknown mode $MODE" ;;
esac
finish
