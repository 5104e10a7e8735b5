# DTail's TestDGrepLiteralPatterns, TestDGrepRegexPatterns and
# TestDGrepMixedPatterns (reference 7.2): `dgrep --plain --cfg none --grep P F`
# on small generated logs, counting non-empty output lines. The counts are
# cross-checked with `grep -E -c` (the dialects agree on these patterns), and
# the output must equal grep's output byte for byte.
# Usage: bash patterns.sh literal|regex|mixed CASE
. "$(dirname "$0")/lib.sh"
group=${1:?group}; case=${2:?case}
need_bin dgrep

write_literal_log() {
  cat <<'DATA'
2025-07-02 10:00:00 ERROR Database connection failed
2025-07-02 10:00:01 WARNING High memory usage detected
2025-07-02 10:00:02 INFO Application started successfully
2025-07-02 10:00:03 ERROR File not found: config.yaml
2025-07-02 10:00:04 DEBUG Processing request ID 12345
2025-07-02 10:00:05 ERROR Network timeout occurred
2025-07-02 10:00:06 WARNING Disk space running low
2025-07-02 10:00:07 INFO User logged in: john.doe@example.com
2025-07-02 10:00:08 ERROR Invalid input data
2025-07-02 10:00:09 CRITICAL System shutdown initiated
DATA
}

write_regex_log() {
  cat <<'DATA'
2025-07-02 10:00:00 ERROR Database connection failed on server db01
2025-07-02 10:00:01 WARNING High memory usage: 85%
2025-07-02 10:00:02 INFO Application v1.2.3 started
2025-07-02 10:00:03 ERROR File not found: /var/log/app.log
2025-07-02 10:00:04 DEBUG Request from 192.168.1.100
2025-07-02 10:00:05 ERROR Network timeout after 30s
2025-07-02 10:00:06 WARNING Disk usage: 90%
2025-07-02 10:00:07 INFO User 'admin' logged in from 10.0.0.1
2025-07-02 10:00:08 ERROR Parse error in line 42
2025-07-02 10:00:09 CRITICAL Emergency shutdown
2025-07-02 10:00:10 DEBUG Request from 192.168.1.101
2025-07-02 10:00:11 INFO Processing batch job #12345
2025-07-02 10:00:12 ERROR Connection reset by peer
DATA
}

write_mixed_log() {
  cat <<'DATA'
ERROR: System failure
WARNING: Low memory
ERROR: Disk full
INFO: Process started
ERROR: Network down
DATA
}

case $group:$case in
  literal:ERROR)            p='ERROR'; n=4 ;;
  literal:WARNING)          p='WARNING'; n=2 ;;
  literal:with_spaces)      p='File not found'; n=1 ;;
  literal:with_numbers)     p='ID 12345'; n=1 ;;
  literal:email)            p='john.doe@example.com'; n=1 ;;
  literal:not_found)        p='NOTFOUND'; n=0 ;;
  regex:char_class)         p='v1.2.[0-9]'; n=1 ;;
  regex:alternation)        p='(ERROR|CRITICAL)'; n=6 ;;
  regex:wildcard)           p='ERROR.*failed'; n=1 ;;
  regex:ip_address)         p='[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+'; n=3 ;;
  regex:percentage)         p='[0-9]+%'; n=2 ;;
  regex:anchored)           p='^2025-07-02 10:00:0[0-5]'; n=6 ;;
  regex:optional)           p='errors?'; n=1 ;;
  regex:plus)               p='0+1'; n=3 ;;
  mixed:ERROR)              p='ERROR'; n=3 ;;
  mixed:ERROR_full)         p='ERROR.*full'; n=1 ;;
  mixed:WARNING)            p='WARNING'; n=1 ;;
  mixed:alternation)        p='(ERROR|WARNING)'; n=4 ;;
  mixed:process_started)    p='Process started'; n=1 ;;
  mixed:anchor_INFO)        p='^INFO:'; n=1 ;;
  *) die "unknown case $group:$case" ;;
esac

f=$T/${group}_test_data.log
"write_${group}_log" >"$f"
need_input "$f"

# The reference count must agree with GNU grep, or the table is wrong.
gn=$(grep -E -c -- "$p" "$f")
[ "$gn" -eq "$n" ] || die "table error: grep -E -c '$p' gives $gn, table says $n"
grep -E -- "$p" "$f" >"$T/exp"

run dgrep dgrep --plain --cfg none --grep "$p" "$f"
expect_rc "pattern '$p'" 0
got=$(grep -c . "$OUT")
[ "$got" -eq "$n" ] || fail "pattern '$p': $got non-empty lines, want $n"
expect_bytes "pattern '$p' (same as grep -E)" "$OUT" "$T/exp"
expect_empty "pattern '$p' stderr" "$ERR"
finish
