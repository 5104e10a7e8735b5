# What a dserver never serves, and that its refusals say nothing about a
# file's existence (docs/dserver.md, Hardening): real dserver on loopback,
# real clients with --servers (harness server_lib.sh).
#
#   secrets   default rules (^/.*) and the SSH user equal to the user
#             dserver runs as (nobody when the suite runs as root, with the
#             host keys handed to nobody as a dserver of its own would have
#             them; else the current user): the host keys, a .pub beside
#             them, the key cache, the config file, /proc (self, maps, the
#             dserver's status), /sys, /dev/null, and the host key through a
#             symlink and hardlinks, are each refused exactly as a missing
#             file is: same stderr (but for the name), exit code and output.
#   oracle    inside an allowed directory: a missing file, a file without
#             read bits (chmod 000: the check is made for the SSH user, with
#             no root override, so this holds when the suite runs as root
#             too), a file a `!` rule denies, one the server process can
#             read but the user cannot (root only), a directory and a
#             missing file outside the rules give the same dcat, dgrep and
#             dmap replies, and the same SQLite accounting rows.
#   glob      a glob over a directory of allowed and refused files replies
#             as the same glob over a directory holding only the allowed
#             ones; a glob matching only refused files as one matching
#             nothing.
#   glob_cap  Server.MaxGlobTargets' message counts only files that may be
#             read.
#   search    (root only) a readable file in a directory the user may not
#             search is refused like a missing one, as the kernel refuses it.
#   mounts    (root only, in a mount namespace of its own) /proc and a
#             directory of /dev/shm bind-mounted into an allowed directory
#             are refused like missing files: by the filesystem of the open
#             file, not by its path.
# Usage: bash secrets.sh secrets|oracle|glob|glob_cap|search|mounts
if [ "${1:-}" = mounts ] && [ "$(id -u)" -eq 0 ] && [ -z "${SECRETS_NS:-}" ] &&
  command -v unshare >/dev/null; then
  # Mounts made here vanish with the namespace, whatever ends the test.
  SECRETS_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"
mode=${1:?mode}
need_bin dcat dgrep dmap

IN=$T/in
mkdir -p "$IN" || die "mkdir $IN"
chmod 755 "$IN"

# The SSH user: whom dserver runs as (the harness starts it as nobody when
# the suite runs as root).
if [ "$(id -u)" -eq 0 ]; then LOGIN=nobody; else LOGIN=$(id -un); fi

# unname NAME: stdin to stdout with every NAME (a literal string) as @F@.
unname() {
  awk -v s="$1" '{
      out = ""
      while ((i = index($0, s)) > 0) { out = out substr($0, 1, i - 1) "@F@"; $0 = substr($0, i + length(s)) }
      print out $0
    }'
}

# srv LABEL TOOL NAME [ARGS...]: TOOL through the server for --files NAME;
# its stderr with NAME replaced by @F@ goes to $T/LABEL.norm.
srv() {
  local label=$1 tool=$2 name=$3
  shift 3
  run "$label" "$tool" "${SERVER_CLIENT_FLAGS[@]}" "$@" --files "$name"
  unname "$name" <"$ERR" >"$T/$label.norm"
  NRC=$RC
}

# same_as RUN REF [WHAT]: the run RUN replied as the run REF: same exit
# code, same stdout and the same stderr but for the file's name.
same_as() {
  local run=$1 ref=$2 what="${3:-$1}"
  [ "$(cat "$T/$run.rc")" = "$(cat "$T/$ref.rc")" ] ||
    fail "$what: exit code $(cat "$T/$run.rc"), the reference $ref gave $(cat "$T/$ref.rc")"
  cmp -s "$T/$run.out" "$T/$ref.out" ||
    fail "$what: stdout differs from $ref's: $(head -c 200 "$T/$run.out" | tr '\n' ' ')"
  if ! cmp -s "$T/$run.norm" "$T/$ref.norm"; then
    fail "$what: stderr differs from $ref's"
    diff "$T/$ref.norm" "$T/$run.norm" | head -n 6 | sed 's/^/  | /' >&2
  fi
}

# ask LABEL TOOL NAME [ARGS...]: srv, keeping the exit code for same_as.
ask() {
  srv "$@"
  echo "$NRC" >"$T/$1.rc"
}

