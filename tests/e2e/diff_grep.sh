# Differential tests: `dgrep --plain --grep P F` must print exactly what
# `grep -E P F` prints (or `grep -P` for PCRE-only syntax that RE2 shares),
# for patterns where the dialects agree. `--invert` is compared with grep -v.
# Usage: bash diff_grep.sh CASE
. "$(dirname "$0")/lib.sh"
case=${1:?case}
need_bin dgrep
C=$SRVLOG
need_input "$M" "$C"

tricky=$T/tricky.log
{
  printf 'plain line\n\n'
  printf 'crlf one\r\ncrlf two\r\n'
  printf 'caf\303\251 au lait\n'
  printf '\377\376 raw bytes\n'
  printf 'tab\tseparated\tvalues\n'
  printf '   leading spaces\n\n\n'
  awk 'BEGIN { s = ""; for (i = 0; i < 20000; i++) s = s "abcde"; print s "XYZ"; print "XYZ" s }'
  printf 'ERROR at the end\n'
  printf 'last line without newline XYZ'
} >"$tricky"

inv=0; dialect=E
case $case in
  m_literal)      f=$M; p='1002-0719' ;;
  m_class)        f=$M; p='lifetimeConnections=[0-3]' ;;
  m_alternation)  f=$M; p='currentConnections=(0|1)\|lifetime' ;;
  m_bound)        f=$M; p='8m[0-9]{2}s' ;;
  m_dotstar)      f=$M; p='INFO.*stats\.go:56.*=6' ;;
  m_caret)        f=$M; p='^INFO\|1002-07114[3-5]' ;;
  m_all)          f=$M; p='.*' ;;
  m_none)         f=$M; p='^WARN' ;;
  m_invert)       f=$M; p='currentConnections=0'; inv=1 ;;
  m_invert_regex) f=$M; p='=[0-2]$'; inv=1 ;;
  colors_levels)  f=$C; p='^(FATAL|ERROR|WARN)\|' ;;
  colors_literal) f=$C; p='Creating server' ;;
  colors_lower)   f=$C; p='error' ;;
  colors_invert)  f=$C; p='^(INFO|DEBUG)'; inv=1 ;;
  tricky_empty)   f=$tricky; p='^$' ;;
  tricky_utf8)    f=$tricky; p='caf. au' ;;
  tricky_raw)     f=$tricky; p='^.. raw' ;;
  tricky_crlf)    f=$tricky; p='two.$' ;;
  tricky_spaces)  f=$tricky; p='^ +lead' ;;
  tricky_long_end)   f=$tricky; p='eXYZ$' ;;
  tricky_long_start) f=$tricky; p='^XYZa' ;;
  tricky_last)    f=$tricky; p='XYZ$' ;;
  tricky_invert)  f=$tricky; p='[a-z]'; inv=1 ;;
  pcre_digits)    f=$M; p='\d{4}-\d{5}9\|'; dialect=P ;;
  pcre_word)      f=$C; p='\bserver\b'; dialect=P ;;
  pcre_caseless)  f=$C; p='(?i)creating SERVER'; dialect=P ;;
  pcre_nongreedy) f=$C; p='^INFO\|.*?\|Starting'; dialect=P ;;
  *) die "unknown case $case" ;;
esac
need_input "$f"

gargs=(-a "-$dialect")
dargs=()
if [ "$inv" -eq 1 ]; then gargs+=(-v); dargs+=(--invert); fi
grep "${gargs[@]}" -- "$p" "$f" >"$T/exp"
grc=$?
[ "$grc" -le 1 ] || die "grep ${gargs[*]} '$p' failed ($grc)"
# A final line without newline: dgrep adds one, so does grep.
run dgrep dgrep --plain --cfg none "${dargs[@]}" --grep "$p" "$f"
expect_rc "dgrep ${dargs[*]} '$p'" 0
expect_bytes "dgrep ${dargs[*]} '$p' vs grep ${gargs[*]}" "$OUT" "$T/exp"
expect_empty "stderr" "$ERR"
finish
