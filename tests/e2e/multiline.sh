# Multi-line records: dgrep, dcat and dtail --multiline START join the lines
# that do not match START to the record the line before them started (a
# stack trace under its log line). What they print is compared with
# multiline.py's oracle, which groups the lines itself, over a generated log
# of Java and Go traces larger than the reader's buffers and mapped windows
# (records cross every boundary), serverless and through a real dserver
# (byte for byte the same).
# Usage: bash multiline.sh grep|server|bound|follow
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dgrep
need_bin dcat
command -v python3 >/dev/null || skip "python3 not installed"
PY="python3 $(dirname "$0")/multiline.py"
START='^\S'
# Specs PATTERN%FLAGS: a literal, regexes that only a record's continuation
# lines or its start line satisfy, --invert and --max.
SPECS=('Handler3.handle%' 'IOException%' '^2024\S+ ERROR%' 'goroutine%--invert' 'java%--max 7'
       'Handler1[0-9]\.handle.*\n.*Handler2%')

IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN" || die "mkdir $IN"
gen() { # FILE N: the generated log, readable by a server
  $PY gen "$1" "$2" 7 || die "multiline.py gen"
  chmod 644 "$1"
}

# check WHERE LABEL FILE FLAGS...: dgrep --plain over FILE equals the oracle
# for every spec; WHERE is local or server.
check_specs() {
  local where=$1 f=$2 n=0 spec p extra
  for spec in "${SPECS[@]}"; do
    p=${spec%%%*}; extra=${spec#*%}
    n=$((n + 1))
    # shellcheck disable=SC2086
    $PY grep "$f" "$START" "$p" $extra >"$T/want$n" || die "oracle $n"
    [ -s "$T/want$n" ] || die "spec $n: the oracle selected nothing"
    if [ "$where" = local ]; then
      # shellcheck disable=SC2086
      run "$where$n" dgrep --plain --cfg none --multiline "$START" $extra --grep "$p" "$f"
    else
      # shellcheck disable=SC2086
      run "$where$n" dgrep --plain "${SERVER_CLIENT_FLAGS[@]}" --multiline "$START" $extra --grep "$p" --files "$f"
    fi
    expect_rc "$where$n" 0
    expect_bytes "$where '$p' $extra" "$OUT" "$T/want$n"
  done
}

case $mode in
grep)
  gen "$IN/app.log" 40000
  check_specs local "$IN/app.log"
  # dcat prints every record: the file as it is.
  run cat dcat --plain --cfg none --multiline "$START" "$IN/app.log"
  expect_rc cat 0
  expect_bytes "dcat --multiline" "$OUT" "$IN/app.log"
  # A record's line number is its start line's; a continuation before the
  # first start line is a record of its own.
  printf '\tat first\n2024 ERROR a\n\tat x\n2024 INFO b\n2024 ERROR c\ntrace\n' >"$T/small.log"
  run num dgrep --noColor --cfg none --multiline '^2024' --grep ERROR "$T/small.log"
  expect_rc num 0
  printf 'REMOTE|%s|100|2|small.log|2024 ERROR a\n\tat x\nREMOTE|%s|100|5|small.log|2024 ERROR c\ntrace\n' \
    "$(hostname)" "$(hostname)" >"$T/num.want"
  expect_bytes "numbered records" "$OUT" "$T/num.want"
  run first dgrep --plain --cfg none --multiline '^2024' --grep 'at first' "$T/small.log"
  printf '\tat first\n' >"$T/first.want"
  expect_bytes "leading continuation" "$OUT" "$T/first.want"
  # Without --multiline the lines are lines.
  run lines dgrep --plain --cfg none --grep 'at x' "$T/small.log"
  printf '\tat x\n' >"$T/lines.want"
  expect_bytes "without --multiline" "$OUT" "$T/lines.want"
  run badre dgrep --plain --cfg none --multiline '^(' --grep x "$T/small.log"
  [ "$RC" -ne 0 ] || fail "an invalid --multiline pattern was accepted"
  ;;
server)
  . "$(dirname "$0")/server_lib.sh"
  gen "$IN/app.log" 40000
  server_setup
  server_start
  check_specs server "$IN/app.log"
  run cat dcat --plain "${SERVER_CLIENT_FLAGS[@]}" --multiline "$START" --files "$IN/app.log"
  expect_rc cat 0
  expect_bytes "dcat --multiline through dserver" "$OUT" "$IN/app.log"
  # Serverless and through the server: the same bytes, REMOTE lines included
  # but for the host name.
  run rl dgrep --noColor --cfg none --multiline "$START" --grep IOException "$IN/app.log"
  sed "s/^REMOTE|[^|]*|/REMOTE|H|/" "$OUT" >"$T/rl.norm"
  run rs dgrep "${SERVER_CLIENT_FLAGS[@]}" --multiline "$START" --grep IOException --files "$IN/app.log"
  expect_rc rs 0
  sed "s/^REMOTE|[^|]*|/REMOTE|H|/" "$OUT" >"$T/rs.norm"
  expect_bytes "REMOTE records serverless = through dserver" "$T/rs.norm" "$T/rl.norm"
  server_alive
  server_stop
  ;;
bound)
  # Records longer than the bound (--maxLineLength) are cut after their
  # last whole line that fits; the rest starts the next record; the cut
  # is reported.
  gen "$IN/app.log" 20000
  $PY grep "$IN/app.log" "$START" Handler --bound 400 >"$T/want" || die oracle
  run cut dgrep --plain --cfg none --maxLineLength 400 --multiline "$START" --grep Handler "$IN/app.log"
  expect_rc cut 0
  expect_bytes "records cut at 400 bytes" "$OUT" "$T/want"
  expect_contains cut "$ERR" "multi-line records longer than 400 bytes, cut into more records"
  ;;
follow)
  need_bin dtail
  F=$IN/follow.log
  printf '2024 INFO before the tail\n' >"$F"
  BG_TIMEOUT=30 bg_start dtail --plain --cfg none --multiline '^2024' --grep ERROR "$F"
  wait_following "$BG_PID" "$F"
  # A record written in pieces is printed whole: when the next start line
  # comes, or, for the last, after the idle time (500 ms).
  printf '2024 ERROR one\n\tat a\n' >>"$F"
  sleep 0.3
  printf '\tat b\n2024 INFO two\n2024 ERROR three\n\tat c\n' >>"$F"
  wait_out "at c" 15
  bg_stop TERM 10
  printf '2024 ERROR one\n\tat a\n\tat b\n2024 ERROR three\n\tat c\n' >"$T/follow.want"
  expect_bytes "followed records" "$OUT" "$T/follow.want"
  ;;
*) die "unknown mode $mode" ;;
esac
finish
