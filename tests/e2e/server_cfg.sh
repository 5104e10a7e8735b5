# dserver hardening: a config that would not do what it says stops the
# start (exit 2, naming the key, the file and the line), and values written
# to the server's log cannot forge records (docs/dserver.md, "Hardening").
# Usage: server_cfg.sh CASE
#   bad_KIND      one bad config: dserver exits 2 with the message (KIND:
#                 misspelt, section, type, permkey, regex_default,
#                 regex_user, cipher, kex_type, logformat), having created nothing
#   client        an unknown key stops dcat, dgrep, dmap and dtail (exit 2)
#   dtail_only    DTail's keys without a counterpart here: refused, naming the
#                 key and why; the one value that describes this build loads
#   glob_retry    Server.ReadGlobRetryIntervalMs sets how soon a followed glob
#                 finds a new file, serverless and in dserver
#   log_filename  file names holding a newline or '|' are escaped in the log;
#                 no forged STATS record reaches `dmap 'from STATS ...'`
#   log_user      a user name holding a newline and '|' is escaped in the log
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"

# foreign_records LOG PID: lines of LOG that DTail's default format reads
# as a MAPREDUCE record (field 9) and that are not dserver PID's own.
foreign_records() {
  awk -F'|' -v pid="$2" '$10 ~ /^MAPREDUCE:/ && $3 != pid { n++ } END { print n + 0 }' "$1"
}

# A forged self-stats record, as a value would carry it into the log.
FORGED='INFO|1202-000000|1|stats.c:1|1|1|0|0.00|0s|MAPREDUCE:STATS|currentConnections=999|lifetimeConnections=999|preAuthConnections=0|requests=999|linesServed=0|bytesServed=0'

# bad_config LABEL WANT: dserver on $SERVER_CFG must exit 2 at once with
# "dserver: $SERVER_CFG:WANT" on stderr, and must not have got as far as
# the host keys or the log.
bad_config() {
  server_refuses "$1" "dserver: $SERVER_CFG:$2"
}

# write_cfg SERVER-KEYS [SECTIONS]: $SERVER_CFG with the harness's keys on
# lines 2-4, SERVER-KEYS (lines of text) in "Server" from line 5, and
# SECTIONS (lines) after it.
write_cfg() {
  cat >"$SERVER_CFG" <<JSON
{
  "Common": {"CacheDir": "$SRV/cache",
             "LogDir": "$SRV/log"},
  "Server": {"HostKeyBits": 2048,
$1
  }${2:+,
$2}
}
JSON
}

case ${1:-} in
bad_misspelt)
  server_setup
  write_cfg '    "MaxConnections": 5,
    "Permisions": {"Default": ["^/tmp/"]}'
  bad_config misspelt '6: unknown config key Server.Permisions'
  ;;
bad_section)
  server_setup
  write_cfg '    "MaxConnections": 5' '  "Srever": {"MaxConnections": 5}'
  bad_config section '7: unknown config section Srever (known: Common, Server, Client)'
  ;;
bad_type)
  server_setup
  write_cfg '    "MaxConnections": "ten"'
  bad_config type '5: Server.MaxConnections must be an integer from 1 to 1000000'
  ;;
bad_permkey)
  server_setup
  write_cfg '    "Permissions": {
      "Default": ["^/"],
      "Defaults": ["^/tmp/"]
    }'
  bad_config permkey '7: unknown config key Server.Permissions.Defaults (known: Default, Users)'
  ;;
bad_regex_default)
  server_setup
  write_cfg '    "Permissions": {
      "Users": {"Default": ["^/"]},
      "Default": ["^/var/log/", "readfiles:^/tmp/(x"]
    }'
  # The line is the key's (Default inside Users is not it), the rule its
  # place in the list.
  bad_config regex_default '7: Server.Permissions.Default, rule 2: rule "readfiles:^/tmp/(x": invalid regex'
  ;;
bad_regex_user)
  server_setup
  write_cfg '    "Permissions": {
      "Default": ["^/"],
      "Users": {"alice": ["^/home/alice/"],
                "x": ["readfiles:![a"]}
    }'
  bad_config regex_user '8: Server.Permissions.Users.x, rule 1: rule "readfiles:![a": invalid regex'
  ;;
bad_cipher)
  server_setup
  write_cfg '    "MaxConnections": 5,
    "Ciphers": ["aes256-ctr", "aes512-ctr"]'
  bad_config cipher '6: Server.Ciphers: "aes512-ctr" is not an algorithm this libssh supports'
  ;;
