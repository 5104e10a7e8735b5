# dmap --memory-limit: group-by state beyond the limit spills to a
# temporary SQLite database in $TMPDIR and the result is the same as in
# memory; the database never outlives the run (a normal end, an error, a
# kill); a bad limit is a usage error naming the flag.
# Usage: bash spill.sh same|order|sqlite|bad|error|kill
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap

# DATA: 240k key=value lines over about 80k groups (deterministic).
DATA=$T/data.log
awk 'BEGIN { for (i = 0; i < 240000; i++) {
  k = (i * 7919) % 80021; v = (i * 31) % 1000
  printf "id=g%d|v=%d.%d|s=%s\n", k, v, (i % 4) * 25, substr("abcdefgh", 1 + i % 5, 1 + i % 3) } }' >"$DATA"
need_input "$DATA"
SPILL_TMP=$T/tmp
mkdir -p "$SPILL_TMP"
Q='select count($line),sum(v),min(v),max(v),avg(v),last(s),len(s),percentage(v),percentile(v),p90(v),id group by id logformat generickv'

# expect_no_spill_files LABEL: nothing is left in the spill directory.
expect_no_spill_files() {
  local left
  left=$(ls -A "$SPILL_TMP")
  [ -z "$left" ] || fail "$1: files left in \$TMPDIR: $left"
}

# spill_run LABEL LIMIT QUERY: dmap with TMPDIR=$SPILL_TMP and the limit
# (none when LIMIT is empty), at log level info.
spill_run() {
  local label=$1 limit=$2 q=$3
  run "$label" env TMPDIR="$SPILL_TMP" "$DTAIL_BIN/dmap" --cfg none --noColor --logLevel info \
    ${limit:+--memory-limit "$limit"} --query "$q" "$DATA"
}

# same_result LABEL QUERY: CSV outfile in memory and spilled under 256K.
same_result() {
  local label=$1 q=$2
  spill_run "$label-mem" "" "$q outfile $T/$label-mem.csv"
  expect_rc "$label-mem" 0
  grep -q 'spill|' "$ERR" && fail "$label-mem: spilled without a limit"
  spill_run "$label-spill" 256K "$q outfile $T/$label-spill.csv"
  expect_rc "$label-spill" 0
  grep -q 'INFO|spill|' "$ERR" || fail "$label-spill: nothing spilled under 256K"
  need_input "$T/$label-mem.csv" "$T/$label-spill.csv"
  expect_bytes "$label csv" "$T/$label-spill.csv" "$T/$label-mem.csv"
  ls -A "$T" | grep -q "^\.$label-spill\.csv\." && fail "$label: temporary CSV left behind"
  expect_no_spill_files "$label"
}

# spilling: the dmap under `timeout` $tpid (found once into $pid) holds
# its spill database, already unlinked, in $SPILL_TMP.
spilling() {
  [ -n "$pid" ] || pid=$(pgrep -P "$tpid" dmap)
  [ -n "$pid" ] && ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$SPILL_TMP/.*(deleted)"
}

