# systemd journal targets (`journal:<unit>`, exec/scan/journal.h) end to
# end, on journal files the test writes itself (journal_lib.sh: an export
# stream through systemd-journal-remote; no journald runs): what dcat,
# dgrep, dmap and dtail read of a unit is what `journalctl -D DIR -u UNIT`
# prints of the same files, byte for byte, serverless and through a real
# dserver (Common.JournalDirectory points both at the test's directory).
# Also DTail's journal cases (its TestDJournal*WithServer): the rule on the
# target, the capability journal-v1, dmap's `3,integrationtest`.
# Usage: journal.sh serverless|errors|server|denied|follow|follow_server|dt41
# (dt41 needs the Go DTail of ../shared/peers, and skips without it)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/journal_lib.sh"
mode=${1:?mode}
need_bin dcat dgrep dmap dtail
need_journal_tools

# Local time with summer time, for both sides (no zone file needed).
export TZ='CET-1CEST,M3.5.0,M10.5.0/3'
J=$T/journal
T0=1700000000000000   # Nov 14 2023, 23:13:20 CET
CFG=$T/client.json

# test.service: DTail's three lines. tricky.service: what the short
# format does to odd entries, in a second file whose entries fall between
# the first's. other.service: one line.
make_journal() {
  {
    jentry $((T0)) test.service app "journal alpha"
    jentry $((T0 + 2000000)) test.service app "journal beta match-123"
    jentry $((T0 + 4000000)) test.service app "journal gamma match-456"
    jentry $((T0 + 5000000)) other.service oth "other line"
  } | jwrite "$J" a
  local long
  long=$(printf 'x%.0s' $(seq 1 3000))
  {
    jentry $((T0 + 1000000)) tricky.service tr $'tab\there'
    jentry $((T0 + 1100000)) tricky.service tr $'colour \e[31mred\e[0m and \e]8;;http://x\alink\e]8;;\a end'
    jentry $((T0 + 1200000)) tricky.service tr $'carriage return\r'
    jentry $((T0 + 1300000)) tricky.service tr $'inner\rreturn'
    jentry $((T0 + 1400000)) tricky.service tr $'multi line\n\tsecond\nthird'
    jentry $((T0 + 1500000)) tricky.service "" $'no identifier\nsecond line' _COMM=
    jentry $((T0 + 1600000)) tricky.service "" "comm only" _COMM=trc
    jentry $((T0 + 1700000)) tricky.service tr "trailing newline"$'\n'
    jentry $((T0 + 1800000)) tricky.service tr ""
    jentry $((T0 + 1900000)) tricky.service tr $'utf-8 \xc3\xa9 ok, invalid \xff not'
    jentry $((T0 + 2100000)) tricky.service tr "$long"
    jentry $((T0 + 2200000)) tricky.service tr "long host" _HOSTNAME="$(printf 'h%.0s' $(seq 1 300))"
    jentry $((T0 + 2300000)) tricky.service tr "source time" _SOURCE_REALTIME_TIMESTAMP=$((T0 + 86400000000))
    jentry $((T0 + 2400000)) "" systemd "Started tricky.service." _PID=1 UNIT=tricky.service _SYSTEMD_UNIT=init.scope
    jentry $((T0 + 2500000)) "" systemd "not about it" _PID=1 UNIT=other.service _SYSTEMD_UNIT=init.scope
    jentry $((T0 + 2600000)) tricky.service tr "syslog pid" _PID= SYSLOG_PID=77
    jentry $((T0 + 2700000)) tricky.service tr "matches here"
  } | jwrite "$J" b
  printf '{"Common": {"JournalDirectory": "%s"}}\n' "$J" >"$CFG"
}

# same LABEL UNIT TOOL ARGS...: our TOOL's output equals journalctl -u UNIT's.
want_jctl() { jctl "$J" "$1" >"$T/$2.want" || die "journalctl -u $1 failed"; }

