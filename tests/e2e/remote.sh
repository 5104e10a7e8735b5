# dcat, dgrep, dmap and tail through a real dserver on a loopback port
# (harness server_lib.sh): DTail's server-mode acceptance cases
# (../shared/compat, reference §7.2 "M" subtests), every dmap compat query
# giving the same CSV serverless and through the server, and what the
# server must survive, staying up and ASan-clean: denied paths (by rule,
# by mode bits, by the server process's own rights, a symlink out of the
# allowed tree), malformed and oversized frames from a raw client, clients
# that disconnect mid-stream, and following (appends, rotation) through a
# TAIL request. Every client run is bounded (lib.sh run: 20 s).
# The modes that copy DTail's files in (copy_in) skip without them;
# dmap_oracle runs the dmap queries over the project's STATS log instead.
# Usage: bash remote.sh dcat1|dcat2|dcat3|dcatcolors|dgrep|icase|max|dmap|dmap_oracle|append|denied|malformed|disconnect|tail|nonfinite|order_text|fields
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
mode=${1:?mode}
need_bin dcat
need_bin dgrep
need_bin dmap
need_input "$M"

# Inputs live under $T (the harness makes it readable by the server user).
IN=$T/in
mkdir -p "$IN" || die "mkdir $IN"
chmod 755 "$IN"

# srv LABEL TOOL ARGS...: TOOL through the server, DTail's server-mode flags
# (and the harness's client config from $HOME).
srv() {
  local label=$1 tool=$2
  shift 2
  run "$label" "$tool" "${SERVER_CLIENT_FLAGS[@]}" "$@"
}

copy_in() { # NAME...: compat files into $IN
  local f
  need_compat
  for f in "$@"; do
    need_input "$COMPAT/$f"
    cp "$COMPAT/$f" "$IN/$f" && chmod 644 "$IN/$f" || die "cp $f"
  done
}

# same_csv LABEL QUERY EXPECTED: the query serverless and through the
# server; both CSVs equal EXPECTED as multisets, and each other byte for
# byte once sorted.
same_csv() {
  local label=$1 q=$2 exp=$3
  run "$label.local" dmap --cfg none --logLevel warn --noColor --query "$q outfile $T/$label.local.csv" "$IN/mapr_testdata.log"
  expect_rc "$label.local" 0
  srv "$label.server" dmap --logLevel warn --query "$q outfile $T/$label.server.csv" --files "$IN/mapr_testdata.log"
  expect_rc "$label.server" 0
  [ -f "$T/$label.server.csv" ] || { fail "$label: the server run wrote no CSV"; return; }
  expect_multiset "$label serverless" "$T/$label.local.csv" "$exp"
  expect_multiset "$label server" "$T/$label.server.csv" "$exp"
  [ "$(cat "$T/$label.server.csv.query")" = "$q outfile $T/$label.server.csv" ] ||
    fail "$label: the .query file does not hold the query"
}

# same_result LABEL FILE QUERY EXPECTED: the query over $IN/FILE serverless
# and through the server; both CSVs are byte for byte EXPECTED (header and
# rows, in order).
same_result() {
  local label=$1 file=$2 q=$3
  printf '%s\n' "$4" >"$T/$label.expected"
  run "$label.local" dmap --cfg none --logLevel warn --noColor --query "$q outfile $T/$label.local.csv" "$IN/$file"
  expect_rc "$label.local" 0
  srv "$label.server" dmap --logLevel warn --query "$q outfile $T/$label.server.csv" --files "$IN/$file"
  expect_rc "$label.server" 0
  [ -f "$T/$label.local.csv" ] && [ -f "$T/$label.server.csv" ] ||
    { fail "$label: a run wrote no CSV"; return; }
  expect_bytes "$label serverless" "$T/$label.local.csv" "$T/$label.expected"
  expect_bytes "$label server" "$T/$label.server.csv" "$T/$label.expected"
}