# refused_like REF NAME...: dcat of each NAME replies as REF did.
refused_like() {
  local ref=$1 i=0 name
  shift
  for name in "$@"; do
    i=$((i + 1))
    ask "cat$i" dcat "$name" --plain
    same_as "cat$i" "$ref" "dcat $name"
  done
}

Q='from STATS select count($line) group by $hostname'

# accounting LABEL NAME: dmap of NAME through the server with an SQLite
# outfile; the run's replies (as ask) and its rows, the name replaced, in
# $T/LABEL.rows.
accounting() {
  local label=$1 name=$2 db=$T/$1.sqlite
  ask "$label" dmap "$name" --logLevel warn --query "$Q outfile $db"
  [ -f "$db" ] || { fail "$label: no SQLite outfile"; return; }
  timeout 20 sqlite3 -batch -list "$db" \
    "SELECT partial, failures, bytes_read, lines_read FROM queries;
     SELECT seq, server, file, status, coalesce(error, '-'), coalesce(bytes_read, '-'),
            coalesce(lines_read, '-') FROM query_inputs ORDER BY seq" |
    unname "$name" >"$T/$label.rows"
  [ -s "$T/$label.rows" ] || fail "$label: the outfile has no rows"
}

same_rows() {
  if ! cmp -s "$T/$1.rows" "$T/$2.rows"; then
    fail "$1: SQLite accounting differs from $2's"
    diff "$T/$2.rows" "$T/$1.rows" | head -n 6 | sed 's/^/  | /' >&2
  fi
}

# login_as_server_user: the client logs in as $LOGIN; as root, nobody gets
# the test's key in the cache and dserver's host keys (created before it
# dropped to nobody) become nobody's, as a dserver started as nobody has them.
login_as_server_user() {
  cp "$SERVER_KEY.pub" "$SRV/cache/$LOGIN.authorized_keys" && chmod 644 "$SRV/cache/$LOGIN.authorized_keys" ||
    die "cannot authorize $LOGIN"
  SERVER_CLIENT_FLAGS+=(--user "$LOGIN")
}