# dtail_ready PID LOG UNIT: appends tick entries for UNIT into its own
# journal file until the follower (writing LOG) shows one: from then on it
# reads the journal from its end, and what is appended is new to it.
dtail_ready() {
  local k
  for k in $(seq 1 60); do
    jentry $((T0 + 9000000000 + k)) "$3" app "tick $k" | jwrite "$J" live
    poll 1 grep -qF "tick $k" "$2" && return 0
    kill -0 "$1" 2>/dev/null || break
  done
  fail "the follower never showed a tick"
  sed 's/^/  | /' "$2" "$T/bg.err" >&2
  return 1
}

# follow_check LABEL FLAGS...: dtail follows journal:test.service (and a
# file), an entry appended after the start arrives as journalctl prints
# it, and SIGTERM ends it with 0 (DTail's DTailFollowJournal,
# MixedFileAndJournalFollow).
follow_check() {
  local label=$1 i
  shift
  printf 'old file line\n' >"$T/app.log"
  chmod 644 "$T/app.log"
  bg_start dtail "$@" --plain --files "journal:test.service,$T/app.log"
  dtail_ready "$BG_PID" "$T/bg.out" test.service || { bg_stop KILL; return; }
  for i in 1 2 3; do
    jentry $((T0 + 9500000000 + i)) test.service app "journal follow $i" | jwrite "$J" live
    printf 'file follow %d\n' "$i" >>"$T/app.log"
  done
  wait_out "journal follow 3" 30
  wait_out "file follow 3" 30
  bg_stop TERM 30
  expect_rc "$label: dtail after SIGTERM" 0
  grep -F 'journal follow' "$OUT" >"$T/$label.got"
  jctl "$J" test.service | grep -F 'journal follow' >"$T/$label.want"
  expect_bytes "$label: journal lines as journalctl prints them" "$T/$label.got" "$T/$label.want"
  grep -F 'file follow' "$OUT" >"$T/$label.file"
  printf 'file follow %d\n' 1 2 3 >"$T/$label.file.want"
  expect_bytes "$label: file lines" "$T/$label.file" "$T/$label.file.want"
  grep -q 'old file line\|journal alpha' "$OUT" && fail "$label: a line from before the start"
  return 0
}

# server_journal [RULES]: a dserver reading $J, RULES (JSON list, default
# test and tricky) for every user; its host is integrationtest.
server_journal() {
  . "$(dirname "$0")/server_lib.sh"
  export DTAIL_HOSTNAME_OVERRIDE=integrationtest
  SERVER_CFG_EXTRA="\"Permissions\": {\"Default\": ${1:-[\"readfiles:^journal:test\\\\.service\$\", \"readfiles:^journal:tricky\\\\.service\$\", \"^/.*\"]}}"
  server_setup
  sed -i "s|\"Common\": {|\"Common\": {\"JournalDirectory\": \"$J\", |" "$SERVER_CFG"
  chmod 755 "$T"
  server_start
  expect_log journal_v1 "Journal targets served|$J"
}

