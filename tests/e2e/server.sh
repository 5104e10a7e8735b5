# dserver end to end: a real server on a loopback port, real SSH clients
# (ours, and OpenSSH's ssh as an independent one). The server must stay up
# and ASan-clean through every refusal, and stop with exit 0.
# Usage: server.sh CASE
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"

H=$DTAIL_BIN/dtailhealth
need_bin dtailhealth
# dtailhealth's connect timeout (default 2 s) only as a hang guard where
# the server is up: a loaded machine's sanitizer build can need more.
HT=(--connectTimeout 30000)

ssh_opts() {
  echo -p "$SERVER_PORT" -o StrictHostKeyChecking=no -o UserKnownHostsFile="$T/home/.ssh/ssh_known" \
    -o BatchMode=yes -o ConnectTimeout=5 -o LogLevel=ERROR
}

health_ok() {
  run "$1" "$H" --server "$SERVER" "${HT[@]}"
  expect_rc "$1" 0
  echo "OK: All fine at $SERVER :-)" >"$T/$1.want"
  expect_bytes "$1" "$OUT" "$T/$1.want"
}

case ${1:-} in
health_compat)
  # DTail's compat cases need no server.
  need_compat
  run h1 "$H"
  expect_rc h1 1
  expect_bytes h1 "$OUT" "$COMPAT/dtailhealth1.expected"
  run h2 "$H" --server example:1
  expect_rc h2 2
  expect_bytes h2 "$OUT" "$COMPAT/dtailhealth2.expected"
  ;;
health)
  server_setup
  server_start
  health_ok ok
  run ok_noauthkey "$H" --server "$SERVER" --no-auth-key "${HT[@]}"
  expect_rc ok_noauthkey 0
  server_stop
  # Nothing listens any more: CRITICAL, quickly.
  run gone "$H" --server "$SERVER"
  expect_rc gone 2
  expect_contains gone "$OUT" "CRITICAL: DTail server not operating properly at $SERVER!"
  run badflag "$H" --nope
  expect_rc badflag 2
  ;;
unauthorized)
  server_setup
  ssh-keygen -q -t ed25519 -N '' -f "$T/other" || die "ssh-keygen"
  server_start
  command -v ssh >/dev/null || skip "OpenSSH client not installed"
  # shellcheck disable=SC2046
  RUN_TIMEOUT=15 run ssh_other ssh $(ssh_opts) -i "$T/other" -o IdentitiesOnly=yes "$SERVER_USER@127.0.0.1" true
  expect_rc ssh_other 255
  expect_contains ssh_other "$ERR" "Permission denied"
  # A user without any authorized_keys file, with the good key.
  # shellcheck disable=SC2046
  RUN_TIMEOUT=15 run ssh_nouser ssh $(ssh_opts) -i "$SERVER_KEY" -o IdentitiesOnly=yes "nosuchuser@127.0.0.1" true
  expect_rc ssh_nouser 255
  server_alive
  health_ok after
  # Failures from one address: the first logged at once, the rest of the
  # minute as one line (at the latest when the server stops).
  expect_log log "Authentication failed|127.0.0.1|$SERVER_USER|public key of user not authorized"
  server_stop
  expect_log log "Authentication failures|127.0.0.1|"
  expect_log log "|last nosuchuser|unable to find any authorized keys file"
  ;;
password)
  server_setup
  server_start
  command -v ssh >/dev/null || skip "OpenSSH client not installed"
  printf '#!/bin/sh\necho guessed\n' >"$T/askpass"
  chmod 755 "$T/askpass"
  # shellcheck disable=SC2046
  SSH_ASKPASS=$T/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=none RUN_TIMEOUT=15 \
    run ssh_pw ssh $(ssh_opts | sed 's/-o BatchMode=yes//') -o PreferredAuthentications=password \
      -o PubkeyAuthentication=no -o NumberOfPasswordPrompts=2 "$SERVER_USER@127.0.0.1" true
  expect_rc ssh_pw 255
  expect_contains ssh_pw "$ERR" "Permission denied"
  expect_log log "$SERVER_USER|password authentication refused"
  # The health user with the wrong password gets nothing either.
  printf '#!/bin/sh\necho DTAIL-HEALTH-not\n' >"$T/askpass"
  # shellcheck disable=SC2046
  SSH_ASKPASS=$T/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=none RUN_TIMEOUT=15 \
    run ssh_pw2 ssh $(ssh_opts | sed 's/-o BatchMode=yes//') -o PreferredAuthentications=password \
      -o PubkeyAuthentication=no -o NumberOfPasswordPrompts=1 "DTAIL-HEALTH@127.0.0.1" true
  expect_rc ssh_pw2 255
  server_alive
  health_ok after
  server_stop
  ;;