# dmap_where WHERE LABEL QUERY FILE: QUERY over $IN/FILE serverless (WHERE
# local) or through the server (server), then its exit code must be 0.
dmap_where() {
  if [ "$1" = local ]; then
    run "$2" dmap --cfg none --logLevel warn --query "$3" "$IN/$4"
  else
    srv "$2" dmap --logLevel warn --query "$3" --files "$IN/$4"
  fi
  expect_rc "$2" 0
}

# The server's last STATS line counts no session, pre-auth or not.
last_stats_idle() {
  grep 'MAPREDUCE:STATS' "$SERVER_LOG" | tail -n 1 | grep -q 'currentConnections=0|.*preAuthConnections=0'
}

case $mode in
dcat1)
  server_setup
  copy_in dcat1a.txt dcat1b.txt dcat1c.txt
  server_start
  for x in a b c; do
    srv "dcat1$x" dcat --plain --files "$IN/dcat1$x.txt"
    expect_rc "dcat1$x" 0
    expect_bytes "dcat1$x" "$OUT" "$COMPAT/dcat1$x.txt"
  done
  # TestDCat1Colors M: not plain, the server's REMOTE lines.
  run colors dcat --servers "$SERVER" --key "$SERVER_KEY" --trustAllHosts --files "$IN/dcat1a.txt"
  expect_rc colors 0
  expect_contains colors "$OUT" "REMOTE"
  server_stop
  ;;
addresses)
  # A server name that resolves to ::1 first and 127.0.0.1 second (as
  # "localhost" does with Debian's /etc/hosts) reaches a dserver on
  # 127.0.0.1: the client tries each address, libssh alone only the first.
  [ "$(id -u)" -eq 0 ] || skip "needs root to give a mount namespace its own /etc/hosts"
  command -v unshare >/dev/null || skip "unshare is not installed"
  ip -6 addr show lo 2>/dev/null | grep -q '::1' || skip "the loopback has no ::1"
  server_setup
  server_start
  printf '::1 dualhost\n127.0.0.1 dualhost\n' >"$T/hosts"
  printf 'over both\n' >"$T/both.txt"
  chmod 644 "$T/both.txt"
  run order unshare -m sh -c 'mount --bind "$1" /etc/hosts && getent ahosts dualhost' sh "$T/hosts"
  head -n 1 "$OUT" | grep -q '^::1' || skip "the resolver does not give ::1 first here"
  run dual unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' sh "$T/hosts" \
    "$DTAIL_BIN/dcat" --plain --cfg none --servers "dualhost:$SERVER_PORT" --key "$SERVER_KEY" \
    --trustAllHosts --files "$T/both.txt"
  expect_rc dual 0
  expect_bytes dual "$OUT" "$T/both.txt"
  server_stop
  ;;
dcat2)
  copy_in dcat2.txt
  for i in $(seq 100); do cat "$IN/dcat2.txt"; done >"$T/dcat2.expected"
  SERVER_CFG_EXTRA='"MaxConcurrentCats": 10'
  server_setup
  server_start
  files=$IN/dcat2.txt
  for i in $(seq 2 100); do files=$files,$IN/dcat2.txt; done
  srv dcat2 dcat --plain --logLevel error --files "$files"
  expect_rc dcat2 0
  expect_multiset dcat2 "$OUT" "$T/dcat2.expected"
  server_stop
  ;;
dcat3)
  copy_in dcat3.txt
  SERVER_CFG_EXTRA='"MaxLineLength": 1024'
  server_setup
  server_start
  srv dcat3 dcat --plain --logLevel error --files "$IN/dcat3.txt"
  expect_rc dcat3 0
  expect_multiset dcat3 "$OUT" "$COMPAT/dcat3.txt.expected"
  server_stop
  ;;
dcatcolors)
  server_setup
  copy_in dcatcolors.txt
  DTAIL_HOSTNAME_OVERRIDE=integrationtest server_start
  srv dcatcolors dcat --logLevel error --files "$IN/dcatcolors.txt"
  expect_rc dcatcolors 0
  expect_bytes dcatcolors "$OUT" "$COMPAT/dcatcolors.server.expected"
  server_stop
  ;;