case $mode in
serverless)
  make_journal
  for u in test.service tricky.service other.service; do
    want_jctl "$u" "$u"
    run "$u" dcat --plain --cfg "$CFG" "journal:$u"
    expect_rc "$u" 0
    expect_bytes "dcat journal:$u = journalctl -u $u" "$OUT" "$T/$u.want"
  done
  # --files, REMOTE lines: the source id is the target as given
  run remote dcat --cfg "$CFG" --noColor --files journal:test.service
  awk -v h="$(hostname | cut -d. -f1)" '{ print "REMOTE|" h "|100|" NR "|journal:test.service|" $0 }' \
    "$T/test.service.want" >"$T/remote.want"
  expect_bytes "REMOTE lines" "$OUT" "$T/remote.want"
  # journalctl's unit names: "tricky" is tricky.service; a glob is every
  # unit it matches, the entries of all in time order
  jctl "$J" tricky >"$T/mangle.want"
  run mangle dcat --plain --cfg "$CFG" journal:tricky
  expect_bytes "journal:tricky = journalctl -u tricky" "$OUT" "$T/mangle.want"
  jctl "$J" 't*' >"$T/glob.want"
  run glob dcat --plain --cfg "$CFG" 'journal:t*'
  expect_bytes "journal:t* = journalctl -u 't*'" "$OUT" "$T/glob.want"
  # a journal target among files
  printf 'a file line\n' >"$T/f.log"
  run mixed dcat --plain --cfg "$CFG" "$T/f.log,journal:other.service"
  cat "$T/f.log" "$T/other.service.want" >"$T/mixed.want"
  expect_bytes "a file and a journal target" "$OUT" "$T/mixed.want"
  # dgrep: DTail's --regex, context as grep's (without its separators)
  run regex dgrep --plain --cfg "$CFG" --regex 'match-[0-9]+' --files journal:test.service
  grep -E 'match-[0-9]+' "$T/test.service.want" >"$T/regex.want"
  expect_lines regex "$T/regex.want" 2
  expect_bytes "dgrep --regex match-[0-9]+" "$OUT" "$T/regex.want"
  run context dgrep --plain --cfg "$CFG" --grep 'line' --before 1 --after 1 journal:tricky.service
  grep --no-group-separator -B1 -A1 'line' "$T/tricky.service.want" >"$T/context.want"
  expect_bytes "dgrep --before 1 --after 1" "$OUT" "$T/context.want"
  run invert dgrep --plain --cfg "$CFG" --invert --grep beta journal:test.service
  grep -v beta "$T/test.service.want" >"$T/invert.want"
  expect_bytes "dgrep --invert" "$OUT" "$T/invert.want"
  # dmap over a journal target (DTail's DMapJournal: 3,integrationtest)
  DTAIL_INTEGRATION_TEST_RUN_MODE=yes run dmap dmap --cfg "$CFG" --query \
    "select count(\$line),\$hostname group by \$hostname outfile $T/dmap.csv" journal:test.service
  expect_rc dmap 0
  printf 'count($line),$hostname\n3,integrationtest\n' >"$T/dmap.want"
  expect_bytes "dmap CSV" "$T/dmap.csv" "$T/dmap.want"
  # a unit without entries: nothing, and no error (journalctl says
  # "-- No entries --")
  run none dcat --plain --cfg "$CFG" journal:nothere.service
  expect_rc none 0
  expect_empty none "$OUT"
  expect_empty none "$ERR"
  ;;
errors)
  make_journal
  # DTail's rules for the unit, each error naming the target
  run bad dcat --plain --cfg "$CFG" --files 'journal:,journal:-x,journal:a b,journal:test.service'
  expect_rc bad 1
  expect_contains bad "$ERR" "journal:: invalid journal target: the unit is empty"
  expect_contains bad "$ERR" "journal:-x: invalid journal target: the unit must not start with '-'"
  expect_contains bad "$ERR" "journal:a b: invalid journal target: the unit has whitespace"
  jctl "$J" test.service >"$T/test.want"
  expect_bytes "the valid target is still read" "$OUT" "$T/test.want"
  run tab dcat --plain --cfg "$CFG" $'journal:a\tb'
  expect_rc tab 1
  expect_contains tab "$ERR" "invalid journal target: the unit has whitespace or a control character"
  # a glob that matches no unit, as journalctl's -u
  run noglob dcat --plain --cfg "$CFG" 'journal:zz*'
  expect_rc noglob 1
  expect_contains noglob "$ERR" "journal:zz*: no unit in the journal matches this pattern"
  # a directory that is not there
  printf '{"Common": {"JournalDirectory": "%s"}}\n' "$T/nowhere" >"$T/nowhere.json"
  run nodir dcat --plain --cfg "$T/nowhere.json" journal:test.service
  expect_rc nodir 1
  expect_contains nodir "$ERR" "journal:test.service: cannot open the journal directory $T/nowhere"
  # the key is checked as every key is
  printf '{"Common": {"JournalDirectory": 5}}\n' >"$T/badkey.json"
  run badkey dcat --plain --cfg "$T/badkey.json" journal:test.service
  expect_rc badkey 2
  expect_contains badkey "$ERR" "JournalDirectory"
  ;;