early)
  # The first request rides in the HELLO (docs/protocol.md "Round trips"):
  # the server says so in its debug log, once per request that came that
  # way, and the answers are those of a request sent on its own. A request
  # too large to ride along (a 10 KiB pattern) goes out after the HELLO.
  SERVER_LOG_LEVEL=debug
  server_setup
  server_start
  printf 'alpha\nb;c\n' >"$T/f.log"
  chmod 644 "$T/f.log"
  run cat dcat "${SERVER_CLIENT_FLAGS[@]}" --plain "$T/f.log"
  expect_rc cat 0
  printf 'alpha\nb;c\n' >"$T/cat.want"
  expect_bytes cat "$OUT" "$T/cat.want"
  run grep dgrep "${SERVER_CLIENT_FLAGS[@]}" --plain --grep 'b;c' "$T/f.log"
  expect_rc grep 0
  printf 'b;c\n' >"$T/grep.want"
  expect_bytes grep "$OUT" "$T/grep.want"
  run map dmap "${SERVER_CLIENT_FLAGS[@]}" --output csv --query 'select count($line)' "$T/f.log"
  expect_rc map 0
  printf 'count($line)\n2\n' >"$T/map.want"
  expect_bytes map "$OUT" "$T/map.want"
  health_ok health
  big=$(head -c 10000 /dev/zero | tr '\0' 'x')
  run big dgrep "${SERVER_CLIENT_FLAGS[@]}" --plain --grep "alpha|$big" "$T/f.log"
  expect_rc big 0
  printf 'alpha\n' >"$T/big.want"
  expect_bytes big "$OUT" "$T/big.want"
  server_stop
  n=$(grep -c 'The request came with the HELLO' "$SERVER_LOG")
  [ "$n" -eq 4 ] || fail "$n requests came with the HELLO, want 4 (cat, grep, map, health)"
  ;;
maxconn)
  SERVER_MAX_CONNECTIONS=2
  server_setup
  server_start
  # Pre-auth connections have their own budget: two silent sockets do not
  # take the two session slots (DTail counts them and locks everyone out).
  exec 3<>"/dev/tcp/127.0.0.1/$SERVER_PORT" || die "connect 1"
  exec 4<>"/dev/tcp/127.0.0.1/$SERVER_PORT" || die "connect 2"
  poll 30 grep -q 'preAuthConnections=2' "$SERVER_LOG" ||
    fail "the server's stats never counted the 2 pre-auth connections"
  health_ok beside_preauth
  exec 3<&- 4<&-
  # Two sessions with a request in flight (follows) hold both slots: a
  # third is refused, in words that name the limit.
  printf 'old line\n' >"$T/f.log"
  follows_in_flight 2 "$T/f.log" || fail "the follows never started"
  run refused dcat "${SERVER_CLIENT_FLAGS[@]}" "$T/f.log"
  expect_rc refused 1
  expect_contains refused "$ERR" "dserver at MaxConnections=2"
  expect_log log "Refusing session|dserver at MaxConnections=2"
  kill "${FOLLOW_PIDS[@]}" 2>/dev/null
  wait "${FOLLOW_PIDS[@]}" 2>/dev/null
  # Once the server has seen them go (health says WARNING while their
  # sessions still count as busy), connections work again.
  poll 30 eval '"$H" --server "$SERVER" "${HT[@]}" >/dev/null' ||
    fail "health never said OK after the follows ended"
  health_ok again
  server_alive
  server_stop
  ;;
