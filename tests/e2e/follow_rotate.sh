# dtail following a file rotated faster than any real log is: logrotor
# (tests/support/logrotor.c) writes numbered lines at 50k lines/s and rotates
# every 20 ms, 50 times; follow_check.py checks dtail's output.
# Usage: bash follow_rotate.sh rename20|renamedel|regrow|copytrunc serverless|server
#   rename20   rename and create                every line once, in order
#   renamedel  as rename20, each rotated file deleted 50 ms later: lines of
#              a file deleted before dtail opened it may be lost, if dtail
#              says so
#   regrow     truncated, then at once written past the old size
#   copytrunc  copied to F.<k>, then truncated (logrotate copytruncate)
# For the truncations no line may be printed partial or garbled; lines the
# truncation destroyed unread may be lost, if dtail says so. copytrunc is
# stricter: dtail reads what it had not read from the copy when it finds
# it; the lines missing from a content must be its last ones, told by a
# notice's "after byte N" with N exactly where the lines shown end (or
# inside the first one missing when the notice says it dropped it): shown
# plus said lost is everything logrotor wrote, and the byte said is right.
# Lines the copy held but dtail did not find in time (a busy machine) are
# the figure in_copy_unshown.
# Two labelled checks, so that either can fail alone: "lines" (follow_check's
# counts) and "notices": per rotation a line naming the path with "rotated",
# per truncation one with "truncated" (truncations too close to be told
# apart may merge: at least one). Through a dserver the notices are server
# messages: stdout and stderr are searched.
# serverless: `dtail --plain --files F`; server: the same through one dserver
# on loopback (server_lib.sh), which is then the process that reads F.
. "$(dirname "$0")/lib.sh"
case_=${1:?case}
where=${2:?serverless|server}
need_bin dtail logrotor
command -v python3 >/dev/null || skip "python3 is not installed"
CHECK=$(dirname "$0")/../support/follow_check.py
[ -f "$CHECK" ] || die "$CHECK is missing"

# checker_case LABEL MODE OUT ERR WANT_RC WANT_TEXT: follow_check.py over
# OUT and ERR exits WANT_RC and prints WANT_TEXT (the checker's own test).
checker_case() {
  local got
  E2E_RUNS=$((E2E_RUNS + 1))
  got=$(python3 "$CHECK" --mode "$2" --path "$F" --summary "$T/summary" \
    --ranges "$T/ranges" --out "$3" --err "$4" 2>&1)
  local rc=$?
  if [ "$rc" -ne "$5" ] || ! grep -qF -- "$6" <<<"$got"; then
    fail "checker $1: exit $rc, want $5 with '$6'"
    sed 's/^/  | /' <<<"$got" >&2
  fi
}

# variant NAME AWK-RULES: $T/NAME, the perfect output $T/good through the
# awk RULES (n: the line's number; a rule that prints or drops a line ends
# with next), the other lines as they are.
variant() {
  awk '{ n = substr($0, 5, 9) + 0 } '"$2"' { print }' "$T/good" >"$T/$1"
}

