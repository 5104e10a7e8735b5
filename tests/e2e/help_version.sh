# --help documents the flags and the exit codes; --version prints a line.
. "$(dirname "$0")/lib.sh"
need_bin dcat dgrep
for b in dcat dgrep; do
  run "${b}_help" "$b" --help
  expect_rc "$b --help" 0
  cat "$OUT" "$ERR" >"$T/${b}_help.all"
  expect_contains "$b --help" "$T/${b}_help.all" "--plain"
  expect_contains "$b --help" "$T/${b}_help.all" "--files"
  grep -qi 'exit' "$T/${b}_help.all" || fail "$b --help does not document the exit codes"
  run "${b}_version" "$b" --version
  expect_rc "$b --version" 0
  cat "$OUT" "$ERR" >"$T/${b}_version.all"
  expect_nonempty "$b --version" "$T/${b}_version.all"
done
grep -q -- '--grep' "$T/dgrep_help.all" || fail "dgrep --help does not list --grep"
grep -q -- '--regex' "$T/dgrep_help.all" || fail "dgrep --help does not list --regex"
finish
