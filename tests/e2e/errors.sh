# Error handling and exit codes:
#   1: some input could not be read (the others are still printed);
#   2: usage error or invalid regex.
# Usage: bash errors.sh missing|query_line_flags|directory|unreadable|invalid_regex|unknown_flag|missing_value
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep
good=$BLANK_TXT
need_input "$good" "$M"

case $mode in
  missing)
    miss=$T/no-such-file.log
    run missing1 dcat --plain --cfg none "$miss" "$good"
    expect_rc "missing first" 1
    expect_bytes "missing first: good file still printed" "$OUT" "$good"
    expect_contains "missing first: stderr names the file" "$ERR" no-such-file.log
    run missing2 dcat --plain --cfg none "$good" "$miss"
    expect_rc "missing last" 1
    expect_bytes "missing last: good file still printed" "$OUT" "$good"
    expect_contains "missing last: stderr names the file" "$ERR" no-such-file.log
    grep 1002-071947 "$M" >"$T/g.exp"
    run missing3 dgrep --plain --cfg none --grep 1002-071947 --files "$miss,$M"
    expect_rc "dgrep --files with a missing entry" 1
    expect_bytes "dgrep --files with a missing entry: output" "$OUT" "$T/g.exp"
    expect_contains "dgrep --files with a missing entry: stderr" "$ERR" no-such-file.log
    run missing4 dcat --plain --cfg none "$miss"
    expect_rc "only a missing file" 1
    expect_empty "only a missing file: stdout" "$OUT"
    expect_contains "only a missing file: stderr" "$ERR" no-such-file.log
    ;;
  query_line_flags)
    # dtail --query: a line flag would do nothing (the query picks the
    # lines), so it is refused, exit 2, naming the flag
    need_bin dtail
    for f in "--grep ERROR" "--regex x" "--invert" "-i" "--before 2" "--after 1" "--max 3"; do
      # shellcheck disable=SC2086
      run "q$f" dtail --cfg none --query 'from STATS select count($line)' $f "$good"
      expect_rc "dtail --query $f" 2
      expect_contains "dtail --query $f: names the flag" "$ERR" "has no effect with -query"
    done
    run qok dtail --cfg none --query 'from STATS select count($line)' --shutdownAfter 1 "$good"
    expect_rc "dtail --query alone" 0
    ;;
  directory)
    mkdir "$T/somedir"
    echo inside >"$T/somedir/x.log"
    run dir1 dcat --plain --cfg none "$T/somedir" "$good"
    expect_rc "directory" 1
    expect_bytes "directory: good file still printed" "$OUT" "$good"
    expect_contains "directory: stderr names it" "$ERR" somedir
    run dir2 dgrep --plain --cfg none --grep inside "$T/somedir"
    expect_rc "dgrep directory" 1
    expect_empty "dgrep directory: stdout" "$OUT"
    ;;
  unreadable)
    cp "$good" "$T/good.txt"
    echo secret >"$T/locked.log"
    chmod 000 "$T/locked.log"
    chmod 755 "$T"
    chmod 644 "$T/good.txt"
    if [ "$(id -u)" -eq 0 ]; then
      # root reads anything: drop to nobody.
      command -v setpriv >/dev/null || skip "running as root without setpriv"
      id nobody >/dev/null 2>&1 || skip "running as root and no user nobody"
      pre=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
      getent group nogroup >/dev/null || pre=(setpriv --reuid=nobody --regid=nobody --clear-groups --)
      "${pre[@]}" test -x "$DTAIL_BIN/dcat" || skip "$DTAIL_BIN/dcat not executable by nobody"
      "${pre[@]}" cat "$T/locked.log" >/dev/null 2>&1 && skip "nobody can read a mode-000 file"
    else
      pre=()
      cat "$T/locked.log" >/dev/null 2>&1 && skip "a mode-000 file is readable"
    fi
    run perm "${pre[@]}" "$DTAIL_BIN/dcat" --plain --cfg none "$T/locked.log" "$T/good.txt"
    expect_rc "unreadable" 1
    expect_bytes "unreadable: good file still printed" "$OUT" "$good"
    expect_contains "unreadable: stderr names it" "$ERR" locked.log
    ;;
  invalid_regex)
    run re1 dgrep --plain --cfg none --grep '(' "$M"
    expect_rc "--grep '('" 2
    expect_empty "--grep '(': stdout" "$OUT"
    expect_contains "--grep '(': stderr names the pattern" "$ERR" "("
    # A longer pattern: the message names it and pcre2's error offset (7).
    run re2 dgrep --plain --cfg none --grep 'foo(bar' "$M"
    expect_rc "--grep 'foo(bar'" 2
    expect_empty "--grep 'foo(bar': stdout" "$OUT"
    expect_contains "--grep 'foo(bar': stderr names the pattern" "$ERR" "foo(bar"
    grep -qw '7' "$ERR" || fail "--grep 'foo(bar': stderr does not give the offset 7: $(head -c 300 "$ERR")"
    run re3 dgrep --plain --cfg none --grep 'a[b' "$M"
    expect_rc "--grep 'a[b'" 2
    expect_contains "--grep 'a[b': stderr names the pattern" "$ERR" "a[b"
    ;;
  unknown_flag)
    run uf1 dcat --plain --cfg none --noSuchFlag "$good"
    expect_rc "dcat --noSuchFlag" 2
    expect_empty "dcat --noSuchFlag: stdout" "$OUT"
    expect_contains "dcat --noSuchFlag: stderr names it" "$ERR" noSuchFlag
    run uf2 dgrep --plain --cfg none --grep x --bogus "$M"
    expect_rc "dgrep --bogus" 2
    expect_empty "dgrep --bogus: stdout" "$OUT"
    expect_contains "dgrep --bogus: stderr names it" "$ERR" bogus
    # --grep is dgrep's; dcat does not know it? It is a dgrep-only flag.
    run uf3 dcat --plain --cfg none --grep x "$good"
    expect_rc "dcat --grep" 2
    ;;
  missing_value)
    run mv1 dgrep --plain --cfg none --grep
    expect_rc "dgrep --grep (no value)" 2
    expect_empty "no value: stdout" "$OUT"
    expect_nonempty "no value: stderr" "$ERR"
    run mv2 dgrep --plain --cfg none --grep x --before "$M"
    # --before takes a number: the file name is not one.
    expect_rc "dgrep --before FILE (not a number)" 2
    run mv3 dcat --plain --cfg none --maxLineLength
    expect_rc "dcat --maxLineLength (no value)" 2
    run mv4 dgrep --plain --cfg none --grep x --max abc "$M"
    expect_rc "dgrep --max abc" 2
    run mv5 dcat --plain --cfg none --logLevel bogus "$good"
    expect_rc "dcat --logLevel bogus" 2
    expect_empty "--logLevel bogus: stdout" "$OUT"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
