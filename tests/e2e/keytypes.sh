# Every key type a DTail user has logs in every time: fresh RSA 2048, 3072
# and 4096 (rsa-sha2-512/-256), ECDSA 256, 384 and 521 and ed25519 keys,
# each from the places a client finds keys: --key FILE ("key"), the
# default ~/.ssh/id_<type> with no --key and no agent ("home"), and
# ssh-agent with no --key ("agent", SSH_AUTH_SOCK). Each key type and place
# logs in $KEYTYPES_REPS times (default 100, 30 in sanitizer builds) with
# `dcat --plain` of a one-line file; every run must print the line.
#
#   keytypes.sh dserver  against our dserver (the keys in its cache's
#                        <user>.authorized_keys), all three places
#   keytypes.sh sshd     against OpenSSH's sshd, started here on a loopback
#                        port with its own config, host key and
#                        AuthorizedKeysFile; places key and agent, 30 times
#                        each unless KEYTYPES_REPS says otherwise. sshd
#                        cannot speak our protocol: its ForceCommand writes
#                        a canned dserver reply (HELLO, LINES with the line,
#                        END), so the client's whole run is real, and
#                        sshd's log must hold 2 x REPS "Accepted publickey"
#                        lines per key fingerprint.
#
# The (type, place) loops run in parallel, each with its own HOME (so
# known_hosts files are not shared) and each type with its own ssh-agent.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"

# A sanitizer build looks for memory errors, not for the odd lost login,
# and costs several times as much per login: fewer there.
REPS_DEFAULT=100
dserver_sanitized && REPS_DEFAULT=30
REPS=${KEYTYPES_REPS:-$REPS_DEFAULT}
TYPES="rsa2048 rsa3072 rsa4096 ecdsa256 ecdsa384 ecdsa521 ed25519"
PLACES="key home agent"
LINE="one line to read"
KT=$T/kt
AGENT_PIDS=()
SSHD_PID=

kt_cleanup() {
  [ ${#AGENT_PIDS[@]} -gt 0 ] && kill "${AGENT_PIDS[@]}" 2>/dev/null
  [ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
  server_cleanup
}
trap kt_cleanup EXIT

command -v ssh-keygen >/dev/null || skip "ssh-keygen is not installed (openssh-client)"
command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null ||
  skip "ssh-agent or ssh-add is not installed (openssh-client)"
need_bin dcat
chmod 755 "$T"
mkdir -p "$KT/keys" "$KT/w" || die "cannot create $KT"
echo "$LINE" >"$KT/one.txt" && chmod 644 "$KT/one.txt" || die "cannot write $KT/one.txt"

# keytype_args TYPE: ssh-keygen's -t and -b for it.
keytype_args() {
  case $1 in
    rsa*) echo -t rsa -b "${1#rsa}" ;;
    ecdsa*) echo -t ecdsa -b "${1#ecdsa}" ;;
    ed25519) echo -t ed25519 ;;
  esac
}

# The file name OpenSSH and our client look for without --key.
default_name() {
  case $1 in rsa*) echo id_rsa ;; ecdsa*) echo id_ecdsa ;; *) echo id_ed25519 ;; esac
}

gen_keys() {
  local t pids=()
  for t in $TYPES; do
    # shellcheck disable=SC2046
    ssh-keygen -q $(keytype_args "$t") -N '' -C "keytypes-$t" -f "$KT/keys/$t" &
    pids+=($!)
  done
  for t in "${pids[@]}"; do wait "$t" || die "ssh-keygen failed"; done
  cat "$KT/keys/"*.pub >"$KT/authorized_keys" && chmod 644 "$KT/authorized_keys" ||
    die "cannot write $KT/authorized_keys"
}

# setup_places: per (type, place) a HOME; the home place gets the key as
# ~/.ssh/id_<type>, the agent place an ssh-agent holding only that key.
setup_places() {
  local t p sock
  for t in $TYPES; do
    for p in key home agent; do
      mkdir -p "$KT/h/$p.$t/.ssh" || die "cannot create a HOME"
    done
    cp -p "$KT/keys/$t" "$KT/h/home.$t/.ssh/$(default_name "$t")" || die "cannot copy the key"
    sock=$KT/agent.$t.sock
    ssh-agent -D -a "$sock" >/dev/null 2>&1 </dev/null &
    AGENT_PIDS+=($!)
  done
  for t in $TYPES; do
    sock=$KT/agent.$t.sock
    poll 10 test -S "$sock" || die "ssh-agent did not create $sock within 10 s"
    SSH_AUTH_SOCK=$sock ssh-add -q "$KT/keys/$t" 2>"$KT/w/ssh-add.err" ||
      die "ssh-add $t failed: $(cat "$KT/w/ssh-add.err")"
  done
}

