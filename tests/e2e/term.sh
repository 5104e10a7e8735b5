# Terminal safety (docs/dcat-dgrep.md "Terminal safety"): the clients run
# on a real pseudo-terminal (tests/support/ptydrive.c) over a log holding
# what a terminal acts on (ESC[2J, an OSC title ending in BEL, CR, BS, NUL,
# DEL, a C1 CSI), invalid UTF-8 and valid UTF-8 (é, an emoji); the
# terminal must get the data escaped (term_oracle.py, independent of the C
# code, says how) and the paint of DTail's colours intact; --raw-terminal
# gives the bytes unchanged; a pipe gets them byte for byte. Host names,
# file names and server-sent text are data too.
# Usage: bash term.sh dcat|dgrep|dtail|dmap|remote
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep dmap dtail ptydrive
command -v python3 >/dev/null || skip "python3 is not installed (the oracle)"
ORACLE_PY=$(dirname "$0")/term_oracle.py
[ "$mode" = remote ] && . "$(dirname "$0")/server_lib.sh"

IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN" || die "mkdir $IN"
EVIL=$IN/evil.log
printf '%b' 'clear\033[2Jscreen\n' '\033]0;pwned title\007after\n' 'ab\rcd\n' 'back\bspace\n' \
  'nul\000byte\n' 'del\177x\n' 'bad\377\376utf\n' 'caf\303\251 \360\237\230\200 ok\n' 'crlf\r\n' \
  'tab\there\n' 'c1\302\233x\n' 'WARN \033[8mhidden\n' 'plain line\n' >"$EVIL"
chmod 644 "$EVIL"
export DTAIL_HOSTNAME_OVERRIDE=termhost

oracle() { python3 "$ORACLE_PY" "$@" || die "term_oracle.py $* failed"; }

# on_tty LABEL HOW CMD...: CMD with a pseudo-terminal as stdout (HOW out:
# stderr to $T/LABEL.side), as stderr (HOW err: stdout to $T/LABEL.side)
# or both (HOW both); it must exit $TTY_RC (default 0). What the terminal showed, without the
# line discipline's CR before each newline, is in $T/LABEL.tty (TTY).
on_tty() {
  local label=$1 how=$2 redir
  shift 2
  case $how in
    out) redir='exec "$@" 2>"$0"' ;;
    err) redir='exec "$@" >"$0"' ;;
    both) redir='exec "$@"' ;;
  esac
  echo "exit ${TTY_RC:-0}" >"$T/$label.script"
  RUN_TIMEOUT=120 run "$label" ptydrive -t 100 -o "$T/$label.raw" "$T/$label.script" -- \
    bash -c "$redir" "$T/$label.side" "$@"
  expect_rc "$label" 0
  TTY=$T/$label.tty
  oracle tty "$T/$label.raw" "$TTY"
}

# on_pipe LABEL CMD...: CMD with stdout to a pipe (exit 0); output in OUT.
on_pipe() {
  local label=$1
  shift
  run_sh "$label" "$(printf '%q ' "$@")| cat"
  expect_rc "$label" 0
}

# shows_escaped LABEL TTY-FILE PIPE-FILE: the terminal got the oracle's
# escape of what the pipe got, and no ESC.
shows_escaped() {
  oracle esc "$3" "$T/$1.want"
  expect_bytes "$1" "$2" "$T/$1.want"
  expect_no_esc "$1" "$2"
}

# shows_painted LABEL TTY-FILE PLAIN-TTY-FILE: the terminal got DTail's
# paint, and without it exactly the unpainted terminal output (the data's
# own ESC[8m is shown, never stripped as paint).
shows_painted() {
  expect_esc "$1" "$2"
  oracle strip "$2" "$T/$1.stripped"
  expect_bytes "$1 (paint taken out)" "$T/$1.stripped" "$3"
  expect_no_esc "$1 (paint taken out)" "$T/$1.stripped"
}