handshake)
  server_setup
  server_start
  # A client that stops after its banner, one that sends garbage, one that
  # disconnects in the middle of the key exchange, and one that says nothing.
  run_sh banner "exec 3<>/dev/tcp/127.0.0.1/$SERVER_PORT; printf 'SSH-2.0-e2e\r\n' >&3; head -c 10 <&3 >/dev/null; exec 3<&-"
  run_sh garbage "exec 3<>/dev/tcp/127.0.0.1/$SERVER_PORT; head -c 100000 /dev/urandom >&3 2>/dev/null; exec 3<&-"
  run_sh midkex "exec 3<>/dev/tcp/127.0.0.1/$SERVER_PORT; printf 'SSH-2.0-e2e\r\n' >&3; head -c 50 /dev/urandom >&3; sleep 0.2; exec 3<&-"
  exec 3<>"/dev/tcp/127.0.0.1/$SERVER_PORT" || die "connect"
  health_ok during
  # The silent one is dropped at the handshake deadline (10 s); 60 s is
  # the guard against a hang.
  all_dropped() {
    grep STATS "$SERVER_LOG" | tail -n 1 | grep -q 'preAuthConnections=0' &&
      [ "$(grep -c 'Closing SSH connection before the session started' "$SERVER_LOG")" -ge 4 ]
  }
  poll 60 all_dropped || fail "the 4 broken clients were not all dropped within 60 s"
  expect_log log "handshake deadline passed"
  exec 3<&-
  server_alive
  health_ok after
  server_stop
  ;;
openssh)
  # OpenSSH as an independent client: a pty request and an exec request are
  # refused without ending the connection (DTail closes it: D23).
  SERVER_LOG_LEVEL=debug
  server_setup
  server_start
  command -v ssh >/dev/null || skip "OpenSSH client not installed"
  # shellcheck disable=SC2046
  RUN_TIMEOUT=15 run exec_req ssh $(ssh_opts) -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1" cat /etc/passwd
  expect_rc exec_req 255
  expect_contains exec_req "$ERR" "exec request failed"
  # A shell with a forced pty: the pty is refused, the shell still opens
  # (our wire protocol then rejects the stray input and ends the session).
  # shellcheck disable=SC2046
  RUN_STDIN=/dev/null RUN_TIMEOUT=15 run pty ssh $(ssh_opts) -tt -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1"
  expect_contains pty "$ERR" "PTY allocation request failed"
  server_alive
  health_ok after
  server_stop
  # The log is written in blocks every 100 ms: read it once dserver ended.
  expect_log log "Refusing SSH request|pty-req"
  expect_log log "Creating new server handler"
  expect_log log "Good bye Mister!"
  ;;
logformat)
  # Server.MapreduceLogFormat is the log format of a `from` query without
  # logformat: a dmap through the server reads generickv lines with it,
  # and so does a serverless dmap whose config has it; without it the
  # lines are not for the default format.
  SERVER_CFG_EXTRA='"MapreduceLogFormat": "generickv"'
  server_setup
  printf 'x|MAPREDUCE:T|user=a|n=1\nx|MAPREDUCE:T|user=b|n=2\nx|MAPREDUCE:T|user=a|n=5\n' >"$T/kv.log"
  chmod 644 "$T/kv.log"
  printf 'sum(n),count($line)\n2.000000,1\n6.000000,2\n' | sort >"$T/kv.want"
  server_start
  q='from T select sum(n),count($line) group by user'
  run remote "$DTAIL_BIN/dmap" "${SERVER_CLIENT_FLAGS[@]}" --files "$T/kv.log" "$q outfile $T/remote.csv"
  expect_rc remote 0
  sort "$T/remote.csv" >"$T/remote.sorted"
  expect_bytes remote "$T/remote.sorted" "$T/kv.want"
  run local "$DTAIL_BIN/dmap" --cfg "$SERVER_CFG" --files "$T/kv.log" "$q outfile $T/local.csv"
  expect_rc local 0
  sort "$T/local.csv" >"$T/local.sorted"
  expect_bytes local "$T/local.sorted" "$T/kv.want"
  run default "$DTAIL_BIN/dmap" --cfg none --files "$T/kv.log" "$q outfile $T/default.csv"
  expect_contains default "$ERR" "0 parsed, 3 not for this format"
  server_stop
  ;;