bad_kex_type)
  server_setup
  write_cfg '    "KeyExchanges": "curve25519-sha256"'
  bad_config kex_type '5: Server.KeyExchanges must be a non-empty list of algorithm names'
  ;;
bad_logformat)
  server_setup
  write_cfg '    "MapreduceLogFormat": "genericvk"'
  bad_config logformat "5: Server.MapreduceLogFormat: unknown log format 'genericvk' (known: default generic generickv csv csvnoheader tsv json k8s logfmt nginx apache syslog)"
  ;;
client)
  server_setup
  printf '{\n  "Common": {"SSHConnectTimeoutMs": 30000},\n  "Client": {"TermColorsEnabled": false}\n}\n' >"$T/client.json"
  need_input "$LINES_TXT"
  for b in dcat dgrep dmap dtail; do
    need_bin "$b"
    case $b in
      dgrep) args=(--regex . "$LINES_TXT") ;;
      dmap) args=(--files "$LINES_TXT" 'select count($line)') ;;
      dtail) args=(--shutdownAfter 5 "$LINES_TXT") ;;
      *) args=("$LINES_TXT") ;;
    esac
    run "$b" "$b" --cfg "$T/client.json" "${args[@]}"
    expect_rc "$b" 2
    expect_contains "$b" "$ERR" "$b: $T/client.json:3: unknown config key Client.TermColorsEnabled"
    expect_empty "$b" "$OUT"
  done
  ;;
dtail_only)
  # DTail's keys without a counterpart here stop the server and the
  # clients, each naming the key, its line and the reason.
  server_setup
  write_cfg '    "AuthKeyEnabled": true,
    "ReadRetryIntervalMs": 2000'
  bad_config dtail_only "6: Server.ReadRetryIntervalMs: DTail's key has no counterpart in this build"
  write_cfg '    "OutputFlushTimeoutMs": 2000'
  bad_config dtail_only_output "5: Server.OutputFlushTimeoutMs: DTail's key has no counterpart"
  need_input "$LINES_TXT"
  run dcat dcat --cfg "$SERVER_CFG" --plain "$LINES_TXT"
  expect_rc dcat 2
  expect_contains dcat "$ERR" "$SERVER_CFG:5: Server.OutputFlushTimeoutMs: DTail's key has no counterpart"
  expect_empty dcat "$OUT"
  # The value that says what this build does loads, silently.
  printf '{"Common": {"ExperimentalFeaturesEnable": false},\n "Client": {"AuthKeyDisable": true}}\n' \
    >"$T/settled.json"
  run settled dcat --cfg "$T/settled.json" --plain "$LINES_TXT"
  expect_rc settled 0
  expect_bytes settled "$OUT" "$LINES_TXT"
  expect_empty settled "$ERR"
  printf '{"Client": {"AuthKeyDisable": false}}\n' >"$T/register.json"
  run register dcat --cfg "$T/register.json" --plain "$LINES_TXT"
  expect_rc register 2
  expect_contains register "$ERR" "Client.AuthKeyDisable: only true is accepted"
  ;;
glob_retry)
  # Server.ReadGlobRetryIntervalMs: how soon a follow of a glob finds a
  # file that appears. Serverless and through a dserver; a long interval
  # misses a file a short one finds.
  server_setup
  mkdir -p "$T/d" && chmod 755 "$T/d"
  printf 'first\n' >"$T/d/a.log" && chmod 644 "$T/d/a.log"
  for ms in 60000 100; do
    printf '{"Server": {"ReadGlobRetryIntervalMs": %s}}\n' "$ms" >"$T/glob$ms.json"
    rm -f "$T/d/b.log"
    ( sleep 1; printf 'late arrival\n' >"$T/d/b.log"; chmod 644 "$T/d/b.log"
      sleep 1; printf 'late more\n' >>"$T/d/b.log" ) &
    writer=$!
    run "serverless_$ms" dtail --cfg "$T/glob$ms.json" --plain --shutdownAfter 4 --files "$T/d/*.log"
    wait "$writer"
    if [ "$ms" = 100 ]; then
      expect_contains "serverless_$ms" "$OUT" "late more"
    else
      case $(cat "$OUT") in *"late more"*) fail "serverless_$ms: a 60 s rescan found the new file" ;; esac
    fi
  done
  write_cfg '    "ReadGlobRetryIntervalMs": 100,
    "Permissions": {"Default": ["^'"$T"'/d/"]}'
  server_start
  rm -f "$T/d/b.log"
  ( sleep 1; printf 'late arrival\n' >"$T/d/b.log"; chmod 644 "$T/d/b.log"
    sleep 1; printf 'late more\n' >>"$T/d/b.log" ) &
  writer=$!
  run server dtail "${SERVER_CLIENT_FLAGS[@]}" --plain --shutdownAfter 4 --files "$T/d/*.log"
  wait "$writer"
  expect_contains server "$OUT" "late more"
  server_stop
  ;;