ROTATIONS=50
case $case_ in
  checker)
    # follow_check.py itself, on outputs made from the rotated files (no
    # dtail): a perfect follower passes, and each kind of damage is told.
    IN=$T/in
    mkdir -p "$IN" || die "mkdir $IN"
    F=$IN/app.log
    echo "an old line, before dtail started" >"$F"
    run rotor logrotor --file "$F" --ranges "$T/ranges" --mode rename --rate 1000000 \
      --rotations 4 --lines-per-rotation 1000
    expect_rc rotor 0
    cp "$OUT" "$T/summary"
    expect_contains rotor "$T/summary" "written=5000 rotations=4 first=1 last=5000"
    { tail -n +2 "$F.1"; cat "$F.2" "$F.3" "$F.4" "$F"; } >"$T/good"
    : >"$T/none"
    for k in 1 2 3 4; do echo "dtail: $F: file rotated; following the new file"; done >"$T/rot"
    { cat "$T/rot"; echo "dtail: $F: 1000 lines not read: deleted before it was opened"; } >"$T/rotloss"
    echo "dtail: $F: file truncated" >"$T/trunc"
    { cat "$T/trunc"; echo "dtail: $F: file truncated; 500 lines lost"; } >"$T/truncloss"
    for k in 1 2 3 4 5; do echo "dtail: $F: file truncated"; done >"$T/trunc5"
    checker_case perfect rename "$T/good" "$T/rot" 0 "printed=5000 missing=0"
    checker_case "notices on stdout" rename <(cat "$T/rot" "$T/good") "$T/none" 0 "notices_rotated=4"
    checker_case "no notices" rename "$T/good" "$T/none" 2 "NOTICES: FAIL"
    checker_case "a notice too many" rename "$T/good" <(cat "$T/rot" "$T/trunc" | sed 's/truncated/rotated/') 2 "got 5"
    variant cut 'n == 1500 { print substr($0, 1, 30); next }'
    checker_case "a cut line" rename "$T/cut" "$T/rot" 1 "missing=1 allowed_lost=0 duplicated=0 out_of_order=0 partial=1"
    variant glued 'n == 1500 { h = substr($0, 1, 20); next } n == 1501 { print h substr($0, 21); next }'
    checker_case "two halves glued" rename "$T/glued" "$T/rot" 1 "missing=2 allowed_lost=0 duplicated=0 out_of_order=0 partial=1"
    checker_case "no newline at the end" rename <(head -c -1 "$T/good") "$T/rot" 1 "missing=1 allowed_lost=0 duplicated=0 out_of_order=0 partial=1"
    variant dup 'n == 2000 { d = $0 } n == 3000 { print; print d; next }'
    checker_case "a line twice" rename "$T/dup" "$T/rot" 1 "missing=0 allowed_lost=0 duplicated=1 out_of_order=1"
    checker_case "the old line" rename <(cat "$F.1" "$F.2" "$F.3" "$F.4" "$F") "$T/rot" 1 "partial=1"
    variant nofile3 'n >= 2001 && n <= 3000 { next }'
    checker_case "a file lost, no loss said" rename-delete "$T/nofile3" "$T/rot" 1 "missing=1000 allowed_lost=0"
    checker_case "a file lost, counted" rename-delete "$T/nofile3" "$T/rot" 1 "rotated_files_unread=1 notices_rotated=4 notices_truncated=0 loss_reports=0 lost_to_rotor=1000"
    checker_case "a file lost, loss said" rename-delete "$T/nofile3" "$T/rotloss" 0 "missing=0 allowed_lost=1000"
    checker_case "a file lost under rename" rename "$T/nofile3" "$T/rotloss" 1 "missing=1000 allowed_lost=0"
    variant halffile3 'n >= 2501 && n <= 3000 { next }'
    checker_case "half a deleted file lost" rename-delete "$T/halffile3" "$T/rotloss" 1 "missing=500 allowed_lost=0"
    checker_case "truncated, unread end lost, said" truncate-regrow "$T/halffile3" "$T/truncloss" 0 "missing=0 allowed_lost=500"
    checker_case "truncated, unread end lost, not said" copytruncate "$T/halffile3" "$T/trunc" 1 "missing=500 allowed_lost=0"
    variant headfile3 'n >= 2001 && n <= 2500 { next }'
    checker_case "truncated, start lost" copytruncate "$T/headfile3" "$T/truncloss" 1 "missing=500 allowed_lost=0"
    variant lastfile 'n == 4500 { next }'
    checker_case "a line of the file at the path" truncate-regrow "$T/lastfile" "$T/truncloss" 1 "missing=1 allowed_lost=0"
    checker_case "truncated, no notice" truncate-regrow "$T/good" "$T/none" 2 "NOTICES: FAIL"
    checker_case "more truncations told than done" truncate-regrow "$T/good" "$T/trunc5" 2 "got 5"
    checker_case "truncated, one notice" copytruncate "$T/good" "$T/trunc" 0 "notices_truncated=1"
    # The strict copytruncate check: the same spans as copies of which the
    # last 100 lines were written after the copy (in no file).
    awk '{ k = $1; c = $3 - 100; print $1, $2, $3, c, (c - $2 + 1) * 60 + (k == 1 ? 34 : 0) }' \
      "$T/ranges" >"$T/ranges5"
    said() {   # the notices, with byte N of each truncation: copy's size + $1; $2 before it
      awk -v F="$F" -v d="$1" -v x="${2:-}" '{ print "dtail: " F ": file truncated; what it held " \
        "after byte 1 is read from its copy app.log." $1 x "; anything written after byte " \
        ($5 + d) " before the truncation was lost" }' "$T/ranges5"
    }
    said 0 >"$T/said"
    said -6000 >"$T/said_early"
    said 16 "; its unfinished last line was dropped" >"$T/said_in_line"
    said 16 >"$T/said_in_line_untold"
    variant good5 '(n % 1000) > 900 || n % 1000 == 0 { if (n <= 4000) next }'
    variant old5 '(n % 1000) > 800 || n % 1000 == 0 { if (n <= 4000) next }'
    variant gap5 '(n % 1000) > 900 || n % 1000 == 0 || (n % 1000 >= 850 && n % 1000 < 860) { if (n <= 4000) next }'
    variant nogen2 '(n % 1000) > 900 || n % 1000 == 0 || (n > 1000 && n <= 2000) { if (n <= 4000) next }'
    strict_case() {   # checker_case with the copy columns
      local keep=$T/ranges.keep
      cp "$T/ranges" "$keep" && cp "$T/ranges5" "$T/ranges"
      checker_case "$@"
      cp "$keep" "$T/ranges"
    }
    strict_case "copy read, the rest said lost" copytruncate "$T/good5" "$T/said" 0 \
      "missing=0 allowed_lost=400 duplicated=0 out_of_order=0 partial=0"
    strict_case "copy read, figures" copytruncate "$T/good5" "$T/said" 0 \
      "in_copy_unshown=0 rotor_destroyed=400"
    # Not read from the copy, but said lost from where it was read: honest
    # (a busy follower misses copies); counted as in_copy_unshown.
    strict_case "copy not read, loss said at the last read" copytruncate "$T/old5" "$T/said_early" 0 \
      "missing=0 allowed_lost=800"
    strict_case "copy not read, figures" copytruncate "$T/old5" "$T/said_early" 0 \
      "in_copy_unshown=400 rotor_destroyed=400"
    strict_case "copy not read, copy's size said" copytruncate "$T/old5" "$T/said" 1 \
      "missing=800 allowed_lost=0"
    strict_case "the rest not said lost" copytruncate "$T/good5" "$T/trunc" 1 "missing=400 allowed_lost=0"
    # The byte said is where the lines shown end, exactly: a loss said
    # from earlier overstates it (a wrong count)...
    strict_case "loss said from too early" copytruncate "$T/good5" "$T/said_early" 1 \
      "missing=400 allowed_lost=0"
    # ... but a line read in part and dropped at the truncation is told
    # so, with the byte inside it.
    strict_case "unfinished line dropped, byte inside it" copytruncate "$T/good5" "$T/said_in_line" 0 \
      "missing=0 allowed_lost=400"
    strict_case "byte inside a line, no line said dropped" copytruncate "$T/good5" \
      "$T/said_in_line_untold" 1 "missing=400 allowed_lost=0"
    strict_case "a gap before lines shown" copytruncate "$T/gap5" "$T/said" 1 \
      "missing=40 allowed_lost=400"
    strict_case "a content lost with its copy there" copytruncate "$T/nogen2" "$T/said" 1 \
      "missing=1000 allowed_lost=300 duplicated=0 out_of_order=0 partial=0 rotated_files_unread=1"
    finish
    ;;
  rename20) ROTOR_ARGS=(--mode rename) ;;
  renamedel) ROTOR_ARGS=(--mode rename-delete --delete-after-ms 50) ;;
  regrow) ROTOR_ARGS=(--mode truncate-regrow) ;;
  # A copy of the whole file every 250 ms (logrotate's copytruncate runs
  # daily); FOLLOW_ROTATE_COPY_MS sets another period, to load the
  # follower harder (tests/load.sh passes the environment on).
  copytrunc) ROTOR_ARGS=(--mode copytruncate --period-ms "${FOLLOW_ROTATE_COPY_MS:-250}") ;;
  *) die "unknown case $case_" ;;
