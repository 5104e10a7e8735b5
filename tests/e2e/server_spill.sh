#!/usr/bin/env bash
# server_spill.sh CASE: a map request's group tables in dserver stay
# within Server.MapMemoryLimit: beyond it they spill to a temporary SQLite
# database, and the final table is streamed from there a part at a time.
#   same    a spilled result through dserver equals serverless dmap's
#   rss     group by $line over 600k distinct lines with MapMemoryLimit
#           16M: dserver's peak RSS stays under 96 MiB, the CSV equals
#           serverless dmap's
#   badcfg  a MapMemoryLimit that is no size: dserver exits 2 naming it
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
CASE=${1:?case}
E2E_NAME="server_spill $CASE"
need_bin dmap

IN=$T/in
mkdir -p "$IN"
chmod 755 "$IN"

# csv_equal LABEL A B: the same rows (a query without order has none).
csv_equal() {
  if ! cmp -s <(sort "$2") <(sort "$3"); then
    fail "$1: $(basename "$2") and $(basename "$3") differ: $(diff <(sort "$2") <(sort "$3") | head -3 | tr '\n' ' ')"
  fi
}

peak_rss_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$SERVER_CHILD/status" 2>/dev/null; }

case $CASE in
same)
  awk 'BEGIN { for (i = 0; i < 240000; i++) {
    k = (i * 7919) % 80021; v = (i * 31) % 1000
    printf "id=g%d|v=%d.%d|s=%s\n", k, v, (i % 4) * 25, substr("abcdefgh", 1 + i % 5, 1 + i % 3) } }' >"$IN/data.log"
  chmod 644 "$IN/data.log"
  Q='select count($line),sum(v),min(v),max(v),avg(v),last(s),len(s),percentile(v),id group by id logformat generickv'
  SERVER_CFG_EXTRA='"MapMemoryLimit": "256K"'
  server_setup
  server_start
  RUN_TIMEOUT=150 run local dmap --cfg none --noColor --logLevel warn --query "$Q outfile $T/local.csv" "$IN/data.log"
  expect_rc local 0
  RUN_TIMEOUT=150 run remote dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel warn --query "$Q outfile $T/remote.csv" --files "$IN/data.log"
  expect_rc remote 0
  csv_equal "spilled through dserver" "$T/local.csv" "$T/remote.csv"
  [ "$(wc -l <"$T/local.csv")" -gt 80000 ] || fail "the serverless result has $(wc -l <"$T/local.csv") rows, want 80021 and a header"
  server_stop
  expect_log spilled "Map spilled|"
  ;;
rss)
  # 600k distinct lines of about 70 bytes: about 40 MiB of keys.
  awk 'BEGIN { for (i = 0; i < 600000; i++) printf "line %09d with enough text to make the group key long %d\n", i * 7, i % 13 }' >"$IN/big.log"
  chmod 644 "$IN/big.log"
  Q='select count($line),$line group by $line'
  SERVER_CFG_EXTRA='"MapMemoryLimit": "16M"'
  server_setup
  server_start
  base=$(peak_rss_kib)
  # The client merges at --memory-limit 16M: its peak RSS (GNU time's
  # maximum resident set, KiB) is bounded like the server's.
  RUN_TIMEOUT=150 run remote /usr/bin/time -f 'client-maxrss-kib %M' -o "$T/client.rss" \
    "$DTAIL_BIN/dmap" "${SERVER_CLIENT_FLAGS[@]}" --logLevel info --memory-limit 16M \
    --query "$Q outfile $T/remote.csv" --files "$IN/big.log"
  expect_rc remote 0
  peak=$(peak_rss_kib)
  cpeak=$(awk '/client-maxrss-kib/ { print $2 }' "$T/client.rss")
  note "dserver peak RSS: $((base / 1024)) MiB at start, $((peak / 1024)) MiB after the map (MapMemoryLimit 16M)"
  note "client peak RSS: $((${cpeak:-0} / 1024)) MiB (--memory-limit 16M)"
  grep -q 'group rows of the merged result in a temporary database' "$ERR" ||
    fail "the client's merge did not spill at --memory-limit 16M"
  # A sanitizer build's shadow memory and quarantine are not the
  # server's: there only the result and the spill are checked.
  if dserver_sanitized; then
    note "sanitizer build: the RSS bounds are not checked"
  else
    [ "${peak:-0}" -le $((96 * 1024)) ] || fail "dserver peak RSS $((peak / 1024)) MiB, over the 96 MiB bound"
    [ "${cpeak:-0}" -gt 0 ] && [ "${cpeak:-0}" -le $((96 * 1024)) ] ||
      fail "client peak RSS $((${cpeak:-0} / 1024)) MiB, over the 96 MiB bound"
  fi
  RUN_TIMEOUT=150 run local dmap --cfg none --noColor --logLevel warn --query "$Q outfile $T/local.csv" "$IN/big.log"
  expect_rc local 0
  csv_equal "group by \$line" "$T/local.csv" "$T/remote.csv"
  server_stop
  expect_log spilled "Map spilled|"
  ;;
badcfg)
  SERVER_CFG_EXTRA='"MapMemoryLimit": "lots"'
  server_setup
  as_user=(); [ "$(id -u)" -eq 0 ] && as_user=(--user nobody)
  run bad "$DTAIL_BIN/dserver" --cfg "$SRV/dtail.json" --port 0 --bindAddress 127.0.0.1 --logger stdout "${as_user[@]}"
  expect_rc bad 2
  expect_contains bad "$ERR" "Server.MapMemoryLimit must be a size"
  ;;
*)
  die "unknown case $CASE"
  ;;
esac
finish