dgrep)
  server_setup
  copy_in mapr_testdata.log
  server_start
  F=$IN/mapr_testdata.log
  srv dgrep1 dgrep --plain --grep 1002-071947 --files "$F"
  expect_rc dgrep1 0
  expect_bytes dgrep1 "$OUT" "$COMPAT/dgrep1.txt.expected"
  srv dgrep2 dgrep --plain --grep '1002-07194[789]' --files "$F"
  expect_rc dgrep2 0
  expect_bytes dgrep2 "$OUT" "$COMPAT/dgrep2.txt.expected"
  srv ctx1 dgrep --plain --grep 1002-071947 --before 2 --after 3 --files "$F"
  expect_rc ctx1 0
  expect_bytes ctx1 "$OUT" "$COMPAT/dgrepcontext1.txt.expected"
  srv ctx2 dgrep --plain --grep 1002-071947 --before 2 --after 3 --invert --files "$F"
  expect_rc ctx2 0
  expect_bytes ctx2 "$OUT" "$COMPAT/dgrepcontext2.txt.expected"
  server_stop
  ;;
icase)
  # dgrep -i / --ignore-case: serverless, through the server and GNU grep -i
  # select the same lines (literal and regex patterns, with --invert, and
  # over a file large enough for the parallel scan).
  {
    printf 'Creating SERVER now\ncreating server\nnothing here\nERROR: Server down\n'
    awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%s|line %d of the big part\n", (i % 3 ? "info" : "INFO"), i }'
  } >"$IN/icase.log"
  chmod 644 "$IN/icase.log"
  server_setup
  server_start
  n=0
  for spec in 'creating server%' 'info%' '^(error|creating) SERVER%' 'INFO\|line [0-9]+5 %' 'server%--invert'; do
    p=${spec%%%*}; extra=${spec#*%}
    n=$((n + 1))
    gv=(); [ "$extra" = --invert ] && gv=(-v)
    grep -a -E -i "${gv[@]}" -- "$p" "$IN/icase.log" >"$T/icase$n.want"
    [ -s "$T/icase$n.want" ] || die "icase$n: grep selected nothing"
    run "icase$n.local" dgrep --plain --cfg none -i $extra --grep "$p" "$IN/icase.log"
    expect_rc "icase$n.local" 0
    expect_bytes "icase$n serverless -i '$p' $extra" "$OUT" "$T/icase$n.want"
    srv "icase$n.server" dgrep --plain --ignore-case $extra --grep "$p" --files "$IN/icase.log"
    expect_rc "icase$n.server" 0
    expect_bytes "icase$n server --ignore-case '$p' $extra" "$OUT" "$T/icase$n.want"
  done
  # Without -i the case counts.
  run nocase dgrep --plain --cfg none --grep 'creating server' "$IN/icase.log"
  expect_lines nocase "$OUT" 1
  server_stop
  ;;
max)
  # TestDGrepMaxCountNoEOFError M.
  for i in $(seq 0 19); do echo "INFO line $i"; done >"$IN/max.log"
  printf 'INFO line 0\nINFO line 1\nINFO line 2\n' >"$T/max.want"
  SERVER_CFG_EXTRA="\"Permissions\": {\"Default\": [\"readfiles:^$IN/max\\\\.log\$\"]}"
  server_setup
  SERVER_LOG_LEVEL=debug server_start
  srv max dgrep --plain --logLevel error --grep INFO --max 3 --files "$IN/max.log"
  expect_rc max 0
  expect_bytes max "$OUT" "$T/max.want"
  expect_log max "File processing complete"
  grep -E 'ERROR.*\|EOF$' "$SERVER_LOG" && fail "the server logged an EOF error"
  server_stop
  ;;
