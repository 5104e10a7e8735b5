# DTail 4.1 interop: the Go DTail clients (../shared/peers) against our
# dserver print what they print against the Go dserver on the same files
# (Go<->Go = Go<->ours), apart from what differs by nature (the logger's
# time and user@ip:port in server messages) and the documented differences
# (docs/protocol-dt41.md: our dserver keeps no AUTHKEY store, so the Go
# client warns "AUTHKEY registration failed"). Skips, by name, without
# ../shared/peers.
# Usage: dt41.sh CASE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"

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
  chmod -R a+rwX "$GO_DIR"
  server_start
  local port k
  for k in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
    ss -ltn | grep -q "127.0.0.1:$port " || break
  done
  local asuser=()
  [ "$(id -u)" -eq 0 ] && asuser=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
  (cd "$GO_DIR" && exec timeout 300 "${asuser[@]}" "$PEERS/dserver" --cfg none --bindAddress 127.0.0.1 \
    --port "$port" --logDir "$GO_DIR/log" --shutdownAfter 290) >"$GO_DIR/dserver.out" 2>&1 &
  GO_PID=$!
  for k in $(seq 1 300); do
    ss -ltn | grep -q "127.0.0.1:$port " && break
    sleep 0.1
  done
  ss -ltn | grep -q "127.0.0.1:$port " || die "the Go dserver did not listen on $port"
  GO_PORT=$port
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
  need_compat
  setup_both
  cp "$M" "$D/mapr_testdata.log"
  chmod 644 "$D/mapr_testdata.log"
  n=0
  for q in "$COMPAT_Q1" "$COMPAT_Q1 where lifetimeConnections >= 3" \
    "$COMPAT_Q1 where \$time eq \"1002-071949\"" "$COMPAT_Q1D" "$COMPAT_Q2"; do
    n=$((n + 1))
    for who in go c; do
      port=$GO_PORT u=dtail
      [ $who = c ] && port=$SERVER_PORT u=$SERVER_USER
      go_client "map$n.$who" "$port" "$u" dmap --query "$q outfile $T/map$n.$who.csv" \
        --files "$D/mapr_testdata.log"
      [ -s "$T/map$n.$who.csv" ] || fail "map$n: the Go dmap wrote no CSV through the $who dserver"
    done
    [ "$(wc -l <"$T/map$n.go.csv")" -ge 2 ] || fail "map$n: the Go dserver's CSV has no rows"
    expect_multiset "map$n ($q)" "$T/map$n.c.csv" "$T/map$n.go.csv"
  done
  ;;
health)
  setup_both
  run health.go "$PEERS/dtailhealth" --server "127.0.0.1:$GO_PORT"
  sed "s/:$GO_PORT/:P/" "$OUT" >"$T/health.go.norm"
  run health.c "$PEERS/dtailhealth" --server "$SERVER"
  expect_rc health.c 0
  sed "s/:$SERVER_PORT/:P/" "$OUT" >"$T/health.c.norm"
  expect_bytes health "$T/health.c.norm" "$T/health.go.norm"
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
server_stop
finish