# login_loop LABEL HOME SOCK [DCAT-ARGS...]: REPS logins; the number that
# printed the line goes to w/LABEL.ok, the first failure to w/LABEL.fail.
# Every run is bounded by timeout.
login_loop() {
  local label=$1 home=$2 sock=$3 ok=0 i out rc
  shift 3
  for ((i = 0; i < REPS; i++)); do
    out=$(env -u SSH_AUTH_SOCK HOME="$home" ${sock:+SSH_AUTH_SOCK="$sock"} \
      timeout -k 2 20 "$DTAIL_BIN/dcat" --plain --trustAllHosts --noColor "$@" \
      2>"$KT/w/$label.err" </dev/null)
    rc=$?
    if [ "$rc" -eq 0 ] && [ "$out" = "$LINE" ]; then
      ok=$((ok + 1))
    elif [ ! -e "$KT/w/$label.fail" ]; then
      { echo "run $((i + 1)): exit $rc, stdout '$out'"; head -n 5 "$KT/w/$label.err"; } >"$KT/w/$label.fail"
    fi
  done
  echo "$ok" >"$KT/w/$label.ok"
}

# run_logins SERVER FILE: all (type, place) loops against SERVER, in
# parallel; then one line per type with its counts, and a failure for
# every count short of REPS.
run_logins() {
  local server=$1 file=$2 t p pids=() start end row n=0
  start=$(date +%s%N)
  for t in $TYPES; do
    for p in $PLACES; do
      case $p in
        key) login_loop "$p.$t" "$KT/h/$p.$t" "" --servers "$server" --key "$KT/keys/$t" "$file" & ;;
        home) login_loop "$p.$t" "$KT/h/$p.$t" "" --servers "$server" "$file" & ;;
        agent) login_loop "$p.$t" "$KT/h/$p.$t" "$KT/agent.$t.sock" --servers "$server" "$file" & ;;
      esac
      pids+=($!)
      n=$((n + REPS))
    done
  done
  for p in "${pids[@]}"; do wait "$p"; done
  end=$(date +%s%N)
  E2E_RUNS=$((E2E_RUNS + n))
  note "$n logins in $(((end - start) / 1000000)) ms"
  for t in $TYPES; do
    row="$t:"
    for p in $PLACES; do
      local got
      got=$(cat "$KT/w/$p.$t.ok" 2>/dev/null || echo 0)
      row="$row $p $got/$REPS"
      if [ "$got" -ne "$REPS" ]; then
        fail "$t from $p logged in $got of $REPS times; first failure:"
        sed 's/^/  | /' "$KT/w/$p.$t.fail" >&2
      fi
    done
    note "$row"
  done
}

# u32 N: N as 4 big-endian bytes (printf escapes).
u32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)); }
# frame TYPE-HEX PAYLOAD-FILE: one wire frame (docs/protocol.md) on stdout.
frame() {
  # shellcheck disable=SC2059
  printf "\\x$1\\x00$(u32 "$(stat -c %s "$2")")"
  cat "$2"
}
# wstr TEXT: a wire string.
wstr() {
  # shellcheck disable=SC2059
  printf "$(u32 ${#1})%s" "$1"
}

# What dserver answers a plain dcat of one file with one line: HELLO
# (magic, version 1, no capabilities, host, software), LINES, END (ok).
canned_reply() {
  local d=$1
  { printf 'DTAIL-W\x00\x01\x00\x00\x00\x00'; wstr sshd; wstr keytypes-canned; } >"$d/hello"
  echo "$LINE" >"$d/lines"
  { printf '\x00'; wstr ""; } >"$d/end"
  { frame d7 "$d/hello"; frame 02 "$d/lines"; frame 06 "$d/end"; } >"$d/reply.bin"
}