from_key)
  # authorized_keys options as DTail's key-cache script writes them: a
  # key with from= logs in from its own address only (OpenSSH binding
  # 127.0.0.2 or 127.0.0.3), no-pty is harmless, and a key with an option
  # dserver cannot apply (command=) is not used.
  server_setup
  command -v ssh >/dev/null || skip "OpenSSH client not installed"
  ak=$SRV/cache/$SERVER_USER.authorized_keys
  sed -i 's|^|from="127.0.0.2",no-pty,no-port-forwarding |' "$ak"
  server_start
  printf 'not a frame\n' >"$T/ossh.in"
  # shellcheck disable=SC2046
  RUN_STDIN=$T/ossh.in RUN_TIMEOUT=15 run own ssh $(ssh_opts) -b 127.0.0.2 -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1"
  expect_contains own "$OUT" "protocol error"
  # shellcheck disable=SC2046
  RUN_STDIN=$T/ossh.in RUN_TIMEOUT=15 run other ssh $(ssh_opts) -b 127.0.0.3 -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1"
  expect_rc other 255
  expect_contains other "$ERR" "Permission denied"
  # Our client from 127.0.0.1 is refused too.
  run dcat "$DTAIL_BIN/dcat" "${SERVER_CLIENT_FLAGS[@]}" --plain /etc/hostname
  expect_contains dcat "$ERR" "authentication"
  sed -i 's|^from="127.0.0.2",no-pty,no-port-forwarding |command="/bin/true" |' "$ak"
  # shellcheck disable=SC2046
  RUN_STDIN=$T/ossh.in RUN_TIMEOUT=15 run forced ssh $(ssh_opts) -b 127.0.0.2 -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1"
  expect_rc forced 255
  server_stop
  expect_log refused_from 'public key of user not authorized (from="127.0.0.2" does not allow 127.0.0.3)'
  expect_log refused_command 'option command is not supported by dserver'
  ;;
log_rotation)
  # Common.LogRotation other than "daily" (DTail's rule): one file
  # <LogDir>/dserver.log, and SIGHUP after a rotator moved it away makes
  # dserver write to a new file at the path. A session open across the
  # signal is not cut by it.
  server_setup
  sed -i 's|"Common": {|"Common": {"LogRotation": "signal", |' "$SERVER_CFG"
  # After the drop to --user the new file is made as that user.
  mkdir -p "$SRV/log"
  [ "$(id -u)" -eq 0 ] && chown nobody "$SRV/log"
  server_start --logger fout
  f=$SRV/log/dserver.log
  health_ok before
  for _ in $(seq 1 50); do grep -q 'Listening on' "$f" 2>/dev/null && break; sleep 0.1; done
  expect_contains "first file" "$f" "Listening on"
  ls "$SRV/log" | grep -q '^[0-9]\{8\}\.log$' && fail "a daily file was written with signal rotation"
  : >"$T/grow.log"
  chmod 644 "$T/grow.log"
  follows_in_flight 1 "$T/grow.log" || fail "the follow did not start"
  printf 'first line\n' >>"$T/grow.log"
  poll 20 grep -q 'first line' "$T/follow1.out" || fail "the follow shows no line"
  mv "$f" "$f.1"
  kill -HUP "$SERVER_CHILD"
  for _ in $(seq 1 50); do [ -e "$f" ] && break; sleep 0.1; done
  [ -e "$f" ] || fail "no new $f within 5 s of SIGHUP"
  server_alive
  printf 'second line\n' >>"$T/grow.log"
  poll 20 grep -q 'second line' "$T/follow1.out" || fail "the follow open across SIGHUP stopped"
  kill "${FOLLOW_PIDS[@]}" 2>/dev/null
  wait "${FOLLOW_PIDS[@]}" 2>/dev/null
  health_ok after
  server_stop
  expect_contains "new file" "$f" "Reopened the log file (SIGHUP)"
  expect_contains "new file" "$f" "Good bye Mister!"
  grep -q 'Reopened the log file' "$f.1" && fail "the reopen was logged into the old file"
  ;;
