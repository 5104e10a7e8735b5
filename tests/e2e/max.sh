# --max with DTail's semantics (reference 4.4).
# Usage: bash max.sh max3|after|before|per_file
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dgrep

case $mode in
  max3)
    # TestDGrepMaxCountNoEOFError: 20 lines `INFO line N`, --max 3.
    for i in $(seq 0 19); do echo "INFO line $i"; done >"$T/in.log"
    printf 'INFO line 0\nINFO line 1\nINFO line 2\n' >"$T/exp"
    run max3 dgrep --plain --cfg none --logLevel error --grep INFO --max 3 "$T/in.log"
    expect_rc max3 0
    expect_bytes "--max 3" "$OUT" "$T/exp"
    expect_empty "--max 3 stderr" "$ERR"
    # --max larger than the number of matches: all of them.
    run max50 dgrep --plain --cfg none --grep INFO --max 50 "$T/in.log"
    expect_rc max50 0
    expect_bytes "--max 50" "$OUT" "$T/in.log"
    # With a regex instead of a literal.
    printf 'INFO line 1\nINFO line 3\n' >"$T/exp2"
    run max2re dgrep --plain --cfg none --grep 'line [13579]' --max 2 "$T/in.log"
    expect_rc max2re 0
    expect_bytes "--max 2 regex" "$OUT" "$T/exp2"
    ;;
  after)
    # When max is reached with after > 0, the remaining after-context is
    # printed and the next matching line stops reading.
    printf 'm 1\nx 1\nx 2\nx 3\nm 2\nx 4\nm 3\n' >"$T/in.log"
    printf 'm 1\nx 1\nx 2\n' >"$T/exp1"
    run a1 dgrep --plain --cfg none --grep '^m' --max 1 --after 2 "$T/in.log"
    expect_rc a1 0
    expect_bytes "--max 1 --after 2" "$OUT" "$T/exp1"
    printf 'm 1\nx 1\n' >"$T/in2.log"; printf 'm 2\nx 2\n' >>"$T/in2.log"
    printf 'm 1\nx 1\n' >"$T/exp2"
    # The after window is cut by the next match once max is reached.
    run a2 dgrep --plain --cfg none --grep '^m' --max 1 --after 3 "$T/in2.log"
    expect_rc a2 0
    expect_bytes "--max 1 --after 3 (next match stops)" "$OUT" "$T/exp2"
    printf 'm 1\nx 1\nx 2\nx 3\nm 2\nx 4\n' >"$T/exp3"
    run a3 dgrep --plain --cfg none --grep '^m' --max 2 --after 5 "$T/in.log"
    expect_rc a3 0
    expect_bytes "--max 2 --after 5" "$OUT" "$T/exp3"
    ;;
  before)
    # --max with --before: before-context is printed with each match.
    printf 'a\nb\nm 1\nc\nd\ne\nm 2\nf\nm 3\n' >"$T/in.log"
    printf 'a\nb\nm 1\nd\ne\nm 2\n' >"$T/exp"
    run b1 dgrep --plain --cfg none --grep '^m' --max 2 --before 2 "$T/in.log"
    expect_rc b1 0
    expect_bytes "--max 2 --before 2" "$OUT" "$T/exp"
    ;;
  per_file)
    # --max counts per file (each file has its own filter, as in DTail).
    for i in $(seq 0 9); do echo "INFO a $i"; done >"$T/a.log"
    for i in $(seq 0 9); do echo "INFO b $i"; done >"$T/b.log"
    printf 'INFO a 0\nINFO a 1\nINFO b 0\nINFO b 1\n' >"$T/exp"
    run pf dgrep --plain --cfg none --grep INFO --max 2 "$T/a.log" "$T/b.log"
    expect_rc pf 0
    expect_multiset "--max 2 over two files" "$OUT" "$T/exp"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