esac
# logrotor takes the last --period-ms given; ROTOR_ARGS[1] stays the mode.
ROTOR_ARGS=("${ROTOR_ARGS[@]:0:2}" --rate 50000 --period-ms 20 "${ROTOR_ARGS[@]:2}" --rotations "$ROTATIONS")

IN=$T/in
mkdir -p "$IN" && chmod 755 "$IN" || die "mkdir $IN"
F=$IN/app.log
# Not empty: at offset 0 of an empty file, a follower that opened it and one
# that has gone to its end look the same (wait_following).
echo "an old line, before dtail started" >"$F"
chmod 644 "$F"

case $where in
  serverless)
    bg_start dtail --plain --files "$F"
    HOLDER=$BG_PID
    ;;
  server)
    . "$(dirname "$0")/server_lib.sh"
    server_setup
    server_start
    bg_start dtail --plain "${SERVER_CLIENT_FLAGS[@]}" --files "$F"
    HOLDER=$SERVER_CHILD
    ;;
  *) die "unknown place $where" ;;
esac

# lines_settled N: bg.out has N lines, or has not grown for 3 s (a follower
# that lost lines never reaches N); a bound of 20 s guards against a hang.
lines_settled() {
  local n last=-1 still=0 i
  for ((i = 0; i < 100; i++)); do
    n=$(wc -l <"$T/bg.out")
    [ "$n" -ge "$1" ] && return 0
    if [ "$n" -eq "$last" ]; then
      still=$((still + 1))
      [ "$still" -ge 15 ] && return 0
    else
      still=0 last=$n
    fi
    sleep 0.2
  done
  note "output still growing after 20 s ($n of $1 lines)"
}

