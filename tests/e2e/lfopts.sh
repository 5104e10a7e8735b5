# lfopts.sh: the options after `logformat NAME` (docs/log-formats.md,
# "Options") through the real dmap: every bad option is refused before
# any input is read (exit 2), the message naming it and a caret under the
# place; `multiline "RE"` makes records of the query's lines (and must
# agree with --multiline when both are given); a timeformat decides $time
# and bucket() the same serverless and through a dserver.
# (The option's results against oracles: logformats.sh pattern|csvsemi.)
# Usage: bash lfopts.sh errors|server
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap

err() { # LABEL QUERY MESSAGE
  RUN_STDIN=/dev/zero RUN_TIMEOUT=5 run "$1" dmap --cfg none --query "$2"
  expect_rc "$1" 2
  expect_contains "$1" "$ERR" "$3"
  grep -q '^ *\^$' "$ERR" || fail "$1: no caret line"
}

case $mode in
errors)
  err delim_long 'select count($line) logformat csv delimiter ";;"' 'a delimiter is one byte, e.g. delimiter ";" (got 2 bytes)'
  err delim_quote 'select count($line) logformat csv delimiter "\""' 'a delimiter cannot be a quote or a line end'
  err delim_json 'select count($line) logformat json delimiter ";"' 'logformat json takes no delimiter (csv, csvnoheader and tsv do)'
  err delim_none 'select count($line) logformat tsv delimiter' 'logformat option delimiter needs a "quoted" value'
  err delim_twice 'select count($line) logformat csv delimiter ";" delimiter ","' 'logformat option delimiter given twice'
  err option_typo 'select count($line) logformat csv delimter ";"' "unknown logformat option 'delimter'; did you mean delimiter?"
  err tf_conv 'select count($line) logformat csv timeformat "%d/%q/%Y"' 'timeformat: unknown conversion %q'
  err tf_none 'select count($line) logformat csv timeformat "day"' 'timeformat has no conversion'
  err tf_word 'select count($line) logformat csv timeformat iso' 'timeformat needs a "quoted" layout'
  err ml_regex 'select count($line) logformat json multiline "[a"' 'invalid regex in multiline'
  printf 'INFO a\n  at x\n' >"$T/two.log"
  need_bin dtail
  RUN_TIMEOUT=5 run ml_differs dtail --cfg none --multiline '^I' --query 'select count($line) logformat generic multiline "^\\S"' "$T/two.log"
  expect_rc ml_differs 2
  expect_contains ml_differs "$ERR" "the query's multiline pattern differs from --multiline's"
  err pat_missing 'select count($line) logformat pattern' 'logformat pattern needs the pattern'
  err pat_adjacent 'select count($line) logformat pattern "%h%u"' 'two fields need text between them'
  err pat_directive 'select count($line) logformat pattern "%h %{X}t"' '%{format}t is not supported'
  err pat_var 'select $stauts logformat pattern "$remote_addr $status"' 'did you mean $status?'
  note "every bad logformat option refused with its message and a caret"
  ;;
server)
  # A pattern with a timeformat whose times carry a zone: serverless,
  # through one dserver and three (each a third of the file) the same
  # bytes; and multiline is refused before anything is sent.
  . "$(dirname "$0")/server_lib.sh"
  . "$(dirname "$0")/fanout_lib.sh"
  need_bin dserver
  mkdir -p "$T/in" && chmod 755 "$T/in"
  for i in $(seq 0 299); do
    printf '10.0.0.%d <%02d.05.2024 1%d:%02d:00 +0200> "GET /x%d" %d\n' $((i % 7)) $((1 + i % 3)) \
      $((i % 10)) $((i % 60)) $((i % 4)) $((200 + 100 * (i % 3)))
  done >"$T/in/a.log"
  echo 'broken line' >>"$T/in/a.log"
  chmod 644 "$T/in/a.log"
  Q='select bucket($time, 1h), $status, count($line) group by bucket($time, 1h), $status logformat pattern "$remote_addr <$time_local> \"$request\" $status" timeformat "%d.%m.%Y %H:%M:%S %z"'
  run local dmap --cfg none --output csv --query "$Q" "$T/in/a.log"
  expect_rc local 0
  cp "$OUT" "$T/local.csv"
  grep -q '^2024-05-01T08:00:00Z,200,' "$T/local.csv" ||
    fail "no UTC bucket from the timeformat: $(head -3 "$T/local.csv")"
  expect_contains "local summary" "$ERR" "301 lines read, 301 matched, 300 parsed, 0 not for this format, 1 unparsed"
  fanout_start_n 4
  fanout_place "$T/in" a.log
  THREE="${FANOUT_SERVERS[0]},${FANOUT_SERVERS[1]},${FANOUT_SERVERS[2]}"
  for s in "${FANOUT_SERVERS[3]}" "$THREE"; do
    run remote dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel error --servers "$s" --output csv --query "$Q" --files a.log
    expect_rc "remote $s" 0
    expect_bytes "dservers $s vs serverless" "$OUT" "$T/local.csv"
  done
  # multiline: 40 records of 1 to 4 lines (a stack trace's frames under
  # its line), counted as records serverless and through a dserver.
  for i in $(seq 0 39); do
    printf '%s request %d\n' "$([ $((i % 3)) = 0 ] && echo ERROR || echo INFO)" "$i"
    for _ in $(seq 1 $((i % 4))); do printf '\tat frame %d\n' "$i"; done
  done >"$T/in/ml.log"
  chmod 644 "$T/in/ml.log"
  MQ='select $sev, count($line) set $sev = regex($line, "^([A-Z]+)") group by $sev order by $sev logformat generic multiline "^\\S"'
  run ml_local dmap --cfg none --output csv --query "$MQ" "$T/in/ml.log"
  expect_rc ml_local 0
  [ "$(cat "$OUT")" = "$(printf '$sev,count($line)\nINFO,26\nERROR,14')" ] ||
    fail "multiline records serverless: $(cat "$OUT")"
  cp "$OUT" "$T/ml.csv"
  fanout_place "$T/in" ml.log   # whole on server 3 (thirds would cut records)
  run ml dmap "${SERVER_CLIENT_FLAGS[@]}" --logLevel error --servers "${FANOUT_SERVERS[3]}" --output csv --query "$MQ" --files ml.log
  expect_rc ml 0
  expect_bytes "multiline through a dserver" "$OUT" "$T/ml.csv"
  fanout_stop_all
  ;;
*) die "unknown mode $mode" ;;
esac
finish