D=$DTAIL_BIN
# cases TOOL ARGS...: plain, REMOTE and painted lines of TOOL ARGS, each on
# a pipe (byte for byte), a terminal (escaped) and a terminal with
# --raw-terminal (the pipe's bytes).
cases() {
  local tool=$1
  shift
  on_pipe "$tool.plain.pipe" "$D/$tool" --plain "$@"
  cp "$OUT" "$T/$tool.plain.pipe"
  [ -n "${WANT_PLAIN:-}" ] && expect_bytes "$tool --plain to a pipe" "$OUT" "$WANT_PLAIN"
  on_tty "$tool.plain.tty" out "$D/$tool" --plain "$@"
  shows_escaped "$tool --plain on a terminal" "$TTY" "$T/$tool.plain.pipe"
  on_tty "$tool.plain.raw" out "$D/$tool" --plain --raw-terminal "$@"
  expect_bytes "$tool --plain --raw-terminal on a terminal" "$TTY" "$T/$tool.plain.pipe"

  on_pipe "$tool.remote.pipe" "$D/$tool" --noColor "$@"
  cp "$OUT" "$T/$tool.remote.pipe"
  [ -n "${WANT_REMOTE:-}" ] && expect_bytes "$tool --noColor to a pipe" "$OUT" "$WANT_REMOTE"
  on_tty "$tool.remote.tty" out "$D/$tool" --noColor "$@"
  shows_escaped "$tool --noColor on a terminal" "$TTY" "$T/$tool.remote.pipe"
  cp "$TTY" "$T/$tool.remote.tty"

  on_pipe "$tool.color.pipe" "$D/$tool" --color always "$@"
  cp "$OUT" "$T/$tool.color.pipe"
  on_tty "$tool.color.tty" out "$D/$tool" "$@"   # painted: on a terminal by default
  shows_painted "$tool painted on a terminal" "$TTY" "$T/$tool.remote.tty"
  on_tty "$tool.color.raw" out "$D/$tool" --raw-terminal "$@"
  expect_bytes "$tool painted, --raw-terminal, on a terminal" "$TTY" "$T/$tool.color.pipe"
}

# remote_lines FILE HOST SOURCE OUT: FILE's lines as REMOTE|HOST|100|n|SOURCE|line.
remote_lines() {
  python3 - "$@" <<'PY' || die "remote_lines failed"
import sys
src, host, source, dst = sys.argv[1:5]
lines = open(src, "rb").read().split(b"\n")[:-1]
with open(dst, "wb") as f:
    for i, l in enumerate(lines):
        f.write(b"REMOTE|%s|100|%d|%s|%s\n" % (host.encode(), i + 1, source.encode(), l))
PY
}

