# dserver hardening: a config that would not do what it says stops the
# start (exit 2, naming the key, the file and the line; docs/dserver.md,
# "Hardening").
# Usage: server_cfg.sh CASE
#   bad_KIND      one bad config: dserver exits 2 with the message (KIND:
#                 misspelt, section, type, permkey, regex_default,
#                 regex_user), having created nothing
#   client        an unknown key stops dcat, dgrep, dmap and dtail (exit 2)
#   dtail_only    DTail's keys without effect here: accepted, one warning each
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/server_lib.sh"

as_user=()
[ "$(id -u)" -eq 0 ] && as_user=(--user nobody)

# bad_config LABEL WANT: dserver on $SERVER_CFG must exit 2 at once with
# "dserver: $SERVER_CFG:WANT" on stderr, and must not have got as far as
# the host keys or the log.
bad_config() {
  run "$1" "$DTAIL_BIN/dserver" --cfg "$SERVER_CFG" --port 0 --bindAddress 127.0.0.1 \
    --logger stdout "${as_user[@]}"
  expect_rc "$1" 2
  expect_contains "$1" "$ERR" "dserver: $SERVER_CFG:$2"
  grep -q 'Listening on' "$OUT" && fail "$1: dserver listened with a bad config"
  [ -e "$SRV/cache/ssh_host_key" ] && fail "$1: dserver created a host key before refusing"
  return 0
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
  server_setup
  write_cfg '    "Schedule": [],
    "KeyExchanges": ["curve25519-sha256"]'
  server_start
  run up "$DTAIL_BIN/dtailhealth" --server "$SERVER" --connectTimeout 30000
  expect_rc up 0
  server_stop
  for k in 5:Server.Schedule 6:Server.KeyExchanges; do
    n=$(grep -c "^WARN|[0-9-]*|$SERVER_CFG:${k%%:*}: ${k#*:}: DTail's key has no effect in this build" "$SERVER_LOG")
    [ "$n" -eq 1 ] || fail "dtail_only: $n warnings for ${k#*:} at line ${k%%:*}, want 1"
  done
  # A client reading the same file says so too, and runs.
  run dcat dcat --cfg "$SERVER_CFG" --plain "$LINES_TXT"
  expect_rc dcat 0
  expect_bytes dcat "$OUT" "$LINES_TXT"
  expect_contains dcat "$ERR" "$SERVER_CFG:5: Server.Schedule: DTail's key has no effect"
  ;;
*)
  die "unknown case ${1:-}"
  ;;
esac
finish