if wait_following "$HOLDER" "$F"; then
  run rotor logrotor --file "$F" --ranges "$T/ranges" "${ROTOR_ARGS[@]}"
  expect_rc rotor 0
  cp "$OUT" "$T/summary"
  written=$(sed -n 's/^written=\([0-9]*\) .*/\1/p' "$T/summary")
  [ -n "$written" ] || die "logrotor printed no summary: $(cat "$T/summary")"
  lines_settled "$written"
  # A line read twice would come after the last one: give it a moment.
  sleep 0.5
fi
bg_stop TERM 10
expect_rc "dtail after SIGTERM" 0

if [ -s "$T/summary" ]; then
  python3 "$CHECK" --mode "${ROTOR_ARGS[1]}" --path "$F" --summary "$T/summary" \
    --ranges "$T/ranges" --out "$T/bg.out" --err "$T/bg.err" >"$T/check" 2>&1
  crc=$?
  note "$(head -n 1 "$T/check")"
  [ "$crc" -le 3 ] || die "follow_check.py failed: $(cat "$T/check")"
  [ $((crc & 1)) -eq 0 ] || fail "lines: $(grep '^LINES:' "$T/check")"
  [ $((crc & 2)) -eq 0 ] || fail "notices: $(grep '^NOTICES:' "$T/check")"
  if [ "$crc" -ne 0 ] && [ -s "$T/bg.err" ]; then
    echo "  --- dtail stderr (first 5 lines) ---" >&2
    head -n 5 "$T/bg.err" | cut -c1-200 | sed 's/^/  | /' >&2
  fi
fi
if [ "$where" = server ]; then
  server_alive
  server_stop
fi
finish