# sshd_start: OpenSSH's sshd on a free loopback port (tries random ports;
# sshd cannot report a port 0 it got). Bounded by timeout; sets SSHD_PORT.
sshd_start() {
  local d=$KT/sshd port
  mkdir -p "$d" || die "cannot create $d"
  ssh-keygen -q -t ed25519 -N '' -f "$d/host_ed25519" || die "ssh-keygen (host key) failed"
  canned_reply "$d"
  # sshd runs ForceCommand with the user's shell; Debian's bash then reads
  # ~/.bashrc (300 ms here, with pyenv) unless it is nested: SHLVL says so.
  # As root, sshd separates privileges into this directory, which its
  # init script creates.
  [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ] && { mkdir -m 0755 /run/sshd || die "cannot create /run/sshd"; }
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 40000))
    cat >"$d/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_ed25519
AuthorizedKeysFile $KT/authorized_keys
StrictModes no
PubkeyAuthentication yes
AuthenticationMethods publickey
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
AllowUsers $SERVER_USER
MaxStartups 100
MaxSessions 100
PidFile none
UseDNS no
PermitTTY no
SetEnv SHLVL=5
LogLevel VERBOSE
ForceCommand cat $d/reply.bin; exec cat >/dev/null
CFG
    /usr/sbin/sshd -t -f "$d/sshd_config" 2>"$d/check.err" || die "sshd rejects its config: $(cat "$d/check.err")"
    : >"$d/sshd.log"
    timeout 300 /usr/sbin/sshd -D -f "$d/sshd_config" -E "$d/sshd.log" </dev/null &
    SSHD_PID=$!
    # poll ends when sshd listens or is gone (a port another test took:
    # "Bind to port ... failed"); only the first is a start.
    if poll 20 sshd_listening "$d/sshd.log" "$port" &&
      grep -q "Server listening on 127.0.0.1 port $port" "$d/sshd.log" &&
      kill -0 "$SSHD_PID" 2>/dev/null; then
      SSHD_PORT=$port
      return 0
    fi
    kill "$SSHD_PID" 2>/dev/null
    wait "$SSHD_PID" 2>/dev/null
    SSHD_PID=
  done
  die "sshd did not listen on any of 20 ports; last log: $(tail -n 3 "$d/sshd.log")"
}

# sshd_listening LOG PORT: listening (0), or sshd is gone (0 too: the caller
# looks at the log again).
sshd_listening() {
  grep -q "Server listening on 127.0.0.1 port $2" "$1" && return 0
  ! kill -0 "$SSHD_PID" 2>/dev/null && return 0
  return 1
}

case ${1:-} in
dserver)
  SERVER_MAX_CONNECTIONS=64
  server_setup
  gen_keys
  cat "$KT/authorized_keys" >>"$SRV/cache/$SERVER_USER.authorized_keys" ||
    die "cannot add the keys to the cache's authorized_keys"
  setup_places
  server_start
  run_logins "$SERVER" "$KT/one.txt"
  server_alive
  server_stop
  ;;
sshd)
  [ -x /usr/sbin/sshd ] || skip "OpenSSH's sshd is not installed (scripts/deps.sh installs openssh-server)"
  # Where the client finds the key is the client's own business, which
  # the dserver case covers; here the file given and the agent.
  PLACES="key agent"
  # Every sshd login forks and execs sshd and the user's shell (40 ms
  # here): the full 100 per pair (1400 logins, about 55 s) in a release
  # build, 30 in a sanitizer build. (The race this test was written for,
  # issue 13, lost RSA logins against dserver; against sshd the old
  # client won it.)
  gen_keys
  setup_places
  sshd_start
  run_logins "127.0.0.1:$SSHD_PORT" /any/file
  kill "$SSHD_PID" 2>/dev/null
  wait "$SSHD_PID" 2>/dev/null
  SSHD_PID=
  # Each key's logins as sshd saw them.
  for t in $TYPES; do
    fp=$(ssh-keygen -l -f "$KT/keys/$t.pub" | awk '{ print $2 }')
    got=$(grep -F "Accepted publickey for $SERVER_USER from 127.0.0.1" "$KT/sshd/sshd.log" | grep -cF -- "$fp")
    [ "$got" -eq $((2 * REPS)) ] || fail "sshd accepted the $t key $got times, want $((2 * REPS))"
  done
  ;;
*)
  die "usage: keytypes.sh dserver|sshd"
  ;;
esac
finish