server)
  make_journal
  server_journal
  for u in test.service tricky.service; do
    want_jctl "$u" "$u"
    run "srv_$u" dcat --plain "${SERVER_CLIENT_FLAGS[@]}" --files "journal:$u"
    expect_rc "srv_$u" 0
    expect_bytes "dcat through dserver, journal:$u = journalctl -u $u" "$OUT" "$T/$u.want"
  done
  run remote dcat "${SERVER_CLIENT_FLAGS[@]}" --files journal:test.service
  awk '{ print "REMOTE|integrationtest|100|" NR "|journal:test.service|" $0 }' \
    "$T/test.service.want" >"$T/remote.want"
  expect_bytes "REMOTE lines through dserver" "$OUT" "$T/remote.want"
  expect_log start "Start reading|journal:test.service|journal:test.service"
  run regex dgrep --plain "${SERVER_CLIENT_FLAGS[@]}" --regex 'match-[0-9]+' --files journal:test.service
  grep -E 'match-[0-9]+' "$T/test.service.want" >"$T/regex.want"
  expect_bytes "dgrep --regex through dserver" "$OUT" "$T/regex.want"
  run context dgrep --plain "${SERVER_CLIENT_FLAGS[@]}" --grep line --before 1 --after 1 \
    --files journal:tricky.service
  grep --no-group-separator -B1 -A1 'line' "$T/tricky.service.want" >"$T/context.want"
  expect_bytes "dgrep context through dserver" "$OUT" "$T/context.want"
  run dmap dmap "${SERVER_CLIENT_FLAGS[@]}" --files journal:test.service --query \
    "select count(\$line),\$hostname group by \$hostname outfile $T/dmap.csv"
  expect_rc dmap 0
  printf 'count($line),$hostname\n3,integrationtest\n' >"$T/dmap.want"
  expect_bytes "dmap CSV through dserver" "$T/dmap.csv" "$T/dmap.want"
  # a malformed target is told in its own words
  run bad dcat --plain "${SERVER_CLIENT_FLAGS[@]}" --files 'journal:-x'
  expect_rc bad 1
  expect_contains bad "$ERR" "journal:-x: invalid journal target: the unit must not start with '-'"
  server_alive
  server_stop
  ;;
denied)
  # DTail's PermissionRegexDenialAndSuccess: the rule is on the whole
  # target; a denied one is refused as any file is, the allowed one read
  make_journal
  server_journal '["readfiles:^journal:test\\.service$"]'
  run denied dcat --plain "${SERVER_CLIENT_FLAGS[@]}" --files journal:other.service,journal:test.service
  expect_rc denied 1
  jctl "$J" test.service >"$T/allowed.want"
  expect_bytes "the allowed target" "$OUT" "$T/allowed.want"
  grep -q 'other line' "$OUT" && fail "denied: the denied target's line was served"
  expect_contains denied "$ERR" "No permission to read file, or it does not exist|journal:other.service"
  expect_log denied_log "No permission to read file|journal:other.service|"
  # Default's "^/.*" is not a journal rule: a path rule allows no journal
  run glob dcat --plain "${SERVER_CLIENT_FLAGS[@]}" --files 'journal:*'
  expect_rc glob 1
  expect_empty glob "$OUT"
  server_stop
  ;;
follow)
  make_journal
  follow_check follow --cfg "$CFG"
  ;;
follow_server)
  make_journal
  server_journal
  follow_check follow_server "${SERVER_CLIENT_FLAGS[@]}"
  server_alive
  server_stop
  ;;