case $mode in
secrets)
  server_setup
  server_start
  login_as_server_user
  K=$SRV/cache/ssh_host_key
  [ -f "$K" ] && [ -f "${K}_ed25519" ] || die "dserver made no host keys in $SRV/cache"
  [ "$(id -u)" -eq 0 ] && { chown nobody "$K" "${K}_ed25519" || die "chown the host keys"; }
  # A companion public key, as ssh-keygen leaves one.
  cp "$SERVER_KEY.pub" "$K.pub" && chmod 644 "$K.pub" || die "cannot write $K.pub"
  ln -s "$K" "$IN/key.link" || die "symlink"
  # Hardlinks (same filesystem): the host key, a cache file, the config.
  hard=()
  if ln "$K" "$IN/key.hard" 2>/dev/null; then hard+=("$IN/key.hard"); else note "no hardlink to $K here"; fi
  ln "$SRV/cache/$LOGIN.authorized_keys" "$IN/keys.hard" 2>/dev/null && hard+=("$IN/keys.hard")
  ln "$SERVER_CFG" "$IN/cfg.hard" 2>/dev/null && hard+=("$IN/cfg.hard")
  chmod 644 "$SERVER_CFG"
  echo "plain line" >"$IN/ok.log" && chmod 644 "$IN/ok.log"
  # The server serves this user at all (else every refusal would match).
  ask ok dcat "$IN/ok.log" --plain
  expect_rc ok 0
  expect_contains ok "$OUT" "plain line"
  ask missing dcat "$IN/none.log" --plain
  expect_rc missing 1
  expect_empty missing "$OUT"
  expect_contains missing "$ERR" "No permission to read file, or it does not exist|$IN/none.log"
  sysf=
  for f in /sys/kernel/uevent_seqnum /sys/kernel/kexec_loaded /sys/kernel/profiling /sys/power/state; do
    [ -r "$f" ] && [ -f "$f" ] && { sysf=$f; break; }
  done
  [ -n "$sysf" ] || note "no readable file under /sys/kernel here"
  refused_like missing "$K" "${K}_ed25519" "$K.pub" "$SRV/cache/$LOGIN.authorized_keys" \
    "$SERVER_CFG" /proc/self/environ /proc/self/maps "/proc/$SERVER_CHILD/status" /proc/version \
    ${sysf:+"$sysf"} /dev/null "$IN/key.link" "${hard[@]}"
  # The same key through a relative name from dserver's working directory.
  cwd=$(readlink "/proc/$SERVER_CHILD/cwd") || die "no working directory of dserver"
  ask rel dcat "$(realpath -m --relative-to="$cwd" "$SRV")/../srv/cache/ssh_host_key" --plain
  same_as rel missing "dcat of the host key by a relative name"
  grep -q 'PRIVATE KEY' "$T"/*.out && fail "a private key reached a client"
  expect_log refusals "ssh_host_key"
  server_alive
  server_stop
  ;;
oracle)
  command -v sqlite3 >/dev/null || die "the sqlite3 CLI is missing (scripts/deps.sh installs it)"
  A=$IN/a
  mkdir -p "$A/sub" "$IN/b" && chmod 755 "$A" "$A/sub" "$IN/b"
  echo "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|x=1" >"$A/ok.log"
  cp "$A/ok.log" "$A/zero.log" && chmod 000 "$A/zero.log"
  cp "$A/ok.log" "$A/ruled.log" && chmod 644 "$A/ok.log" "$A/ruled.log"
  cp "$A/ok.log" "$IN/b/out.log" && chmod 644 "$IN/b/out.log"
  SERVER_CFG_EXTRA="\"Permissions\": {\"Default\": [\"readfiles:^$A/\", \"readfiles:!^$A/ruled\"]}"
  server_setup
  server_start
  names=("$A/zero.log" "$A/ruled.log" "$A/sub" "$IN/b/out.log" "$IN/b/none.log")
  if [ "$(id -u)" -eq 0 ]; then
    # dserver (nobody) may read it, the SSH user (root) may not.
    cp "$A/ok.log" "$A/nobodys.log" && chown nobody "$A/nobodys.log" && chmod 600 "$A/nobodys.log"
    names+=("$A/nobodys.log")
  fi
  ask ok dcat "$A/ok.log" --plain
  expect_rc ok 0
  ask missing dcat "$A/none.log" --plain
  expect_rc missing 1
  refused_like missing "${names[@]}"
  ask g_missing dgrep "$A/none.log" --plain --regex INFO
  i=0
  for name in "${names[@]}"; do
    i=$((i + 1))
    ask "g$i" dgrep "$name" --plain --regex INFO
    same_as "g$i" g_missing "dgrep $name"
  done
  accounting m_missing "$A/none.log"
  i=0
  for name in "${names[@]}"; do
    i=$((i + 1))
    accounting "m$i" "$name"
    same_as "m$i" m_missing "dmap $name"
    same_rows "m$i" m_missing
  done
  expect_log refusals "zero.log"
  server_alive
  server_stop
  ;;
glob|glob_cap)
  command -v sqlite3 >/dev/null || die "the sqlite3 CLI is missing (scripts/deps.sh installs it)"
  # g: two allowed files and refused ones; h: only the two allowed files.
  G=$IN/g H=$IN/h
  mkdir -p "$G" "$H" "$IN/out" && chmod 755 "$G" "$H" "$IN/out"
  for d in "$G" "$H"; do
    echo "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|a=1" >"$d/a.log"
    echo "INFO|1002-071144|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|b=2" >"$d/b.log"
    chmod 644 "$d/a.log" "$d/b.log"
  done
  cp "$G/a.log" "$G/s-zero.log" && chmod 000 "$G/s-zero.log"
  cp "$G/a.log" "$G/s-ruled.log" && chmod 644 "$G/s-ruled.log"
  cp "$G/a.log" "$IN/out/o.log" && chmod 644 "$IN/out/o.log"
  ln -s "$IN/out/o.log" "$G/s-outside.log"
  mkdir "$G/s-dir.log" && chmod 755 "$G/s-dir.log"
  extra="\"Permissions\": {\"Default\": [\"readfiles:^$IN/[gh]/\", \"readfiles:!/s-ruled\"]}"
  [ "$mode" = glob_cap ] && extra="$extra, \"MaxGlobTargets\": 1"
  SERVER_CFG_EXTRA=$extra
  server_setup
  server_start
  # The key cache's files, through a link in the directory.
  ln -s "$SRV/cache/$SERVER_USER.authorized_keys" "$G/s-keys.log"
  if [ "$mode" = glob_cap ]; then
    ask capH dcat "$H/*.log" --plain
    ask capG dcat "$G/*.log" --plain
    expect_contains capH "$T/capH.err" "limit|1|matched|2"
    same_as capG capH "capped glob over refused files"
  else
    ask allH dcat "$H/*.log" --plain
    expect_rc allH 0
    ask allG dcat "$G/*.log" --plain
    same_as allG allH "glob over refused files"
    ask grepH dgrep "$H/*.log" --plain --regex MAPREDUCE
    ask grepG dgrep "$G/*.log" --plain --regex MAPREDUCE
    same_as grepG grepH "dgrep glob over refused files"
    accounting mapH "$H/*.log"
    accounting mapG "$G/*.log"
    same_as mapG mapH "dmap glob over refused files"
    # The rows name the files the glob gave: h's and g's differ only by
    # the directory.
    sed "s|$G/|$H/|g" "$T/mapG.rows" >"$T/mapG2.rows"
    same_rows mapG2 mapH
    # Only refused files match: as a glob that matches nothing.
    ask noneH dcat "$H/s-*.log" --plain
    expect_rc noneH 1
    ask noneG dcat "$G/s-*.log" --plain
    same_as noneG noneH "glob of refused files only"
    ask none2H dcat "$H/s-*" --plain
    ask none2G dcat "$G/s-*" --plain
    same_as none2G none2H "glob of refused files only, any name"
    accounting mnoneH "$H/s-*.log"
    accounting mnoneG "$G/s-*.log"
    same_as mnoneG mnoneH "dmap glob of refused files only"
    same_rows mnoneG mnoneH
  fi
  server_alive
  server_stop
  ;;
search)
  [ "$(id -u)" -eq 0 ] || skip "needs root: a directory dserver may search but the SSH user may not"
  # dserver runs as nobody, the SSH user is root, who gets no override: a
  # 0644 file in nobody's 0700 directory is one root may not reach here.
  mkdir -p "$IN/priv" && echo "private line" >"$IN/priv/p.log" && chmod 644 "$IN/priv/p.log"
  chown -R nobody "$IN/priv" && chmod 700 "$IN/priv"
  server_setup
  server_start
  ask missing dcat "$IN/none.log" --plain
  expect_rc missing 1
  refused_like missing "$IN/priv/p.log"
  ask g_priv dcat "$IN/priv/*.log" --plain
  ask g_none dcat "$IN/none/*.log" --plain
  expect_rc g_none 1
  same_as g_priv g_none "glob in a directory the user may not search"
  server_alive
  server_stop
  ;;
mounts)
  [ "$(id -u)" -eq 0 ] || skip "needs root to bind-mount"
  [ -n "${SECRETS_NS:-}" ] || skip "needs unshare for a mount namespace of its own"
  SHM=$(mktemp -d /dev/shm/dtail-secrets.XXXXXX) || skip "no /dev/shm"
  echo "shared memory line" >"$SHM/s.log" && chmod 755 "$SHM" && chmod 644 "$SHM/s.log"
  mkdir -p "$IN/p" "$IN/shm"
  # Unmounted before the harness removes $T (rm -rf must not reach them).
  trap 'umount -l "$IN/p" "$IN/shm" 2>/dev/null; rm -rf "$SHM"; server_cleanup' EXIT
  mount --bind /proc "$IN/p" && mount --bind "$SHM" "$IN/shm" || skip "bind mounts fail here"
  server_setup
  server_start
  ask missing dcat "$IN/none.log" --plain
  expect_rc missing 1
  refused_like missing "$IN/p/self/status" "$IN/p/version" "$IN/shm/s.log"
  expect_log procfs "kernel filesystem"
  expect_log shm "mounted under /proc, /sys or /dev"
  server_alive
  server_stop
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
