# --help documents the flags and the exit codes; --version prints a line.
. "$(dirname "$0")/lib.sh"
need_bin dcat dgrep dmap dtail dtailhealth dserver
# The protocol named is the one this build speaks (the C wire protocol
# c1), not DTail's 4.1.
for b in dcat dgrep dmap dtail dtailhealth dserver; do
  run "${b}_pversion" "$b" --version
  expect_rc "$b --version" 0
  grep -qx 'DTail [0-9.]*-c Protocol c[0-9][0-9]* Have a lot of fun!' "$OUT" ||
    fail "$b --version: '$(head -c 200 "$OUT")' does not name the protocol it speaks"
done
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
# Every client says how to see the data's control bytes raw on a terminal
# (docs/dcat-dgrep.md, Terminal safety).
for b in dcat dgrep dmap dtail dtailhealth; do
  run "${b}_help_raw" "$b" --help
  expect_rc "$b --help" 0
  expect_contains "$b --help" "$OUT" "--raw-terminal"
  run "${b}_raw_flag" "$b" --raw-terminal --version
  expect_rc "$b --raw-terminal --version" 0
done
grep -q -- '--grep' "$T/dgrep_help.all" || fail "dgrep --help does not list --grep"
grep -q -- '--regex' "$T/dgrep_help.all" || fail "dgrep --help does not list --regex"
finish
