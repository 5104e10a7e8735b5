# The clients' log file and logging flags (reference 4.10, 1.2): --logger
# none|stdout|file|fout, --logDir, --log-payload, Client.LogPayload and
# Common.LogRotation, with the command lines of DTail's own tests that use
# them (reference 7.2: TestDCatLogPayload, TestDMap1, TestDTailWithServer)
# run as DTail runs them.
#   file        --logger file: diagnostics in LOGDIR/YYYYMMDD.log, none on
#               the terminal; the payload still on stdout
#   payload     TestDCatLogPayload's three runs (output and file as DTail
#               checks them)
#   rotation    Common.LogRotation other than daily: LOGDIR/<tool>.log;
#               Client.LogPayload copies the payload and asks for the file
#   refused     flags and keys that could do nothing are errors naming them
#   dmap        TestDMap1's line: dmap --cfg none --logger stdout --logLevel info
#   remote      through a dserver: its messages in the client's file, and
#               TestDTailWithServer's line (--logger stdout --logLevel info)
# Usage: bash client_log.sh file|payload|rotation|refused|dmap|remote
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep dmap dtail
need_input "$LINES_TXT" "$M"

# log_text DIR: every *.log in DIR, concatenated (DTail's readDailyLog).
log_text() {
  cat "$1"/*.log 2>/dev/null
}

# daily_only DIR: DIR holds one file, named YYYYMMDD.log.
daily_only() {
  [ "$(ls "$1" | grep -c '^[0-9]\{8\}\.log$')" -eq 1 ] && [ "$(ls "$1" | wc -l)" -eq 1 ]
}

case $mode in
file)
  D=$T/logs/nested
  run file dgrep --logger file --logDir "$D" --logLevel debug --plain --grep '^7' \
    "$LINES_TXT" "$T/missing.log"
  expect_rc file 1
  expect_empty "file stderr" "$ERR"
  [ "$(wc -l <"$OUT")" -gt 0 ] || fail "file: no payload on stdout"
  cmp -s "$OUT" <(grep '^7' "$LINES_TXT") || fail "file: stdout is not the selected lines"
  daily_only "$D" || fail "file: $D does not hold one YYYYMMDD.log: $(ls "$D" 2>&1)"
  log_text "$D" >"$T/file.log"
  expect_contains "file log" "$T/file.log" "|DEBUG|Using "
  expect_contains "file log" "$T/file.log" "CLIENT|"
  expect_contains "file log" "$T/file.log" "dgrep: error: $T/missing.log: No such file or directory"
  grep -q '^7' "$T/file.log" && fail "file: the payload is in the log file without --log-payload"
  # fout: both; --logDir alone asks for the file (DTail's default fout).
  run fout dgrep --logDir "$T/fout" --plain --grep '^7' "$T/missing.log"
  expect_rc fout 1
  expect_contains "fout stderr" "$ERR" "No such file or directory"
  expect_contains "fout log" "$(ls "$T"/fout/*.log)" "No such file or directory"
  # --logger none: nothing anywhere, the status still tells.
  run none dgrep --logger none --plain --grep x "$T/missing.log"
  expect_rc none 1
  expect_empty "none stderr" "$ERR"
  # stdout (and no flag at all): the terminal only, and no file in ~/log.
  export HOME=$T/home
  mkdir -p "$HOME"
  run stdout dgrep --logger stdout --plain --grep x "$T/missing.log"
  expect_contains "stdout stderr" "$ERR" "No such file or directory"
  run default dgrep --plain --grep x "$T/missing.log"
  [ -e "$HOME/log" ] && fail "a log directory was made without a file logger"
  # ~/ in --logDir is the home directory (DTail's expansion).
  run home dcat --logLevel debug --logDir '~/mylog' --plain "$LINES_TXT"
  expect_rc home 0
  daily_only "$HOME/mylog" || fail "home: ~/mylog was not used: $(ls -R "$HOME" 2>&1 | tr '\n' ' ')"
  ;;
payload)
  # TestDCatLogPayload (dcat_logpayload_test.go), its commands as DTail runs
  # them: integration mode, stdout and stderr combined.
  need_compat
  need_input "$COMPAT/dcat1a.txt"
  cd "$T" || die "cd $T"
  cp "$COMPAT/dcat1a.txt" . || die "cp dcat1a.txt"
  export DTAIL_INTEGRATION_TEST_RUN_MODE=yes
  marker='500 Sat  2 Oct 13:46:46 EEST 2021'
  run_sh default "'$DTAIL_BIN/dcat' --logger fout --logDir '$T/l1' --logLevel debug --noColor --cfg none dcat1a.txt 2>&1"
  expect_rc default 0
  log_text "$T/l1" >"$T/l1.txt"
  grep -qF "$marker" "$T/l1.txt" && fail "default: the payload leaked into the log file"
  expect_contains "default log" "$T/l1.txt" integrationtest
  expect_contains "default stdout" "$OUT" "$marker"
  run_sh optin "'$DTAIL_BIN/dcat' --logger fout --logDir '$T/l2' --logLevel debug --noColor --log-payload --cfg none dcat1a.txt 2>&1"
  expect_rc optin 0
  log_text "$T/l2" >"$T/l2.txt"
  expect_contains "optin log" "$T/l2.txt" "$marker"
  run_sh plain_default "'$DTAIL_BIN/dcat' --plain --logger fout --logDir '$T/l3' --cfg none dcat1a.txt 2>&1"
  cp "$OUT" "$T/plain_default.keep"
  run_sh plain_optin "'$DTAIL_BIN/dcat' --plain --logger fout --logDir '$T/l4' --log-payload --cfg none dcat1a.txt 2>&1"
  cmp -s "$OUT" "$T/plain_default.keep" || fail "stdout differs with --log-payload"
  expect_bytes "plain stdout" "$OUT" dcat1a.txt
  log_text "$T/l3" | grep -qF "$marker" && fail "plain default: the payload leaked into the log file"
  log_text "$T/l4" >"$T/l4.txt"
  expect_bytes "plain optin log" "$T/l4.txt" dcat1a.txt
  ;;
rotation)
  printf '{"Common": {"LogRotation": "signal"}, "Client": {"LogPayload": true}}\n' >"$T/cfg.json"
  run rot dcat --cfg "$T/cfg.json" --logDir "$T/rot" --plain "$LINES_TXT"
  expect_rc rot 0
  expect_bytes "rotation stdout" "$OUT" "$LINES_TXT"
  [ "$(ls "$T/rot")" = dcat.log ] || fail "rotation: want only dcat.log in $T/rot, have: $(ls "$T/rot")"
  expect_bytes "rotation log (Client.LogPayload)" "$T/rot/dcat.log" "$LINES_TXT"
  # A second run appends to the one file.
  run rot2 dcat --cfg "$T/cfg.json" --logDir "$T/rot" --plain "$LINES_TXT"
  [ "$(wc -l <"$T/rot/dcat.log")" -eq $((2 * $(wc -l <"$LINES_TXT"))) ] ||
    fail "rotation: the second run did not append to dcat.log"
  # Client.LogPayload without --logDir: DTail's default file, ~/log.
  export HOME=$T/home
  mkdir -p "$HOME"
  printf '{"Client": {"LogPayload": true}}\n' >"$T/cfg2.json"
  run home dcat --cfg "$T/cfg2.json" --plain "$LINES_TXT"
  expect_rc home 0
  daily_only "$HOME/log" || fail "Client.LogPayload: no daily file in ~/log: $(ls -R "$HOME" 2>&1 | tr '\n' ' ')"
  ;;
refused)
  check_refused() { # LABEL WANT-TEXT ARGS...
    local label=$1 want=$2
    shift 2
    run "$label" dcat --plain "$@" "$LINES_TXT"
    expect_rc "$label" 2
    expect_contains "$label" "$ERR" "$want"
    expect_empty "$label stdout" "$OUT"
  }
  check_refused logger 'invalid value "syslog" for flag -logger' --logger syslog
  check_refused logdir_none 'flag -logDir needs a log file, but -logger none writes none' \
    --logger none --logDir "$T/x"
  check_refused payload_stdout 'flag -log-payload needs a log file, but -logger stdout writes none' \
    --logger stdout --log-payload
  printf '{"Client": {"LogPayload": true}}\n' >"$T/cfg.json"
  check_refused config_payload 'Client.LogPayload copies the payload into the log file, but -logger stdout' \
    --cfg "$T/cfg.json" --logger stdout
  printf '{"Client": {"LogPayload": "yes"}}\n' >"$T/bad.json"
  check_refused config_type 'Client.LogPayload must be true or false' --cfg "$T/bad.json"
  : >"$T/plainfile"
  run nodir dcat --plain --logDir "$T/plainfile/sub" "$LINES_TXT"
  expect_rc nodir 1
  expect_contains nodir "$ERR" "cannot create log directory $T/plainfile/sub"
  [ -d "$T/x" ] && fail "a refused run made its log directory"
  ;;
dmap)
  # TestDMap1's command line (dmap_test.go), serverless.
  out=$T/dmap1a.csv.tmp
  run dmap1 dmap --cfg none --logger stdout --logLevel info --noColor \
    --query "$COMPAT_Q1 outfile $out" "$M"
  expect_rc dmap1 0
  want_csv dmap1 q1
  expect_multiset dmap1 "$out" "$WANT"
  [ "$(cat "$out.query")" = "$COMPAT_Q1 outfile $out" ] || fail "dmap1: the .query file differs"
  ;;
remote)
  . "$(dirname "$0")/server_lib.sh"
  server_setup
  server_start
  unset SSH_AUTH_SOCK
  mkdir -p "$T/in" && chmod 755 "$T/in"
  run srvfile dcat "${SERVER_CLIENT_FLAGS[@]}" --logger file --logDir "$T/rl" --files "$T/in/nothere.log"
  expect_rc srvfile 1
  expect_empty "remote stderr" "$ERR"
  log_text "$T/rl" >"$T/rl.txt"
  expect_contains "remote log" "$T/rl.txt" "SERVER|"
  expect_contains "remote log" "$T/rl.txt" "nothere.log"
  expect_contains "remote log" "$T/rl.txt" "CLIENT|"
  # TestDTailWithServer (dtail_test.go): its line as DTail runs it, the
  # client's key where DTail's default lookup finds it.
  cp "$SERVER_KEY" "$HOME/.ssh/id_ed25519" && chmod 600 "$HOME/.ssh/id_ed25519"
  F=$T/in/dtail.follow.tmp
  : >"$F"
  chmod 644 "$F"
  bg_start dtail --cfg none --logger stdout --logLevel info --servers "$SERVER" \
    --files "$F" --grep Hello --trustAllHosts --noColor
  wait_following "$SERVER_CHILD" "$F"
  for g in World Moon Sun Mars Venus; do echo "$(date +%s) - Hello $g"; done >>"$F"
  echo "no greeting" >>"$F"
  wait_out "Hello Venus" 30
  bg_stop TERM
  for g in World Moon Sun Mars Venus; do
    grep -q "Hello $g" "$OUT" || fail "dtail: no 'Hello $g' line"
  done
  grep -q 'no greeting' "$OUT" && fail "dtail: a line not matching --grep was printed"
  server_stop
  ;;
*) die "unknown mode $mode" ;;
esac
finish