case $mode in
  dcat)
    WANT_PLAIN=$EVIL
    remote_lines "$EVIL" termhost evil.log "$T/want.remote"
    WANT_REMOTE=$T/want.remote
    cases dcat "$EVIL"
    # A host name and a file name are data too.
    NAMED=$IN/$'name\033]0;x\007\033[5m.log'
    cp "$EVIL" "$NAMED"
    export DTAIL_HOSTNAME_OVERRIDE=$'host\033[2J\302\233x'
    WANT_PLAIN= WANT_REMOTE=
    cases dcat "$NAMED"
    grep -qF 'REMOTE|host^[[2J<U+009B>x|100|1|name^[]0;x^G^[[5m.log|clear^[[2Jscreen' "$T/dcat.remote.tty" ||
      fail "the host and file name are not shown escaped"
    # The client's own errors name files.
    TTY_RC=1 on_tty missing err "$D/dcat" --plain "$IN/"$'missing\033[2J.log'
    expect_contains "error on a terminal" "$TTY" 'missing^[[2J.log'
    expect_no_esc "error on a terminal" "$TTY"
    ;;
  dgrep)
    grep -a 'a' "$EVIL" >"$T/want.plain"
    WANT_PLAIN=$T/want.plain
    cases dgrep --regex a "$EVIL"
    grep -av 'a' "$EVIL" >"$T/want.plain"
    cases dgrep --invert --regex a "$EVIL"
    grep -a -B 1 'WARN' "$EVIL" >"$T/want.plain"
    cases dgrep --before 1 --regex 'WARN' "$EVIL"
    ;;
  dtail)
    # A piped stdin is read to its end.
    on_tty dtail.tty out bash -c 'exec "$0" --plain <"$1"' "$D/dtail" "$EVIL"
    shows_escaped "dtail --plain on a terminal" "$TTY" "$EVIL"
    on_tty dtail.raw out bash -c 'exec "$0" --plain --raw-terminal <"$1"' "$D/dtail" "$EVIL"
    expect_bytes "dtail --plain --raw-terminal on a terminal" "$TTY" "$EVIL"
    ;;
  dmap)
    KV=$IN/kv.log
    printf '%b' 'name=a\033[2Jb|n=1\n' 'name=caf\303\251|n=2\n' 'name=t\033]0;x\007|n=3\n' \
      'name=bad\377|n=4\n' 'name=a\033[2Jb|n=5\n' >"$KV"
    Q='select last(name),count($line) group by name logformat generickv'
    on_pipe dmap.pipe "$D/dmap" --noColor --query "$Q" "$KV"
    grep -qF $'a\033[2Jb' "$OUT" || fail "dmap to a pipe: the value is not there byte for byte"
    on_tty dmap.tty out "$D/dmap" --noColor --query "$Q" "$KV"
    expect_no_esc "dmap table on a terminal" "$TTY"
    for v in 'a^[[2Jb' 'caf'$'\303\251' 't^[]0;x^G' 'bad<FF>'; do
      expect_contains "dmap table on a terminal" "$TTY" "$v"
    done
    # The table is padded to what is shown: every row as wide as the header.
    awk -F'|' 'NF > 1 && w && length($1) != w { bad = 1 } NF > 1 && !w { w = length($1) } END { exit bad }' \
      "$TTY" || fail "dmap table on a terminal: the columns are not aligned"
    on_tty dmap.color out "$D/dmap" --query "$Q" "$KV"
    oracle strip "$TTY" "$T/dmap.color.stripped"
    # (the painted form shows the query above the table)
    head -n 1 "$T/dmap.color.stripped" | grep -qxF "$Q" || fail "dmap painted: no query line above the table"
    sed -i 1d "$T/dmap.color.stripped"
    expect_bytes "dmap painted table on a terminal (paint taken out)" "$T/dmap.color.stripped" "$T/dmap.tty.tty"
    on_tty dmap.raw out "$D/dmap" --noColor --raw-terminal --query "$Q" "$KV"
    grep -qF $'a\033[2Jb' "$TTY" || fail "dmap --raw-terminal: the value is not raw on the terminal"
    # The REPL: its tables and its schema (field names and samples are data).
    printf '%s\n' 'expect dmap> ' "send $Q;\\r" 'expect bad<FF>' 'expect dmap> ' \
      'send .schema generickv\r' 'expect a^[[2Jb' 'expect dmap> ' 'send \x04' 'exit 0' >"$T/repl.script"
    RUN_TIMEOUT=120 run repl ptydrive -t 100 -o "$T/repl.raw" "$T/repl.script" -- "$D/dmap" --repl "$KV"
    expect_rc "REPL on a terminal" 0
    grep -qaF $'\033[2J' "$T/repl.raw" && fail "REPL: the data's ESC[2J reached the terminal"
    grep -qaF $'\033]0;' "$T/repl.raw" && fail "REPL: the data's OSC title reached the terminal"
    ;;
  remote)
    server_setup
    DTAIL_HOSTNAME_OVERRIDE=$'srv\033[5mhost' server_start
    FLAGS=("${SERVER_CLIENT_FLAGS[@]/--noColor/}")
    SRVFLAGS=()
    for f in "${FLAGS[@]}"; do [ -n "$f" ] && SRVFLAGS+=("$f"); done
    NAMED=$IN/$'name\033]0;x\007.log'
    cp "$EVIL" "$NAMED" && chmod 644 "$NAMED"
    # Through the server the lines are the serverless ones but for the host.
    DTAIL_HOSTNAME_OVERRIDE=$'srv\033[5mhost' on_pipe local "$D/dcat" --noColor "$EVIL"
    WANT_PLAIN=$EVIL WANT_REMOTE=$T/local.out
    cases dcat "${SRVFLAGS[@]}" --files "$EVIL"
    grep -qF 'REMOTE|srv^[[5mhost|100|1|evil.log|' "$T/dcat.remote.tty" ||
      fail "the server's host name is not shown escaped"
    WANT_PLAIN= WANT_REMOTE=
    cases dgrep "${SRVFLAGS[@]}" --regex a --files "$EVIL"
    # A name the server's glob found.
    cases dcat "${SRVFLAGS[@]}" --files "$IN/name*"
    grep -qF '|name^[]0;x^G.log|clear^[[2Jscreen' "$T/dcat.remote.tty" ||
      fail "the server's file name is not shown escaped"
    # The server's reports on stderr: its host name, and the names it was
    # asked for (it does not name what a glob found but may not read).
    DENIED=$IN/$'den\033[2Jied.log'
    cp "$EVIL" "$DENIED" && chmod 000 "$DENIED"
    ASK=("$IN/"$'den\033[2J*' "$IN/"$'gone\033]0;t\007.log')
    run stderr.pipe dcat "${SRVFLAGS[@]}" --noColor --files "${ASK[0]},${ASK[1]}"
    expect_rc "server reports to a file" 1
    grep -qF $'SERVER|srv\033[5mhost|ERROR|' "$ERR" || fail "server reports to a file: the host is not raw"
    grep -qF $'den\033[2J*' "$ERR" || fail "server reports to a file: the glob is not raw"
    grep -qF $'gone\033]0;t\007.log' "$ERR" || fail "server reports to a file: the missing name is not raw"
    echo 'exit 1' >"$T/err.script"
    RUN_TIMEOUT=120 run stderr.tty ptydrive -t 100 -o "$T/err.raw" "$T/err.script" -- \
      bash -c 'exec "$@" >/dev/null' - "$D/dcat" "${SRVFLAGS[@]}" --noColor --files "${ASK[0]},${ASK[1]}"
    expect_rc "server reports on a terminal" 0
    oracle tty "$T/err.raw" "$T/err.tty"
    expect_no_esc "server reports on a terminal" "$T/err.tty"
    for s in 'SERVER|srv^[[5mhost|ERROR|' 'den^[[2J*' 'gone^[]0;t^G.log'; do
      expect_contains "server reports on a terminal" "$T/err.tty" "$s"
    done
    RUN_TIMEOUT=120 run stderr.raw ptydrive -t 100 -o "$T/err.raw" "$T/err.script" -- \
      bash -c 'exec "$@" >/dev/null' - "$D/dcat" "${SRVFLAGS[@]}" --noColor --raw-terminal --files "${ASK[0]},${ASK[1]}"
    expect_rc "server reports on a terminal, --raw-terminal" 0
    grep -qaF $'gone\033]0;t\007.log' "$T/err.raw" || fail "server reports, --raw-terminal: the name is not raw"
    # --interactive-query, its control terminal the one it writes to: the
    # lines of a reload and the client's own messages.
    printf '%s\n' 'expect plain line' "send :reload --files $IN/name*\\n" \
      'expect reload applied successfully' 'expect |name^[]0;x^G.log|clear^[[2Jscreen' \
      'expect |name^[]0;x^G.log|plain line' 'send :quit\n' 'exit 0' >"$T/int.script"
    RUN_TIMEOUT=120 run interactive ptydrive -t 100 -o "$T/int.raw" "$T/int.script" -- \
      "$D/dcat" "${SRVFLAGS[@]}" --noColor --interactive-query --files "$EVIL"
    expect_rc "--interactive-query on a terminal" 0
    grep -qaF $'\033[2J' "$T/int.raw" && fail "--interactive-query: the data's ESC[2J reached the terminal"
    grep -qaF $'\033]0;' "$T/int.raw" && fail "--interactive-query: an OSC title reached the terminal"
    # A table through the server.
    printf '%b' 'name=a\033[2Jb|n=1\n' 'name=bad\377|n=2\n' >"$IN/kv.log"
    chmod 644 "$IN/kv.log"
    on_tty dmap.tty out "$D/dmap" "${SRVFLAGS[@]}" --noColor --files "$IN/kv.log" \
      --query 'select last(name),count($line) group by name logformat generickv'
    expect_no_esc "dmap table through the server on a terminal" "$TTY"
    expect_contains "dmap table through the server on a terminal" "$TTY" 'a^[[2Jb'
    expect_contains "dmap table through the server on a terminal" "$TTY" 'bad<FF>'
    server_alive
    server_stop
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
