# DTail 4.1 interop: the Go DTail clients (../shared/peers) against our
# dserver print what they print against the Go dserver on the same files
# (Go<->Go = Go<->ours), apart from what differs by nature (the logger's
# time and user@ip:port in server messages) and the documented differences
# (docs/protocol-dt41.md); a warning "AUTHKEY registration failed" is not
# compared (the case authkey checks the fast reconnect). Skips, by name,
# without ../shared/peers.
# Usage: dt41.sh CASE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
. "$(dirname "$0")/go_dserver_lib.sh"

PEERS=${PEERS:-$(dirname "$COMPAT")/peers/dtail-4.3.2-ng/bin}
[ -x "$PEERS/dserver" ] || skip "needs the Go DTail in $PEERS (../shared/peers), which is not there"
command -v setpriv >/dev/null || [ "$(id -u)" -ne 0 ] || skip "needs setpriv to run the Go dserver unprivileged"

export DTAIL_HOSTNAME_OVERRIDE=dt41host
D=$T/data
GO_DIR=$T/go
GO_PID=
GO_PORT=

go_cleanup() {
  [ -n "$GO_PID" ] && kill "$GO_PID" 2>/dev/null
  server_cleanup
}
trap go_cleanup EXIT

# Both servers over the same files in $D (readable by nobody).
setup_both() {
  server_setup
  mkdir -p "$D" "$GO_DIR/cache" "$GO_DIR/log"
  printf 'one|two|three\nnot so simple\nERROR something failed\nlast line\n' >"$D/small.log"
  printf 'first\nERROR second\nthird\n' >"$D/other.log"
  seq 1 200 | sed 's/^/line /; s/7$/7 ERROR/' >"$D/many.log"
  chmod 755 "$D" && chmod 644 "$D"/*
  cp "$SERVER_KEY.pub" "$GO_DIR/cache/dtail.authorized_keys"
  # the same user on both (a mixed fan-out logs in as one user)
  cp "$SERVER_KEY.pub" "$GO_DIR/cache/$SERVER_USER.authorized_keys"
  chmod -R a+rwX "$GO_DIR"
  server_start
  go_dserver_launch "$GO_DIR" "$PEERS" 290 || die "the Go dserver did not listen on $GO_PORT"
}

# go_client LABEL PORT USER TOOL ARGS...: a Go client, its output normalised.
go_client() {
  local label=$1 port=$2 user=$3 tool=$4
  shift 4
  run "$label" "$PEERS/$tool" --cfg none --servers "127.0.0.1:$port" --user "$user" \
    --auth-key-path "$SERVER_KEY" --trustAllHosts --logDir "$T/home/log" "$@"
  # server messages: LEVEL|MMDD-HHMMSS|user@ip:port| is the time and peer
  sed -E 's/(WARN|ERROR|INFO)\|[0-9]{4}-[0-9]{6}\|[^|]*\|/\1|T|W|/; s/127\.0\.0\.1:[0-9]+/127.0.0.1:P/g' \
    "$OUT" | grep -v 'AUTHKEY registration failed' >"$T/$label.norm"
}

# same LABEL TOOL ARGS...: Go<->Go and Go<->ours print the same.
same() {
  local label=$1
  shift
  go_client "$label.go" "$GO_PORT" dtail "$@"
  go_client "$label.c" "$SERVER_PORT" "$SERVER_USER" "$@"
  [ -s "$T/$label.go.norm" ] || fail "$label: the Go client printed nothing against the Go dserver"
  if [ -n "${SORTED:-}" ]; then
    sort "$T/$label.go.norm" >"$T/$label.go.sorted"
    sort "$T/$label.c.norm" >"$T/$label.c.sorted"
    expect_bytes "$label" "$T/$label.c.sorted" "$T/$label.go.sorted"
  else
    expect_bytes "$label" "$T/$label.c.norm" "$T/$label.go.norm"
  fi
}

# same_sorted LABEL TOOL ARGS...: as same, in any order (the Go dserver
# reads the files of one client side by side).
same_sorted() { SORTED=1 same "$@"; }

# port_of go|c: PORT and USER of that dserver.
port_of() {
  PORT=$GO_PORT USER_AT=dtail
  [ "$1" = c ] && PORT=$SERVER_PORT USER_AT=$SERVER_USER
}

# setup_map: both dservers over DTail's mapr_testdata.log, and in
# MAP_QUERIES every compat query as the compat e2e tests run them (dmap.sh).
setup_map() {
  need_compat
  setup_both
  cp "$M" "$D/mapr_testdata.log"
  chmod 644 "$D/mapr_testdata.log"
  MAP_QUERIES=("$COMPAT_Q1" "$COMPAT_Q1 where lifetimeConnections >= 3"
    "$COMPAT_Q1 where \$time eq \"1002-071949\"" "$COMPAT_Q1D" "$COMPAT_Q2")
}

# health_same BIN: dtailhealth BIN checks both dservers, exit 0 and the
# same words.
health_same() {
  run health.go "$1" --server "127.0.0.1:$GO_PORT"
  expect_rc health.go 0
  sed "s/:$GO_PORT/:P/" "$OUT" >"$T/health.go.norm"
  run health.c "$1" --server "$SERVER"
  expect_rc health.c 0
  sed "s/:$SERVER_PORT/:P/" "$OUT" >"$T/health.c.norm"
  expect_bytes health "$T/health.c.norm" "$T/health.go.norm"
}

# ours LABEL PORT USER TOOL ARGS...: our client at a dserver (stdout in
# $T/LABEL.out; the server messages on stderr differ by nature).
ours() {
  local label=$1 port=$2 user=$3 tool=$4
  shift 4
  run "$label" "$tool" --servers "127.0.0.1:$port" --user "$user" --key "$SERVER_KEY" \
    --trustAllHosts --noColor "$@"
  cp "$OUT" "$T/$label.norm"
}

# ours_same LABEL TOOL ARGS...: our client prints the same through the Go
# dserver as through ours (ours<->Go = ours<->ours), in the same order
# unless SORTED (the Go dserver reads a client's files side by side).
ours_same() {
  local label=$1
  shift
  ours "$label.go" "$GO_PORT" dtail "$@"
  local rc_go=$RC
  ours "$label.c" "$SERVER_PORT" "$SERVER_USER" "$@"
  [ -s "$T/$label.c.norm" ] || fail "$label: our client printed nothing through our dserver"
  if [ -n "${SORTED:-}" ]; then
    expect_multiset "$label" "$T/$label.go.norm" "$T/$label.c.norm"
  else
    expect_bytes "$label" "$T/$label.go.norm" "$T/$label.c.norm"
  fi
  [ "$rc_go" -eq "$RC" ] || fail "$label: exit $rc_go through the Go dserver, $RC through ours"
}

case ${1:-} in
cat)
  setup_both
  same plain dcat --plain --files "$D/small.log"
  same remote dcat --files "$D/small.log"
  same_sorted two dcat --plain --files "$D/small.log,$D/other.log"
  same missing dcat --plain --files "$D/missing.log"
  ;;
grep)
  setup_both
  same grep dgrep --plain --grep ERROR --files "$D/many.log"
  same context dgrep --plain --grep 'line 1[0-9]7 ' --before 2 --after 3 --files "$D/many.log"
  same invert_max dgrep --plain --invert --max 3 --grep ERROR --files "$D/many.log"
  same noop dgrep --quiet --grep . --files "$D/small.log"
  same_sorted remote dgrep --grep ERROR --files "$D/many.log,$D/other.log"
  ;;
tail)
  setup_both
  printf 'old ERROR line\n' >"$D/f1.log"
  printf 'old\n' >"$D/f2.log"
  chmod 644 "$D"/f*.log
  for who in go c; do
    (sleep 2.5
     printf 'ERROR one\nnot this\nERROR two\n' >>"$D/f1.log"
     printf 'ERROR three\n' >>"$D/f2.log") &
    appender=$!
    if [ $who = go ]; then
      go_client "tail.$who" "$GO_PORT" dtail dtail --plain --shutdownAfter 5 --grep ERROR --files "$D/f1.log,$D/f2.log"
    else
      go_client "tail.$who" "$SERVER_PORT" "$SERVER_USER" dtail --plain --shutdownAfter 5 --grep ERROR \
        --files "$D/f1.log,$D/f2.log"
    fi
    wait "$appender"
    sort "$T/tail.$who.norm" >"$T/tail.$who.sorted"
  done
  [ "$(wc -l <"$T/tail.go.sorted")" -eq 3 ] || fail "tail: the Go dserver sent $(wc -l <"$T/tail.go.sorted") lines, want 3"
  expect_bytes tail "$T/tail.c.sorted" "$T/tail.go.sorted"
  ;;
map)
  # dmap: every compat query, as the compat e2e tests run them (dmap.sh),
  # writes the same CSV through either dserver; the Go dmap writes its
  # rows in its map's order, so they compare as multisets, as DTail's own
  # tests compare them.
  setup_map
  n=0
  for q in "${MAP_QUERIES[@]}"; do
    n=$((n + 1))
    for who in go c; do
      port_of $who
      go_client "map$n.$who" "$PORT" "$USER_AT" dmap --query "$q outfile $T/map$n.$who.csv" \
        --files "$D/mapr_testdata.log"
      [ -s "$T/map$n.$who.csv" ] || fail "map$n: the Go dmap wrote no CSV through the $who dserver"
    done
    [ "$(wc -l <"$T/map$n.go.csv")" -ge 2 ] || fail "map$n: the Go dserver's CSV has no rows"
    expect_multiset "map$n ($q)" "$T/map$n.c.csv" "$T/map$n.go.csv"
  done
  ;;
health)
  # the Go dtailhealth says the same of both dservers
  setup_both
  health_same "$PEERS/dtailhealth"
  ;;
c2go_lines)
  # Our dcat, dgrep and dtail through a Go dserver: found by the answer to
  # our HELLO (docs/protocol.md, "Handshake") and spoken to in 4.1.
  setup_both
  ours_same plain dcat --plain --files "$D/small.log"
  ours_same remote dcat --files "$D/small.log"
  SORTED=1 ours_same two dcat --plain --files "$D/small.log,$D/other.log"
  ours_same grep dgrep --plain --grep ERROR --files "$D/many.log"
  ours_same context dgrep --plain --grep 'line 1[0-9]7 ' --before 2 --after 3 --files "$D/many.log"
  ours_same invert_max dgrep --plain --invert --max 3 --grep ERROR --files "$D/many.log"
  ours_same icase dgrep --plain -i --grep error --files "$D/small.log"
  # lines in DTail's own log format are content, not server messages: the
  # Go dserver sends both bare in plain mode, only its messages carry our
  # connection's user@ip:port
  printf 'INFO|1002-071143|Disk usage high|used=94%%\nERROR|1002-071146|Rejecting request|limit=127\nWARN|1203-062004|dtail@127.0.0.1:40000|someone else\n' >"$D/dtail.log"
  chmod 644 "$D/dtail.log"
  ours_same logformat dcat --plain --files "$D/dtail.log"
  expect_bytes logformat "$T/logformat.go.norm" "$D/dtail.log"
  SORTED=1 ours_same remote_grep dgrep --grep ERROR --files "$D/many.log,$D/other.log"
  # a file that cannot be read exits 1 through either (Go only warns)
  for who in go c; do
    port_of $who
    ours "missing.$who" "$PORT" "$USER_AT" dcat --plain --files "$D/missing.log"
    expect_rc "missing.$who" 1
    expect_empty "missing.$who" "$OUT"
  done
  expect_contains missing.go "$T/missing.go.err" "Unable to read file(s)"
  printf 'old ERROR line\n' >"$D/f1.log"
  chmod 644 "$D/f1.log"
  for who in go c; do
    port_of $who
    (sleep 2.5; printf 'ERROR one\nnot this\nERROR two\n' >>"$D/f1.log") &
    appender=$!
    ours "tail.$who" "$PORT" "$USER_AT" dtail --plain --shutdownAfter 5 --grep ERROR --files "$D/f1.log"
    wait "$appender"
  done
  [ "$(wc -l <"$T/tail.go.norm")" -eq 2 ] || fail "tail: $(wc -l <"$T/tail.go.norm") lines through the Go dserver, want 2"
  expect_bytes tail "$T/tail.go.norm" "$T/tail.c.norm"
  ;;
c2go_health)
  # ours says the same of both
  setup_both
  health_same dtailhealth
  ;;
c2go_map)
  # Our dmap through a Go dserver folds its AGGREGATE messages into our
  # table: the CSV of every compat query is ours<->ours's; and one fan-out
  # over both dservers gives serverless dmap's CSV over both inputs.
  setup_map
  # A Go dserver's log format takes every table: the pattern we send
  # picks the query's (a log holding two tables counts STATS only).
  { cat "$D/mapr_testdata.log"; sed 's/MAPREDUCE:STATS/MAPREDUCE:OTHER/' "$D/mapr_testdata.log"; } >"$D/two.log"
  chmod 644 "$D/two.log"
  for who in go c; do
    port_of $who
    ours "two.$who" "$PORT" "$USER_AT" dmap --query "$COMPAT_Q1 outfile $T/two.$who.csv" --files "$D/two.log"
  done
  expect_bytes "two tables" "$T/two.go.csv" "$T/two.c.csv"
  n=0
  for q in "${MAP_QUERIES[@]}"; do
    n=$((n + 1))
    for who in go c; do
      port_of $who
      ours "map$n.$who" "$PORT" "$USER_AT" dmap --query "$q outfile $T/map$n.$who.csv" --files "$D/mapr_testdata.log"
      expect_rc "map$n.$who" 0
      [ -s "$T/map$n.$who.csv" ] || fail "map$n: our dmap wrote no CSV through the $who dserver"
    done
    [ "$(wc -l <"$T/map$n.c.csv")" -ge 2 ] || fail "map$n: our dserver's CSV has no rows"
    expect_bytes "map$n ($q)" "$T/map$n.go.csv" "$T/map$n.c.csv"
    run "mixed$n" dmap --servers "127.0.0.1:$GO_PORT,127.0.0.1:$SERVER_PORT" --user "$SERVER_USER" \
      --key "$SERVER_KEY" --trustAllHosts --query "$q outfile $T/mixed$n.csv" --files "$D/mapr_testdata.log"
    expect_rc "mixed$n" 0
    run "local$n" dmap --query "$q outfile $T/local$n.csv" --files "$D/mapr_testdata.log,$D/mapr_testdata.log"
    expect_bytes "mixed$n ($q)" "$T/mixed$n.csv" "$T/local$n.csv"
  done
  ;;
ext)
  # The query language's extensions (issue 18) are never sent to a Go
  # dserver: our dmap refuses each with an error naming it, before any
  # request (the server failed: exit 1; a server of ours would run it). A Go dmap's query that this build reads as arithmetic
  # (DTail read `$goroutines/2` as one field name) is refused by our
  # dserver rather than answered with another meaning.
  setup_map
  for q in 'from STATS select count($line) where $goroutines > 10 or $goroutines < 5' \
           'from STATS select count($line) group by $hostname having count($line) > 1' \
           'from STATS select sum($goroutines)/count($line)' \
           'from STATS select count($line) where $caller contains "a\"b"'; do
    ours ext.go "$GO_PORT" dtail dmap --query "$q" --files "$D/mapr_testdata.log"
    expect_rc "ext.go ($q)" 1
    expect_contains "ext.go ($q)" "$ERR" "which DTail's own query language does not have: a DTail 4.1 server cannot run it"
    grep -q '^ *\^$' "$ERR" || fail "ext.go ($q): no caret line"
  done
  go_client ext.c "$SERVER_PORT" "$SERVER_USER" dmap \
    --query 'from STATS select count($line) where $goroutines/2 > 3' --files "$D/mapr_testdata.log"
  expect_contains "Go dmap, arithmetic" "$OUT" "the query uses arithmetic, which DTail's own query language does not have"
  ;;
session)
  # The Go dmap --interactive-query (SESSION START, then SESSION UPDATE on
  # :reload) gets its first result, and after a :reload with another
  # query the new one, from either dserver; the transcripts of its
  # terminal are the same but for the AUTHKEY warning and the client's
  # own stats line.
  setup_map
  need_bin ptydrive
  printf '%s\n' 'expect count($line) \r\n---' 'expect \r\n\r\n' 'sleep 500' \
    "send :reload --query 'from STATS select max(\$goroutines) group by \$hostname'\\n" \
    'expect reload applied successfully' 'expect max($goroutines) \r\n---' 'expect \r\n\r\n' \
    'sleep 500' 'send :quit\n' 'exit 0' >"$T/session.steps"
  for who in go c; do
    port_of $who
    RUN_TIMEOUT=60 run "session.$who" "$DTAIL_BIN/ptydrive" -t 20 -o "$T/session.$who.tty" \
      "$T/session.steps" -- "$PEERS/dmap" --cfg none --servers "127.0.0.1:$PORT" --user "$USER_AT" \
      --auth-key-path "$SERVER_KEY" --trustAllHosts --logDir "$T/home/log" --noColor \
      --interactive-query --query 'from STATS select count($line) group by $hostname' \
      --files "$D/mapr_testdata.log"
    [ "$RC" -eq 0 ] || fail "session.$who: a step failed (ptydrive exit $RC): $(tail -c 600 "$T/session.$who.tty")"
    tr -d '\r' <"$T/session.$who.tty" | grep -v -e 'AUTHKEY registration failed' -e '|INFO|STATS:STATS|' \
      >"$T/session.$who.norm"
  done
  expect_bytes session "$T/session.c.norm" "$T/session.go.norm"
  ;;
authkey)
  # The Go client's AUTHKEY fast reconnect against our dserver: the key a
  # Go dcat registers logs the next one in once authorized_keys no longer
  # lists it; with Server.AuthKeyEnabled false it does not.
  server_setup
  mkdir -p "$D" && printf 'one\ntwo\n' >"$D/ak.log" && chmod 755 "$D" && chmod 644 "$D/ak.log"
  keys=$SRV/cache/$SERVER_USER.authorized_keys
  cp "$keys" "$T/keys.saved"
  for enabled in true false; do
    sed -i -e 's/"AuthKeyEnabled": [a-z]*, //' \
      -e "s/\"HostKeyBits\"/\"AuthKeyEnabled\": $enabled, \"HostKeyBits\"/" "$SERVER_CFG"
    cp "$T/keys.saved" "$keys"
    server_start
    go_client "ak1.$enabled" "$SERVER_PORT" "$SERVER_USER" dcat --plain --files "$D/ak.log"
    expect_bytes "ak1.$enabled" "$T/ak1.$enabled.norm" "$D/ak.log"
    : >"$keys"
    go_client "ak2.$enabled" "$SERVER_PORT" "$SERVER_USER" dcat --plain --files "$D/ak.log"
    server_stop
    if [ $enabled = true ]; then
      grep -qF 'AUTHKEY registration failed' "$T/ak1.$enabled.out" && fail "ak1.$enabled: the key was not registered"
      expect_bytes "ak2.$enabled" "$T/ak2.$enabled.norm" "$D/ak.log"
      expect_contains "ak2.$enabled" "$SERVER_LOG" "|Authorized by in-memory auth key store"
    else
      expect_contains "ak1.$enabled" "$T/ak1.$enabled.out" "AUTHKEY registration failed"
      grep -q '^one$' "$T/ak2.$enabled.norm" && fail "ak2.$enabled: logged in with a key authorized_keys no longer lists"
      grep -qF 'in-memory auth key store' "$SERVER_LOG" && fail "ak2.$enabled: a disabled store let a key in"
    fi
  done
  finish
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
server_stop
finish