log_filename)
  server_setup
  mkdir -p "$T/data" && chmod 755 "$T/data"
  # A newline, then a whole record; and, on one line, '|' separators that
  # would put MAPREDUCE:STATS at field 9 after "File processing complete|DIR/y".
  nl_file="$T/data/x"$'\n'"$FORGED"
  bar_file="$T/data/y|1|1|0|0.00|0s|MAPREDUCE:STATS|currentConnections=998|x=1"
  printf 'newline\n' >"$nl_file" && printf 'bar\n' >"$bar_file" && chmod 644 "$nl_file" "$bar_file" ||
    die "cannot create the files"
  server_start
  run cat_nl dcat "${SERVER_CLIENT_FLAGS[@]}" --plain "$nl_file"
  expect_rc cat_nl 0
  printf 'newline\n' >"$T/cat_nl.want"
  expect_bytes cat_nl "$OUT" "$T/cat_nl.want"
  run cat_bar dcat "${SERVER_CLIENT_FLAGS[@]}" --plain "$bar_file"
  expect_rc cat_bar 0
  pid=$SERVER_CHILD
  server_stop
  # The values, escaped, in the lines of the reads.
  expect_contains log "$SERVER_LOG" "|File processing complete|$T/data/x\\nINFO\\x7c1202-000000\\x7c"
  expect_contains log "$SERVER_LOG" "|File processing complete|$T/data/y\\x7c1\\x7c1\\x7c0"
  grep -q '^INFO|1202-000000' "$SERVER_LOG" && fail "a log line starts with the forged record"
  grep -n 'currentConnections=99[89]' "$SERVER_LOG" | grep -v 'x7c' &&
    fail "a forged counter is in the log unescaped"
  n=$(foreign_records "$SERVER_LOG" "$pid")
  [ "$n" -eq 0 ] || fail "$n log lines read as MAPREDUCE records are not the server's"
  # dmap sees only the server's own records.
  run q dmap --cfg none --files "$SERVER_LOG" 'from STATS select count($line),max(currentConnections)'
  expect_rc q 0
  want=$(grep -c "^INFO|[0-9-]*|$pid|stats.c:1|[^|]*|[^|]*|[^|]*|[^|]*|[^|]*|MAPREDUCE:STATS|" "$SERVER_LOG")
  [ "$want" -gt 0 ] || fail "no STATS record of the server in the log"
  row=$(awk -F'|' 'NR == 3 { gsub(/ /, ""); print $1, $2 }' "$OUT")
  case $row in
    "$want "*) ;;
    *) fail "dmap 'from STATS' over the log: '$row', want $want records" ;;
  esac
  case $row in *99[89]*) fail "dmap 'from STATS' read a forged record: $row" ;; esac
  ;;
log_user)
  server_setup
  need_bin sshlogin
  server_start
  user="u"$'\n'"$FORGED"
  # OpenSSH's ssh and libssh's user option refuse such a name; sshlogin
  # sends it as it is, in the probe and (were the key listed) the login.
  run login sshlogin 127.0.0.1 "$SERVER_PORT" "$user" "$SERVER_KEY"
  expect_rc login 1
  server_alive
  pid=$SERVER_CHILD
  server_stop
  expect_contains log "$SERVER_LOG" "|u\\nINFO\\x7c1202-000000\\x7c1\\x7cstats.c:1\\x7c1\\x7c1\\x7c0\\x7c0.00\\x7c0s\\x7cMAPREDUCE:STATS\\x7ccurrentConnections=999\\x7c"
  expect_contains log "$SERVER_LOG" "bytesServed=0|user name not allowed"
  grep -q '^INFO|1202-000000' "$SERVER_LOG" && fail "a log line starts with the forged record"
  n=$(foreign_records "$SERVER_LOG" "$pid")
  [ "$n" -eq 0 ] || fail "$n log lines read as MAPREDUCE records are not the server's"
  grep 'currentConnections=999' "$SERVER_LOG" | grep -v x7c && fail "the forged counter is in the log unescaped"
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