dmap)
  server_setup
  copy_in mapr_testdata.log
  server_start
  same_csv 1a "$COMPAT_Q1" "$COMPAT/dmap1a.csv.expected"
  same_csv 1b "$COMPAT_Q1 where lifetimeConnections >= 3" "$COMPAT/dmap1b.csv.expected"
  same_csv 1c "$COMPAT_Q1 where \$time eq \"1002-071949\"" "$COMPAT/dmap1c.csv.expected"
  same_csv 1d "$COMPAT_Q1D" "$COMPAT/dmap1d.csv.expected"
  same_csv 2 "$COMPAT_Q2" "$COMPAT/dmap2.csv.expected"
  server_stop
  ;;
dmap_oracle)
  # As dmap, over the generated STATS log (under the name same_csv reads),
  # against stats_oracle.awk.
  server_setup
  cp "$M" "$IN/mapr_testdata.log" && chmod 644 "$IN/mapr_testdata.log" || die "cp $M"
  server_start
  for c in 1a:q1 1b:q1b 1c:q1c 1d:q1d 2:q2; do
    want_csv "o${c%%:*}" "${c#*:}"
    case ${c%%:*} in
      1a) q=$COMPAT_Q1 ;;
      1b) q="$COMPAT_Q1 where lifetimeConnections >= 3" ;;
      1c) q="$COMPAT_Q1 where \$time eq \"1002-071949\"" ;;
      1d) q=$COMPAT_Q1D ;;
      2) q=$COMPAT_Q2 ;;
    esac
    same_csv "o${c%%:*}" "$q" "$WANT"
  done
  server_stop
  ;;
append)
  server_setup
  # TestDMap4Append M: `outfile append:X` names another file; X stays.
  copy_in mapr_testdata.log
  server_start
  cd "$T" || die "cd $T"
  X=dmap4.csv
  F=$IN/mapr_testdata.log
  srv s1 dmap --query "$COMPAT_Q2 outfile $X" --files "$F"
  expect_rc s1 0
  expect_multiset "step 1" "$X" "$COMPAT/dmap4_query1.csv.expected"
  srv s2 dmap --query "$COMPAT_Q2_AVG_REVERSE outfile append:$X" --files "$F"
  expect_rc s2 0
  expect_multiset "step 2" "$X" "$COMPAT/dmap4_query1.csv.expected"
  srv s3 dmap --query "select count(\$line),\$hostname group by \$hostname outfile append:$X" --files "$F"
  expect_rc s3 0
  expect_multiset "step 3" "$X" "$COMPAT/dmap4_query1.csv.expected"
  [ "$(cat "$X.query")" = "$COMPAT_Q2 outfile $X" ] || fail "the .query file changed"
  server_stop
  ;;
denied)
  mkdir -p "$IN/allowed" "$IN/outside" && chmod 755 "$IN/allowed" "$IN/outside"
  echo "fine line" >"$IN/allowed/ok.log"
  echo "outside line" >"$IN/outside/o.log"
  echo "write-only line" >"$IN/allowed/wo.log"
  echo "owner-only line" >"$IN/allowed/own.log"
  chmod 644 "$IN/allowed/ok.log" "$IN/outside/o.log"
  chmod 200 "$IN/allowed/wo.log"
  chmod 600 "$IN/allowed/own.log"
  ln -s "$IN/outside/o.log" "$IN/allowed/escape.log"
  SERVER_CFG_EXTRA="\"Permissions\": {\"Default\": [\"readfiles:^$IN/allowed/\"]}"
  server_setup
  server_start
  deny() { # LABEL FILE: refused, by the name asked for, nothing printed
    srv "$1" dcat --plain --files "$2"
    expect_rc "$1" 1
    expect_empty "$1" "$OUT"
    expect_contains "$1" "$ERR" "No permission to read file, or it does not exist|$2"
  }
  deny rule "$IN/outside/o.log"
  deny mode "$IN/allowed/wo.log"
  deny symlink "$IN/allowed/escape.log"
  deny glob "$IN/outside/*.log"
  if [ "$(id -u)" -eq 0 ]; then
    # The SSH user (root) may read it, the server process (nobody) may not.
    deny process "$IN/allowed/own.log"
  fi
  deny missing "$IN/allowed/none.log"   # as a refused file (secrets.sh compares them)
  server_alive
  srv ok dcat --plain --files "$IN/allowed/ok.log"
  expect_rc ok 0
  expect_contains ok "$OUT" "fine line"
  expect_log denied "No permission to read file"
  server_stop
  ;;