ciphers)
  # Server.KeyExchanges, Ciphers and MACs restrict what a client may
  # negotiate: OpenSSH offering only an excluded algorithm is refused,
  # offering an allowed one gets in; our own client still connects.
  SERVER_CFG_EXTRA='"KeyExchanges": ["ecdh-sha2-nistp256"], "Ciphers": ["aes256-ctr"], "MACs": ["hmac-sha2-512"]'
  server_setup
  server_start
  command -v ssh >/dev/null || skip "OpenSSH client not installed"
  # ssh says "no matching cipher found" when it saw the server's offer
  # first, "Connection closed" when the server hung up first (a race):
  # the refusal is the exit status, the reason dserver's log.
  for opt in Ciphers=aes128-ctr MACs=hmac-sha2-256 KexAlgorithms=curve25519-sha256; do
    printf 'not a frame\n' >"$T/ossh.in"
    # shellcheck disable=SC2046
    RUN_STDIN=$T/ossh.in RUN_TIMEOUT=15 run "refused ${opt%%=*}" ssh $(ssh_opts) -o "$opt" \
      -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1"
    expect_rc "refused ${opt%%=*}" 255
    expect_empty "refused ${opt%%=*}" "$OUT"
  done
  # shellcheck disable=SC2046
  RUN_STDIN=$T/ossh.in RUN_TIMEOUT=15 run allowed ssh $(ssh_opts) -o KexAlgorithms=ecdh-sha2-nistp256 \
    -o Ciphers=aes256-ctr -o MACs=hmac-sha2-512 -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1"
  expect_contains allowed "$OUT" "protocol error"
  # A client whose identification line and KEXINIT arrive in one read (as
  # OpenSSH's do when dserver's line was out first: under load) is refused
  # the same, and the log names why, not libssh's later "Socket error".
  command -v python3 >/dev/null || skip "python3 is not installed"
  RUN_TIMEOUT=30 run at_once python3 "$(dirname "$0")/../support/kexinit_at_once.py" 127.0.0.1 \
    "$SERVER_PORT" ecdh-sha2-nistp256 ssh-ed25519 aes256-ctr hmac-sha1
  expect_rc at_once 0
  health_ok after
  server_stop
  expect_log cipher 'no match for method encryption client->server: server [aes256-ctr], client [aes128-ctr]'
  expect_log mac 'no match for method mac algo client->server: server [hmac-sha2-512], client [hmac-sha2-256]'
  expect_log kex 'no match for method kex algos: server [ecdh-sha2-nistp256]'
  expect_log "mac, at once" 'no match for method mac algo client->server: server [hmac-sha2-512], client [hmac-sha1]'
  ;;
openssh_end)
  # A session ends when dserver is done, not when the client's stdin
  # ends: OpenSSH's ssh sends its CLOSE only after its own EOF, so a
  # server that waits for the client's close first holds the session
  # (2 s, its bound) while the client's stdin stays open.
  server_setup
  server_start
  command -v ssh >/dev/null || skip "OpenSSH client not installed"
  mkfifo "$T/ossh.in"
  # shellcheck disable=SC2046
  timeout 15 ssh $(ssh_opts) -i "$SERVER_KEY" "$SERVER_USER@127.0.0.1" <"$T/ossh.in" >"$T/ossh.out" 2>"$T/ossh.err" &
  pid=$!
  exec 4>"$T/ossh.in"   # held open: ssh's stdin does not end
  printf 'not a frame\n' >&4
  t0=$(date +%s%N)
  wait "$pid"
  t1=$(date +%s%N)
  exec 4>&-
  E2E_RUNS=$((E2E_RUNS + 1))
  expect_contains "protocol error told" "$T/ossh.out" "protocol error"
  ms=$(((t1 - t0) / 1000000))
  note "ssh ended after $ms ms"
  [ "$ms" -lt 1500 ] || fail "the OpenSSH session ended after $ms ms, not at once (bound 1500 ms)"
  server_alive
  server_stop
  ;;
sigterm)
  server_setup
  server_start
  health_ok before
  # A connected client that never speaks: shutdown must not wait for it.
  exec 3<>"/dev/tcp/127.0.0.1/$SERVER_PORT" || die "connect"
  start=$(date +%s%N)
  server_stop
  end=$(date +%s%N)
  exec 3<&-
  ms=$(( (end - start) / 1000000 ))
  note "SIGTERM to exit: $ms ms"
  # Waiting for the idle client would take until its handshake deadline,
  # 10 s after the connect just made; the bound tells the two apart with
  # room for a loaded machine (and LeakSanitizer's scan at exit, seconds
  # under load).
  bound=9000
  [ "$ms" -lt "$bound" ] || fail "sigterm: $ms ms from SIGTERM to exit, want < $bound ms (shutdown waited for the idle client?)"
  expect_log log "|Stopped"
  run after "$H" --server "$SERVER" "${HT[@]}"
  expect_rc after 2
  ;;