dt41)
  # The Go DTail (../shared/peers): our client against a Go dserver
  # without journalctl (no journal-v1: DTail's MissingJournalCapability)
  # and with DTail's mock of it; the Go clients against our dserver.
  PEERS=${PEERS:-$(dirname "$COMPAT")/peers/dtail-4.3.2-ng/bin}
  [ -x "$PEERS/dserver" ] || skip "needs the Go DTail in $PEERS (../shared/peers), which is not there"
  command -v setpriv >/dev/null || [ "$(id -u)" -ne 0 ] || skip "needs setpriv to run the Go dserver unprivileged"
  . "$(dirname "$0")/go_dserver_lib.sh"
  make_journal
  server_journal
  GO_PID=
  trap '[ -n "$GO_PID" ] && kill "$GO_PID" 2>/dev/null; server_cleanup' EXIT
  go_start() {   # go_start PATH [CFG]: a Go dserver with that PATH
    [ -n "$GO_PID" ] && kill "$GO_PID" 2>/dev/null && wait "$GO_PID" 2>/dev/null
    rm -rf "$T/go" && mkdir -p "$T/go/cache" "$T/go/log"
    cp "$SERVER_KEY.pub" "$T/go/cache/dtail.authorized_keys"
    chmod -R a+rwX "$T/go"
    GO_DSERVER_PATH=$1 GO_DSERVER_CFG=${2:-} go_dserver_launch "$T/go" "$PEERS" 110 ||
      die "the Go dserver did not listen on $GO_PORT"
  }
  GO_FLAGS=(--user dtail --key "$SERVER_KEY" --trustAllHosts --noColor)
  mkdir -p "$T/nojctl"
  go_start "$T/nojctl"
  run nocap dcat --servers "127.0.0.1:$GO_PORT" "${GO_FLAGS[@]}" --files journal:test.service
  expect_rc nocap 1
  expect_contains nocap "$ERR" "SERVER|127.0.0.1|ERROR|journal file targets require server capability journal-v1"
  expect_empty nocap "$OUT"
  # a follow does not hang on it, nor retry (DTail: MissingCapabilityDoesNotHang)
  RUN_TIMEOUT=15 run nocap_tail dtail --plain --servers "127.0.0.1:$GO_PORT" "${GO_FLAGS[@]}" \
    --files journal:test.service
  expect_rc nocap_tail 1
  expect_contains nocap_tail "$ERR" "journal file targets require server capability journal-v1"
  # with DTail's mock journalctl and its rule, the Go dserver serves it
  mkdir -p "$T/mockbin"
  printf '#!/bin/sh\necho "journal alpha"\necho "journal beta match-123"\necho "journal gamma match-456"\n' \
    >"$T/mockbin/journalctl"
  chmod 755 "$T/mockbin" "$T/mockbin/journalctl"
  printf '{"Server": {"Permissions": {"Default": ["readfiles:^journal:test\\\\.service$"]}}}\n' >"$T/go.json"
  chmod 644 "$T/go.json"
  go_start "$T/mockbin" "$T/go.json"
  run mock dcat --plain --servers "127.0.0.1:$GO_PORT" "${GO_FLAGS[@]}" --files journal:test.service
  expect_rc mock 0
  printf 'journal alpha\njournal beta match-123\njournal gamma match-456\n' >"$T/mock.want"
  expect_bytes "our dcat through a Go dserver's journalctl" "$OUT" "$T/mock.want"
  run mock_regex dgrep --plain --servers "127.0.0.1:$GO_PORT" "${GO_FLAGS[@]}" --regex 'match-[0-9]+' \
    --files journal:test.service
  grep match "$T/mock.want" >"$T/mock_regex.want"
  expect_bytes "our dgrep --regex through a Go dserver" "$OUT" "$T/mock_regex.want"
  # the Go clients through our dserver: journal-v1 is there
  jctl "$J" test.service >"$T/test.want"
  GO_C=(--cfg none --servers "$SERVER" --user "$SERVER_USER" --auth-key-path "$SERVER_KEY"
        --trustAllHosts --logDir "$T/home/log" --plain)
  run go_dcat "$PEERS/dcat" "${GO_C[@]}" --files journal:test.service
  grep -v 'AUTHKEY registration failed' "$OUT" >"$T/go_dcat.got"
  expect_bytes "the Go dcat through our dserver" "$T/go_dcat.got" "$T/test.want"
  run go_dgrep "$PEERS/dgrep" "${GO_C[@]}" --regex 'match-[0-9]+' --files journal:test.service
  grep -v 'AUTHKEY registration failed' "$OUT" >"$T/go_dgrep.got"
  grep match "$T/test.want" >"$T/go_dgrep.want"
  expect_bytes "the Go dgrep --regex through our dserver" "$T/go_dgrep.got" "$T/go_dgrep.want"
  run go_dmap "$PEERS/dmap" "${GO_C[@]}" --files journal:test.service --query \
    "select count(\$line),\$hostname group by \$hostname outfile $T/go_dmap.csv"
  expect_contains go_dmap "$T/go_dmap.csv" 'count($line),$hostname'
  expect_contains go_dmap "$T/go_dmap.csv" '3,integrationtest'
  server_stop
  ;;
*)
  die "unknown mode $mode"
  ;;
esac
finish