malformed)
  server_setup
  need_bin wireclient
  server_start
  W=$DTAIL_BIN/wireclient
  # An unknown frame type, an oversized REQUEST, a truncated REQUEST.
  run type "$W" "$SERVER" "$SERVER_KEY" raw 42000000000178
  expect_rc type 0
  expect_contains type "$OUT" "unknown frame type 0x42"
  run big "$W" "$SERVER" "$SERVER_KEY" raw 01007f000000
  expect_rc big 0
  expect_contains big "$OUT" "oversized REQUEST frame"
  run short "$W" "$SERVER" "$SERVER_KEY" raw 0100000000027879
  expect_rc short 0
  expect_contains short "$OUT" "protocol error"
  # A grep REQUEST with a flag bit this server does not know (0x80): refused,
  # not served as if the flag were not there.
  run flags "$W" "$SERVER" "$SERVER_KEY" raw "01000000002f020000000080$(printf '%056d' 0)0000000178$(printf '%016d' 0)"
  expect_rc flags 0
  expect_contains flags "$OUT" "unknown flags 0x80"
  server_alive
  health_ok=$("$DTAIL_BIN/dtailhealth" --server "$SERVER" --connectTimeout 30000 2>&1)
  [ "$health_ok" = "OK: All fine at $SERVER :-)" ] || fail "health after garbage: $health_ok"
  server_stop
  ;;
disconnect)
  server_setup
  awk 'BEGIN { for (i = 0; i < 300000; i++) printf "INFO|1002-071143|line %d of a big file with some padding to be long enough\n", i }' >"$IN/big.log"
  chmod 644 "$IN/big.log"
  server_start
  # The reader goes away after 100 KB (dcat dies on the closed pipe) ...
  run_sh head "'$DTAIL_BIN/dcat' --plain ${SERVER_CLIENT_FLAGS[*]} --files '$IN/big.log' | head -c 100000 >/dev/null"
  # ... or is killed while the server waits for its window: its stdout is
  # a FIFO held open and never read, so it stops reading the channel once
  # the pipe is full, and it is killed once the server reads the file.
  mkfifo "$T/never-read"
  exec 4<>"$T/never-read"
  "$DTAIL_BIN/dcat" "${SERVER_CLIENT_FLAGS[@]}" --files "$IN/big.log" >"$T/never-read" 2>/dev/null </dev/null &
  stalled=$!
  wait_holds "$SERVER_CHILD" "$IN/big.log"
  kill -KILL "$stalled"
  wait "$stalled" 2>/dev/null
  exec 4<&-
  expect_log disconnect "client gone"
  server_alive
  srv after dcat --plain --files "$IN/big.log"
  expect_rc after 0
  expect_lines after "$OUT" 300000
  # Every session ended: the server's last count of connections is 0.
  poll 30 last_stats_idle ||
    fail "sessions still open 30 s after their clients left: $(grep 'MAPREDUCE:STATS' "$SERVER_LOG" | tail -n 1)"
  server_stop
  ;;
