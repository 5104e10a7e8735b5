# dmap `outfile X.sqlite` end to end: DTail's dmap acceptance queries
# (TestDMap1a-d, TestDMap2) exported to SQLite and read back with the stock
# sqlite3 CLI: declared and stored column types, values equal to the CSV
# export of the same query, the queries row; appends as a time series; and
# failed runs that must leave no partial or temporary file.
# Usage: bash sqlite_export.sh 1a|1b|1c|1d|2|stdin|append|fail_dir|mismatch|suffixes
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
need_input "$M"
command -v sqlite3 >/dev/null || die "the sqlite3 CLI is missing (scripts/deps.sh installs it)"
stats_facts

# sq DB SQL: the sqlite3 CLI, bounded like every other run; values as
# they are, separated by '|'.
sq() {
  timeout 20 sqlite3 -batch -list "$1" "$2"
}

# The result columns (after run_id, run_time) of TABLE in DB as a select
# list, REAL values printed as the CSV writer prints them ("%f").
result_select() {
  sq "$1" "SELECT group_concat(CASE upper(type) WHEN 'REAL'
             THEN printf('printf(''%%f'', \"%w\") AS \"%w\"', name, name)
             ELSE printf('\"%w\"', name) END, ', ')
           FROM pragma_table_info('$2') WHERE cid >= 2"
}

