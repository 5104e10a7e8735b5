# shellcheck shell=bash
# journal_lib.sh: systemd journal files made by the test itself, for the
# journal target tests (journal.sh): no journald runs. Sourced after lib.sh.
#
#   need_journal_tools        skips (77) without systemd-journal-remote or
#                             journalctl (scripts/deps.sh installs both)
#   jentry USEC UNIT IDENT MESSAGE [FIELD=VALUE...]
#                             one entry in the journal export format on
#                             stdout: __REALTIME_TIMESTAMP USEC, _SYSTEMD_UNIT
#                             UNIT ("" for none), SYSLOG_IDENTIFIER IDENT (""
#                             for none), MESSAGE (binary-safe form), _PID
#                             4242, _HOSTNAME integrationtest, one boot (USEC
#                             after 2020-09-13: its monotonic time); the
#                             extra fields override or add (FIELD= drops one)
#   jwrite DIR NAME           the entries on stdin into DIR/NAME.journal
#                             (systemd-journal-remote; a file that exists is
#                             appended to), readable by all (dserver reads
#                             as nobody)
#   jctl DIR UNIT [ARGS...]   what journalctl -D DIR -u UNIT prints (C locale)
#
# Times are printed in the local time zone: the tests set TZ for both sides.

JOURNAL_REMOTE=
for p in /lib/systemd/systemd-journal-remote /usr/lib/systemd/systemd-journal-remote; do
  [ -x "$p" ] && JOURNAL_REMOTE=$p && break
done
# One boot, at 2020-09-13: an entry's monotonic time follows from its
# real time. (sd-journal orders the entries of one boot by their monotonic
# time: entries that disagree would be read out of order.)
JOURNAL_BOOT=5e5e1f0c3b7a4d2f9a1b2c3d4e5f6a7b
JOURNAL_BOOT_USEC=1600000000000000

need_journal_tools() {
  [ -n "$JOURNAL_REMOTE" ] ||
    skip "needs systemd-journal-remote (package systemd-journal-remote) to write journal files"
  command -v journalctl >/dev/null || skip "needs journalctl (package systemd) to compare with"
}

# le64 N: N as 8 bytes, little-endian.
le64() {
  local i s=
  for i in 0 1 2 3 4 5 6 7; do
    s+=$(printf '\\x%02x' $((($1 >> (8 * i)) & 255)))
  done
  printf "$s"
}

# jfield NAME VALUE: a field in the export format: NAME=VALUE, or the
# binary form (NAME, le64 length, bytes) for a value with a newline or a
# control character.
jfield() {
  local LC_ALL=C
  if [[ $2 == *[$'\x01'-$'\x1f']* ]]; then
    printf '%s\n' "$1"
    le64 "${#2}"
    printf '%s\n' "$2"
  else
    printf '%s=%s\n' "$1" "$2"
  fi
}

jentry() {
  local usec=$1 unit=$2 ident=$3 msg=$4 kv k
  shift 4
  declare -A extra=()
  local order=()
  for kv in "$@"; do
    k=${kv%%=*}
    extra[$k]=${kv#*=}
    order+=("$k")
  done
  jfield __REALTIME_TIMESTAMP "$usec"
  jfield __MONOTONIC_TIMESTAMP $((usec - JOURNAL_BOOT_USEC))
  jfield _BOOT_ID "$JOURNAL_BOOT"
  for k in _SYSTEMD_UNIT SYSLOG_IDENTIFIER _PID _HOSTNAME; do
    local v=
    case $k in
      _SYSTEMD_UNIT) v=$unit ;;
      SYSLOG_IDENTIFIER) v=$ident ;;
      _PID) v=4242 ;;
      _HOSTNAME) v=integrationtest ;;
    esac
    [ -n "${extra[$k]+x}" ] && v=${extra[$k]} && unset "extra[$k]"
    [ -n "$v" ] && jfield "$k" "$v"
  done
  jfield MESSAGE "$msg"
  for k in "${order[@]}"; do
    [ -n "${extra[$k]+x}" ] && [ -n "${extra[$k]}" ] && jfield "$k" "${extra[$k]}"
  done
  printf '\n'
}

jwrite() {
  mkdir -p "$1" && chmod 755 "$1" || die "cannot make the journal directory $1"
  "$JOURNAL_REMOTE" --output="$1/$2.journal" - 2>"$T/jwrite.err" ||
    die "systemd-journal-remote failed: $(tr '\n' ' ' <"$T/jwrite.err")"
  chmod a+r "$1/$2.journal"
}

jctl() {
  local dir=$1 unit=$2
  shift 2
  LC_ALL=C journalctl -D "$dir" -u "$unit" "$@"
}