tail)
  need_bin wireclient
  server_setup
  F=$IN/follow.log
  echo "old line before the tail" >"$F"
  chmod 644 "$F"
  server_start
  # The request's timeout (10 s) is its only end: long enough for every
  # line on a loaded machine, and the lines are waited for first.
  BG_TIMEOUT=40 bg_start wireclient "$SERVER" "$SERVER_KEY" tail "$F" "" 10
  expect_log tail "Start reading|$F|follow.log"
  wait_following "$SERVER_CHILD" "$F"
  for i in $(seq 1 100); do echo "appended $i"; done >>"$F"
  mv "$F" "$F.1"
  for i in $(seq 1 50); do echo "after rotation $i"; done >"$F"
  chmod 644 "$F"
  wait_out "after rotation 50" 30
  bg_stop none 30
  expect_rc tail 0
  expect_contains tail "$ERR" "END 0"
  grep -q "old line" "$OUT" && fail "tail: read what was there before it started"
  [ "$(grep -c '^appended ' "$OUT")" -eq 100 ] || fail "tail: $(grep -c '^appended ' "$OUT") appended lines, want 100"
  [ "$(grep -c '^after rotation ' "$OUT")" -eq 50 ] || fail "tail: $(grep -c '^after rotation ' "$OUT") lines after the rotation, want 50"
  server_alive
  server_stop
  ;;
tail_copy_refused)
  # copytruncate through dserver: the files of the directory that may be
  # the copy are checked like the followed file, and a refused one is no
  # news to the client, which asked for none of them (here the rules allow
  # the followed file only, so the copy and another log are refused).
  need_bin wireclient
  SERVER_CFG_EXTRA="\"Permissions\": {\"Default\": [\"readfiles:^$IN/ct\\\\.log\$\"]}"
  server_setup
  F=$IN/ct.log
  echo "old line before the tail" >"$F"
  chmod 644 "$F"
  SERVER_LOG_LEVEL=debug server_start
  BG_TIMEOUT=40 bg_start wireclient "$SERVER" "$SERVER_KEY" tail "$F" "" 10
  wait_following "$SERVER_CHILD" "$F"
  for i in $(seq 1 100); do echo "before the copy $i"; done >>"$F"
  echo "another log" >"$IN/other.log"
  cp "$F" "$F.1" && chmod 644 "$IN/other.log" "$F.1"
  : >"$F"
  for i in $(seq 1 50); do echo "after the truncation $i"; done >>"$F"
  wait_out "after the truncation 50" 30
  bg_stop none 30
  expect_rc tail_copy 0
  expect_contains tail_copy "$ERR" "END 0"
  expect_log tail_copy "Copy candidate refused|"
  if grep -q "No permission" "$OUT" "$ERR"; then
    fail "a refused copy candidate was told to the client: $(grep -h 'No permission' "$OUT" "$ERR" | head -2)"
  fi
  server_alive
  server_stop
  ;;
tail_rotate)
  # dtail through dserver: 1M lines written while the file is rotated
  # (rename and create) three times and truncated once; every line arrives
  # exactly once, in order.
  server_setup
  F=$IN/rot.log
  # Not empty: at offset 0 of an empty file, a follower that opened it
  # and one that has gone to its end look the same (wait_following).
  echo "an old line, before the tail" >"$F"
  chmod 644 "$F"
  server_start
  bg_start dtail --plain "${SERVER_CLIENT_FLAGS[@]}" --files "$F"
  expect_log tail_rotate "Start reading|$F|rot.log"
  rotate_check "rotation through the server" "$F" "$SERVER_CHILD"
  server_alive
  server_stop
  ;;