case $mode in
  same)
    same_result same "$Q"
    lines=$(wc -l <"$T/same-mem.csv")
    [ "$lines" -gt 50000 ] || fail "same: only $lines rows; the test needs many groups"
    ;;
  order)
    same_result order "select count(\$line),sum(v),id group by id order by sum(v) logformat generickv"
    same_result rorder "select max(v),last(s),id group by id rorder by max(v) limit 100 logformat generickv"
    # The terminal table (10 rows and the note on stderr) and the summary.
    spill_run table-mem "" "select count(\$line),sum(v),id group by id order by count(\$line) logformat generickv"
    cp "$OUT" "$T/table-mem.txt"
    grep -o '[0-9]* groups' "$ERR" >"$T/table-mem.groups"
    spill_run table-spill 128K "select count(\$line),sum(v),id group by id order by count(\$line) logformat generickv"
    expect_rc table-spill 0
    grep -q 'INFO|spill|' "$ERR" || fail "table: nothing spilled"
    expect_bytes "table" "$OUT" "$T/table-mem.txt"
    grep -q 'Got 80021 results but limited terminal output to 10 rows' "$ERR" ||
      fail "table: the note on the rows left out is missing"
    grep -o '[0-9]* groups' "$ERR" >"$T/table-spill.groups"
    expect_bytes "summary groups" "$T/table-spill.groups" "$T/table-mem.groups"
    # A text column sorts in byte order, descending for order by, in
    # memory and spilled alike (it kept key order: every text was 0).
    same_result text "select last(s),id group by id order by last(s) logformat generickv"
    tail -n +2 "$T/text-mem.csv" | cut -d, -f1 | sort -c -r ||
      fail "text: order by last(s) is not in descending byte order"
    same_result rtext "select id,count(\$line) group by id rorder by id limit 500 logformat generickv"
    same_result dtext "select id,count(\$line) group by id order by id limit 500 logformat generickv"
    tail -n +2 "$T/dtext-mem.csv" | cut -d, -f1 | sort -c -r ||
      fail "dtext: order by id is not in descending byte order"
    [ "$(tail -n 1 "$T/rtext-mem.csv" | cut -d, -f1)" = g10446 ] ||
      fail "rtext: row 500 of rorder by id is not g10446"
    expect_no_spill_files order
    ;;
  sqlite)
    command -v sqlite3 >/dev/null || skip "sqlite3 CLI not installed"
    for how in mem spill; do
      limit=""; [ $how = spill ] && limit=256K
      spill_run "sqlite-$how" "$limit" "$Q outfile $T/$how.sqlite"
      expect_rc "sqlite-$how" 0
      # Without the run id and timestamp columns.
      timeout 20 sqlite3 "$T/$how.sqlite" 'SELECT * FROM result' | cut -d'|' -f3- >"$T/$how.rows" ||
        fail "sqlite-$how: cannot read the result table"
    done
    need_input "$T/mem.rows"
    expect_bytes "sqlite rows" "$T/spill.rows" "$T/mem.rows"
    expect_no_spill_files sqlite
    ;;
  bad)
    for v in 0 12X abc 1.5G -3 ""; do
      run "bad-$v" dmap --cfg none --memory-limit "$v" --query "$Q" "$DATA"
      expect_rc "bad-$v" 2
      grep -q 'memory-limit' "$ERR" || fail "bad $v: the error does not name --memory-limit"
    done
    run bad-dtail dtail --cfg none --memory-limit 5Q --query "$Q" "$DATA"
    expect_rc bad-dtail 2
    grep -q 'memory-limit' "$ERR" || fail "bad dtail: the error does not name --memory-limit"
    for v in 1048576 64K 2m 1G 3GiB; do
      run "good-$v" dmap --cfg none --quiet --memory-limit "$v" --query "select count(\$line) logformat generickv" "$DATA"
      expect_rc "good-$v" 0
    done
    ;;
  error)
    # The outfile cannot be written at the end: its directory, there when
    # the run starts (and checks the outfile), is removed while the run
    # spills. Exit 1 after spilling, naming the outfile, nothing left. The
    # input is a pipe the test holds open until the directory is gone.
    mkdir "$T/out"
    mkfifo "$T/err.in"
    exec 5<>"$T/err.in"
    TMPDIR="$SPILL_TMP" timeout 60 "$DTAIL_BIN/dmap" --cfg none --noColor --logLevel info \
      --memory-limit 256K --query "$Q outfile $T/out/x.csv" <"$T/err.in" 2>"$T/err.err" 5>&- &
    tpid=$! pid=""
    cat "$DATA" >&5
    poll 30 spilling || fail "error: never saw the spill database (deleted) in \$TMPDIR"
    rmdir "$T/out"
    exec 5>&-
    wait "$tpid"
    RC=$? ERR=$T/err.err
    E2E_RUNS=$((E2E_RUNS + 1))
    expect_rc err-outfile 1
    grep -q 'INFO|spill|' "$ERR" || fail "error: nothing spilled before the failing write"
    grep -q "outfile $T/out/x.csv:" "$ERR" || fail "error: the message does not name the outfile"
    expect_no_spill_files error
    # A directory missing from the start: refused before anything is read.
    spill_run err-early 256K "$Q outfile $T/no/such/dir/x.csv"
    expect_rc err-early 1
    grep -q 'INFO|spill|' "$ERR" && fail "error: spilled for an outfile that cannot be written"
    grep -q 'no/such/dir' "$ERR" || fail "error: the message does not name the outfile"
    ;;
  kill)
    # Killed while spilling: the database is already unlinked, so nothing
    # is left. The run is seen holding a deleted file in $TMPDIR first.
    # Its input is a pipe the test holds open after the data, so the run
    # cannot end before it is killed, however fast the machine.
    mkfifo "$T/kill.in"
    exec 5<>"$T/kill.in"
    TMPDIR="$SPILL_TMP" timeout 60 "$DTAIL_BIN/dmap" --cfg none --quiet --memory-limit 64K \
      --query "$Q outfile $T/kill.csv" <"$T/kill.in" 2>"$T/kill.err" &
    tpid=$!
    cat "$DATA" "$DATA" >&5 &
    writer=$!
    seen=0 pid=""
    poll 30 spilling && seen=1
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    wait "$tpid" 2>/dev/null
    kill "$writer" 2>/dev/null
    wait "$writer" 2>/dev/null
    exec 5>&-
    E2E_RUNS=$((E2E_RUNS + 1))
    [ "$seen" = 1 ] || fail "kill: never saw the spill database (deleted) in \$TMPDIR"
    expect_no_spill_files kill
    [ -e "$T/kill.csv" ] && fail "kill: a partial outfile was left"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