# check_export LABEL QUERY TYPES EXPECTED_CSV [stdin]: export QUERY to CSV
# and to SQLite; the file must hold table STATS with the declared TYPES
# ('/' list), every stored value of its declared type, the same rows as
# the CSV (multiset), and one queries row describing the run. EXPECTED_CSV
# is the oracle's (want_csv q1|...).
check_export() {
  local label=$1 q=$2 types=$3 exp=$4 how=${5:-file}
  local db=$T/$label.sqlite csv=$T/$label.csv
  want_csv "$label" "$exp"
  exp=$WANT
  need_input "$exp"
  if [ "$how" = stdin ]; then
    RUN_STDIN=$M run "$label.csv" dmap --cfg none --query "$q outfile $csv"
    RUN_STDIN=$M run "$label" dmap --cfg none --query "$q outfile $db"
  else
    run "$label.csv" dmap --cfg none --query "$q outfile $csv" "$M"
    run "$label" dmap --cfg none --query "$q outfile $db" "$M"
  fi
  expect_rc "$label" 0
  [ -f "$db" ] || { fail "$label: $db was not written"; return; }
  expect_multiset "$label csv" "$csv" "$exp"
  # Declared types, then every stored value's type.
  local got
  got=$(sq "$db" "SELECT group_concat(lower(type), '/') FROM pragma_table_info('STATS') WHERE cid >= 2")
  [ "$got" = "$types" ] || fail "$label: declared types '$got', want '$types'"
  got=$(sq "$db" "SELECT group_concat(lower(type), '/') FROM pragma_table_info('STATS') WHERE cid < 2")
  [ "$got" = "integer/text" ] || fail "$label: run columns typed '$got'"
  local typecheck
  typecheck=$(sq "$db" "SELECT 'SELECT count(*) FROM STATS WHERE ' || group_concat(
                 printf('typeof(\"%w\") != ''%s''', name, lower(type)), ' OR ')
               FROM pragma_table_info('STATS')")
  got=$(sq "$db" "$typecheck")
  [ "$got" = 0 ] || fail "$label: $got rows hold a value of another type than declared ($typecheck)"
  # Values: the SQLite rows rendered as CSV equal the CSV export, compared
  # after both go through the sqlite3 CLI's CSV writer.
  timeout 20 sqlite3 -batch -csv -header "$db" "SELECT $(result_select "$db" STATS) FROM STATS" \
    >"$T/$label.from_db" || fail "$label: reading the result table failed"
  timeout 20 sqlite3 -batch -csv -header :memory: ".import --csv $csv c" "SELECT * FROM c" \
    >"$T/$label.from_csv" || fail "$label: importing the CSV failed"
  expect_multiset "$label values == CSV export" "$T/$label.from_db" "$T/$label.from_csv"
  local nrows
  nrows=$(($(wc -l <"$csv") - 1))
  # The queries row.
  local files='["'$M'"]'
  [ "$how" = stdin ] && files='["-"]'
  got=$(sq "$db" "SELECT count(*), run_id, result_table, query, files, servers, rows, groups,
                         lines_read, lines_unparsed, lines_selected > 0,
                         start_time <= end_time,
                         end_time GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z',
                         (SELECT count(DISTINCT run_time) FROM STATS WHERE run_time = end_time),
                         (SELECT count(*) FROM STATS WHERE run_id = 1)
                  FROM queries")
  want=$(sq :memory: "SELECT 1, 1, 'STATS', '$(printf %s "$q outfile $db" | sed "s/'/''/g")',
                      '$files', '[]', $nrows, $nrows, $M_LINES, 0, 1, 1, 1, 1, $nrows")
  [ "$got" = "$want" ] || fail "$label: queries row differs:
   got: $got
  want: $want"
  # Only the outputs exist: no temporary file beside them.
  local left
  left=$(cd "$T" && ls -A | grep -v -e '\.out$' -e '\.err$' -e '^\.ms\.' -e '\.from_' -e '\.want$' \
           -e "^$label\.sqlite\$" -e "^$label\.csv\$" -e "^$label\.csv\.query\$")
  [ -z "$left" ] || fail "$label: files left behind: $left"
  return 0
}

case $mode in
  1a) check_export 1a "$COMPAT_Q1" integer/text/real/real/real q1 ;;
  1b) check_export 1b "$COMPAT_Q1 where lifetimeConnections >= 3" integer/text/real/real/real q1b ;;
  1c) check_export 1c "$COMPAT_Q1 where \$time eq \"1002-071949\"" integer/text/real/real/real q1c ;;
  1d) check_export 1d "$COMPAT_Q1D" text/text/text/text/text/text q1d ;;
  2) check_export 2 "$COMPAT_Q2" integer/text/real/real/real q2 ;;
  stdin) check_export stdin "$COMPAT_Q2" integer/text/real/real/real q2 stdin ;;
  append)
    # Three appends of the same query: run ids 1..3, each run's rows (one per second)
    # once, nothing re-appended; then a query with one row per run.
    X=$T/series.sqlite
    for i in 1 2 3; do
      run "a$i" dmap --cfg none --query "$COMPAT_Q2 outfile append $X" "$M"
      expect_rc "a$i" 0
      got=$(sq "$X" "SELECT count(*), count(DISTINCT run_id) FROM STATS")
      [ "$got" = "$((M_TIMES * i))|$i" ] || fail "after append $i: rows|runs = $got, want $((M_TIMES * i))|$i"
    done
    got=$(sq "$X" "SELECT group_concat(run_id || ':' || n, ' ') FROM
                     (SELECT run_id, count(*) AS n, count(DISTINCT \"\$time\") AS d FROM STATS
                      GROUP BY run_id HAVING n = d ORDER BY run_id)")
    [ "$got" = "1:$M_TIMES 2:$M_TIMES 3:$M_TIMES" ] || fail "per-run rows: $got, want 1:$M_TIMES 2:$M_TIMES 3:$M_TIMES"
    got=$(sq "$X" "SELECT group_concat(run_id || ':' || rows, ' ') FROM (SELECT * FROM queries ORDER BY run_id)")
    [ "$got" = "1:$M_TIMES 2:$M_TIMES 3:$M_TIMES" ] || fail "queries rows: $got"
    got=$(sq "$X" "SELECT count(*) FROM queries q WHERE (SELECT count(*) FROM STATS s
                     WHERE s.run_id = q.run_id AND s.run_time = q.end_time) != $M_TIMES")
    [ "$got" = 0 ] || fail "$got runs whose rows do not carry the run's end time"
    got=$(sq "$X" "SELECT count(*) FROM queries a JOIN queries b ON b.run_id = a.run_id + 1
                   WHERE b.start_time < a.end_time")
    [ "$got" = 0 ] || fail "runs overlap in time"
    # Values of every run equal the CSV export.
    run csv dmap --cfg none --query "$COMPAT_Q2 outfile $T/series.csv" "$M"
    timeout 20 sqlite3 -batch -csv "$X" "SELECT $(result_select "$X" STATS) FROM STATS WHERE run_id = 2" >"$T/run2"
    timeout 20 sqlite3 -batch -csv :memory: ".import --csv $T/series.csv c" "SELECT * FROM c" >"$T/csv2"
    expect_multiset "run 2 values" "$T/run2" "$T/csv2"
    # A one-row query appended three times: one row per run, a time series.
    Y=$T/hs.sqlite
    for i in 1 2 3; do
      run "y$i" dmap --cfg none --query "from STATS select count(\$line),avg(\$goroutines) outfile append $Y" "$M"
      expect_rc "y$i" 0
    done
    got=$(sq "$Y" "SELECT group_concat(run_id || '=' || \"count(\$line)\" || '/' || typeof(\"avg(\$goroutines)\"), ' ') FROM (SELECT * FROM STATS ORDER BY run_id)")
    [ "$got" = "1=$M_N/real 2=$M_N/real 3=$M_N/real" ] || fail "time series: $got"
    ;;
  fail_dir)
    # A directory that does not exist: exit 1 naming the file, nothing made.
    run bad dmap --cfg none --query "$COMPAT_Q2 outfile $T/no/such/dir/x.sqlite" "$M"
    expect_rc bad 1
    expect_contains "error names the file" "$ERR" "$T/no/such/dir/x.sqlite"
    [ -e "$T/no" ] && fail "something was created: $(ls -R "$T/no")"
    run bada dmap --cfg none --query "$COMPAT_Q2 outfile append $T/no/such/dir/x.sqlite" "$M"
    expect_rc bada 1
    # A directory where the file should be.
    mkdir "$T/adir.sqlite"
    run dir dmap --cfg none --query "$COMPAT_Q2 outfile $T/adir.sqlite" "$M"
    expect_rc dir 1
    expect_contains "error names the file" "$ERR" "$T/adir.sqlite"
    left=$(cd "$T" && ls -A | grep -v -e '\.out$' -e '\.err$' -e '^adir\.sqlite$')
    [ -z "$left" ] && [ -z "$(ls -A "$T/adir.sqlite")" ] || fail "files left behind: $left"
    ;;
  mismatch)
    # An existing table with other columns: a clear error, file intact.
    X=$T/m.sqlite
    run m1 dmap --cfg none --query "$COMPAT_Q1 outfile $X" "$M"
    expect_rc m1 0
    before=$(sha256sum <"$X")
    run m2 dmap --cfg none --query "$COMPAT_Q2 outfile append $X" "$M"
    expect_rc m2 1
    expect_contains "names the file" "$ERR" "$X"
    expect_contains "names the table" "$ERR" 'table "STATS"'
    expect_contains "lists the existing columns" "$ERR" '"count($line)" INTEGER, "last($time)" TEXT'
    expect_contains "lists the wanted columns" "$ERR" '"count($time)" INTEGER, "$time" TEXT'
    [ "$(sha256sum <"$X")" = "$before" ] || fail "the file changed"
    # Not an SQLite file at all (a CSV named .db): error, file intact.
    printf 'a,b\n1,2\n' >"$T/c.db"
    run m3 dmap --cfg none --query "$COMPAT_Q1 outfile append $T/c.db" "$M"
    expect_rc m3 1
    expect_contains "not a database" "$ERR" "outfile $T/c.db: not an SQLite database"
    [ "$(cat "$T/c.db")" = "$(printf 'a,b\n1,2')" ] || fail "the CSV file changed"
    left=$(cd "$T" && ls -A | grep -v -e '\.out$' -e '\.err$' -e '^m\.sqlite$' -e '^c\.db$')
    [ -z "$left" ] || fail "files left behind: $left"
    # Without append the file is replaced by the new result.
    run m4 dmap --cfg none --query "$COMPAT_Q2 outfile $X" "$M"
    expect_rc m4 0
    [ "$(sq "$X" "SELECT count(*) FROM STATS")" = "$M_TIMES" ] || fail "replace: want $M_TIMES rows"
    ;;
  suffixes)
    # .db and .sqlite3 are SQLite too, in any case; other names stay CSV.
    for s in db SQLITE DB sqlite3; do
      run "s$s" dmap --cfg none --query "$COMPAT_Q1 outfile $T/x.$s" "$M"
      expect_rc "s$s" 0
      got=$(sq "$T/x.$s" "SELECT \"count(\$line)\" FROM STATS" 2>&1)
      [ "$got" = "$M_N" ] || fail ".$s: not an SQLite export ($got)"
    done
    run scsv dmap --cfg none --query "$COMPAT_Q1 outfile $T/x.sqlite.csv" "$M"
    head -c 15 "$T/x.sqlite.csv" | grep -q '^count' || fail ".sqlite.csv must be CSV"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