nonfinite)
  # inf, -inf and 1e999 are numbers, nan is not (docs/query-language.md):
  # every aggregate gives the same text serverless and through the server,
  # whose states carry the infinities. p50 over {1, inf} crashed
  # serverless and said 1.000000 through the server; quantiles are now
  # DuckDB's quantile_cont, whose interpolation 1 * 0.5 + inf * 0.5 is +Inf.
  server_setup
  printf 'v=1\nv=inf\n' >"$IN/one_inf.log"
  printf 'v=-inf\nv=1\n' >"$IN/ninf_one.log"
  printf 'v=nan\nv=1\n' >"$IN/nan_one.log"
  printf 'v=1\nv=inf\nv=inf\n' >"$IN/one_inf_inf.log"
  printf 'k=a|v=1\nk=n|v=inf\nk=b|v=-5\nk=n|v=-inf\nk=a|v=inf\nk=n|v=1\n' >"$IN/groups.log"
  printf '{"x":1e999}\n{"x":1}\n{"x":-1e999}\n{"x":-1e999}\n' >"$IN/big.json"
  for x in inf 1 inf; do
    printf 'INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|x=%s\n' "$x"
  done >"$IN/stats.log"
  chmod 644 "$IN"/*
  server_start
  ALL='select count(v),sum(v),avg(v),min(v),max(v),last(v),len(v),percentage(v),percentile(v),p50(v),p99(v),quantile(v,0.75) logformat generickv'
  HEAD='count(v),sum(v),avg(v),min(v),max(v),last(v),len(v),percentage(v),percentile(v),p50(v),p99(v),"quantile(v,0.75)"'
  same_result one_inf one_inf.log "$ALL" "$HEAD
2,+Inf,+Inf,1.000000,+Inf,inf,3.000000,NaN,100.000000,+Inf,+Inf,+Inf"
  same_result ninf_one ninf_one.log "$ALL" "$HEAD
2,-Inf,-Inf,-Inf,1.000000,1,1.000000,NaN,100.000000,-Inf,-Inf,-Inf"
  same_result nan_one nan_one.log "$ALL" "$HEAD
2,1.000000,1.000000,1.000000,1.000000,1,1.000000,100.000000,100.000000,1.000000,1.000000,1.000000"
  same_result one_inf_inf one_inf_inf.log "$ALL" "$HEAD
3,+Inf,+Inf,1.000000,+Inf,inf,3.000000,NaN,100.000000,+Inf,+Inf,+Inf"
  same_result groups groups.log 'select k,sum(v),percentile(v) group by k rorder by sum(v) logformat generickv' "k,sum(v),percentile(v)
n,NaN,NaN
b,-5.000000,66.666667
a,+Inf,100.000000"
  same_result json big.json 'select count(x),sum(x),min(x),max(x),p50(x),p99(x) logformat json' "count(x),sum(x),min(x),max(x),p50(x),p99(x)
4,NaN,-Inf,+Inf,-Inf,+Inf"
  same_result stats stats.log 'from STATS select count(x),p95(x),max(x)' "count(x),p95(x),max(x)
3,+Inf,+Inf"
  # SQLite holds the infinities as REAL and NaN (no REAL) as NULL.
  if command -v sqlite3 >/dev/null; then
    for where in local server; do
      dmap_where $where "sq.$where" "select k,sum(v),max(v) group by k logformat generickv outfile $T/$where.sqlite" groups.log
      got=$(timeout 20 sqlite3 -batch -list "$T/$where.sqlite" \
        "SELECT k, typeof(\"sum(v)\"), \"sum(v)\" = 9e999, typeof(\"max(v)\"), \"max(v)\" = 9e999 FROM result ORDER BY k")
      want=$'a|real|1|real|1\nb|real|0|real|0\nn|null||real|1'
      [ "$got" = "$want" ] || fail "sqlite $where: got '$got', want '$want'"
    done
  else
    note "sqlite3 CLI missing: SQLite values not checked"
  fi
  # The terminal table shows the same text.
  RUN_STDIN=$IN/one_inf.log run table dmap --cfg none --noColor 'select p50(v),sum(v) logformat generickv'
  expect_rc table 0
  expect_contains table "$OUT" '   +Inf |   +Inf '
  server_alive
  server_stop
  ;;
fields)
  # Names that resolve to nothing (issue 13.9): a bareword no parsed line
  # had is warned about with the closest name that did appear, once, also
  # through the server (its FIELDS report); an aggregate whose values were
  # never numbers is an empty cell (NULL in SQLite), not 0.000000, and the
  # non-numeric values are counted. The compat rule stays: an absent field
  # renders 0.000000 as DTail renders it.
  server_setup
  for i in 1 2 3; do
    printf 'INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|hostname=h%s|currentConnections=%s|state=up\n' "$((i % 2))" "$i"
  done >"$IN/fields.log"
  printf 'k=a|v=x\nk=a|v=y\nk=b|v=2\n' >"$IN/text.log"
  chmod 644 "$IN"/*
  server_start
  Q='from STATS select avg(currentConections),count($line) group by hostnme'
  W1="dmap: warning: field 'currentConections' was in no parsed line; did you mean 'currentConnections'?"
  W2="dmap: warning: field 'hostnme' was in no parsed line; did you mean 'hostname'?"
  for where in local server; do
    dmap_where $where "typo.$where" "$Q outfile $T/typo.$where.csv" fields.log
    expect_contains "typo.$where" "$ERR" "$W1"
    expect_contains "typo.$where" "$ERR" "$W2"
    [ "$(grep -c 'was in no parsed line' "$ERR")" = 2 ] || fail "typo.$where: not one warning per name"
    printf 'avg(currentConections),count($line)\n0.000000,3\n' >"$T/typo.expected"
    expect_bytes "typo.$where csv" "$T/typo.$where.csv" "$T/typo.expected"
    # Every name found: no warning at all.
    dmap_where $where "ok.$where" "from STATS select avg(currentConnections) group by hostname outfile $T/ok.$where.csv" fields.log
    ! grep -q 'warning' "$ERR" || { fail "ok.$where: a warning"; show_stderr; }
    # Text values: empty cells and a count of them.
    TQ='select k,sum(v),avg(v),min(v),max(v),percentage(v),p50(v),count(v) group by k logformat generickv'
    dmap_where $where "text.$where" "$TQ outfile $T/text.$where.csv" text.log
    expect_contains "text.$where" "$ERR" "dmap: warning: field 'v': 2 values were not numbers"
    printf 'k,sum(v),avg(v),min(v),max(v),percentage(v),p50(v),count(v)\na,,,,,,,2\nb,2.000000,2.000000,2.000000,2.000000,100.000000,2.000000,1\n' >"$T/text.expected"
    expect_multiset "text.$where csv" "$T/text.$where.csv" "$T/text.expected"
    if command -v sqlite3 >/dev/null; then
      dmap_where $where "tsq.$where" "$TQ outfile $T/text.$where.sqlite" text.log
      got=$(timeout 20 sqlite3 -batch -list "$T/text.$where.sqlite" \
        "SELECT k, typeof(\"sum(v)\"), typeof(\"avg(v)\"), typeof(\"p50(v)\"), \"count(v)\" FROM result ORDER BY k")
      want=$'a|null|null|null|2\nb|real|real|real|1'
      [ "$got" = "$want" ] || fail "sqlite $where: got '$got', want '$want'"
    fi
  done
  server_alive
  server_stop
  ;;
order_text)
  # order by a text column: byte order, the same serverless and merged
  # from the server's partial (both kept key order: every text was 0).
  server_setup
  printf 'k=1|s=beta\nk=2|s=alpha\nk=3|s=Zulu\nk=4|s=10\nk=5|s=9\nk=6\nk=7|s=alphabet\n' >"$IN/text.log"
  printf 'k=1|s=-1\nk=2|s=10\nk=3\nk=4|s=9\nk=5|s=+Inf\n' >"$IN/numbers.log"
  chmod 644 "$IN"/*
  server_start
  same_result desc text.log 'select k,last(s) group by k order by last(s) logformat generickv' "k,last(s)
1,beta
7,alphabet
2,alpha
3,Zulu
5,9
4,10
6,"
  same_result asc text.log 'select k,s group by k rorder by s logformat generickv' "k,s
6,
4,10
5,9
3,Zulu
2,alpha
7,alphabet
1,beta"
  same_result numbers numbers.log 'select k,s group by k rorder by s logformat generickv' "k,s
1,-1
3,
4,9
2,10
5,+Inf"
  server_stop
  ;;
*) die "unknown mode $mode" ;;
esac
finish