shutdown_after)
  server_setup
  # 6 s: the health check before must be served first, on a loaded machine
  # too; the wait after is only a guard.
  server_start --shutdownAfter 6
  health_ok before
  server_wait_exit "$SERVER_PID" 60
  [ "$SERVER_RC" -eq 0 ] || fail "dserver --shutdownAfter 6: exit $SERVER_RC, want 0 within 60 s"
  expect_log log "Shutting down after 6 s"
  server_sanitizer_clean "$SERVER_LOG"
  SERVER_PID=
  ;;
hostkeys)
  server_setup
  server_start
  for f in ssh_host_key ssh_host_key_ed25519; do
    [ "$(stat -c %a "$SRV/cache/$f")" = 600 ] || fail "$f has mode $(stat -c %a "$SRV/cache/$f"), want 600"
  done
  fp1=$(ssh-keygen -lf "$SRV/cache/ssh_host_key_ed25519" | cut -d' ' -f2)
  fp2=$(ssh-keygen -lf "$SRV/cache/ssh_host_key" | cut -d' ' -f2)
  health_ok first
  server_stop
  expect_log log1 "Generating private server ssh-ed25519 host key"
  server_start
  expect_log log2 "Reading private server host key from file|$SRV/cache/ssh_host_key_ed25519"
  [ "$(ssh-keygen -lf "$SRV/cache/ssh_host_key_ed25519" | cut -d' ' -f2)" = "$fp1" ] || fail "ed25519 host key changed on restart"
  [ "$(ssh-keygen -lf "$SRV/cache/ssh_host_key" | cut -d' ' -f2)" = "$fp2" ] || fail "RSA host key changed on restart"
  # Our client recorded the host in known_hosts (0600) and accepts it again
  # without --trustAllHosts... checked through dtailhealth's neighbour: ssh.
  health_ok second
  server_stop
  # A host key readable by others is refused.
  chmod 644 "$SRV/cache/ssh_host_key"
  run badmode "$DTAIL_BIN/dserver" --cfg "$SERVER_CFG" --port 0 --bindAddress 127.0.0.1 --logger stdout \
    $([ "$(id -u)" -eq 0 ] && echo --user nobody)
  expect_rc badmode 2
  expect_contains badmode "$ERR" "must not be readable by group or others"
  ;;
stats)
  server_setup
  server_start
  for i in 1 2 3; do health_ok "h$i"; done
  server_stop
  grep -q '|MAPREDUCE:STATS|' "$SERVER_LOG" || fail "no MAPREDUCE:STATS line in the log"
  run q dmap --cfg none --files "$SERVER_LOG" \
    'from STATS select max(lifetimeConnections),max(requests),count($line) group by $hostname'
  expect_rc q 0
  row=$(awk -F'|' 'NR == 3 { gsub(/ /, ""); print $1, $2 }' "$OUT")
  [ "$row" = "3.000000 3.000000" ] || {
    fail "dmap over dserver's log: want max(lifetimeConnections)=3 and max(requests)=3"
    sed 's/^/  | /' "$OUT" >&2
  }
  ;;
root)
  [ "$(id -u)" -eq 0 ] || skip "needs root"
  server_setup
  run refuse "$DTAIL_BIN/dserver" --cfg "$SERVER_CFG" --port 0 --bindAddress 127.0.0.1 --logger stdout
  expect_rc refuse 2
  expect_contains refuse "$ERR" "Not allowed to run as UID 0"
  [ -e "$SRV/cache/ssh_host_key" ] && fail "refused start created a host key"
  server_start
  uid=$(awk '/^Uid:/{print $2}' "/proc/$SERVER_CHILD/status")
  [ "$uid" = "$(id -u nobody)" ] || fail "dserver runs as uid $uid, want nobody"
  health_ok dropped
  server_stop
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
