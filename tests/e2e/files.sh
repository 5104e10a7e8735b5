# Inputs through --files: globs, comma lists (trimmed), several globs.
# Usage: bash files.sh glob|glob_dirs|comma_trim|glob_nomatch
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dcat dgrep
need_input "$LINES_TXT" "$CRLF_TXT" "$M"

d=$T/logs
mkdir -p "$d"
cp "$LINES_TXT" "$d/a.log"
cp "$CRLF_TXT" "$d/b.log"
cp "$M" "$d/c.txt"

case $mode in
  glob)
    cat "$d/a.log" "$d/b.log" >"$T/exp"
    run glob dcat --plain --cfg none --files "$d/*.log"
    expect_rc glob 0
    expect_multiset "--files DIR/*.log" "$OUT" "$T/exp"
    # A glob given positionally (quoted, so the shell does not expand it).
    run glob_pos dcat --plain --cfg none "$d/*.log"
    expect_rc glob_pos 0
    expect_multiset "positional DIR/*.log" "$OUT" "$T/exp"
    # Source names in the REMOTE form are the files' basenames.
    DTAIL_HOSTNAME_OVERRIDE=h run glob_fmt dcat --cfg none --noColor --files "$d/*.log"
    expect_rc glob_fmt 0
    { awk '{print "REMOTE|h|100|" NR "|a.log|" $0}' "$d/a.log"
      awk '{print "REMOTE|h|100|" NR "|b.log|" $0}' "$d/b.log"; } >"$T/fmt.exp"
    expect_multiset "REMOTE form of DIR/*.log" "$OUT" "$T/fmt.exp"
    # dgrep over a glob.
    cat "$d/a.log" "$d/b.log" "$d/c.txt" | grep -E '^(1|2) ' >"$T/g.exp"
    [ -s "$T/g.exp" ] || die "no expected lines"
    run glob_grep dgrep --plain --cfg none --grep '^(1|2) ' --files "$d/*"
    expect_rc glob_grep 0
    expect_multiset "dgrep --files DIR/*" "$OUT" "$T/g.exp"
    ;;
  glob_dirs)
    mkdir -p "$T/srv/web1" "$T/srv/web2" "$T/srv/db"
    cp "$LINES_TXT" "$T/srv/web1/app.log"
    cp "$CRLF_TXT" "$T/srv/web2/app.log"
    cp "$M" "$T/srv/db/other.log"
    cat "$LINES_TXT" "$CRLF_TXT" >"$T/exp"
    run gd dcat --plain --cfg none --files "$T/srv/*/app.log"
    expect_rc gd 0
    expect_multiset "--files DIR/*/app.log" "$OUT" "$T/exp"
    ;;
  comma_trim)
    cat "$d/a.log" "$d/b.log" "$d/c.txt" >"$T/exp"
    run ct dcat --plain --cfg none --files "$d/a.log, $d/b.log , $d/c.txt"
    expect_rc ct 0
    expect_multiset "--files 'a, b , c' (trimmed)" "$OUT" "$T/exp"
    expect_empty "comma_trim stderr" "$ERR"
    # A glob and a plain path in one list.
    cat "$d/a.log" "$d/b.log" "$d/c.txt" >"$T/exp2"
    run ct2 dcat --plain --cfg none --files "$d/*.log,$d/c.txt"
    expect_rc ct2 0
    expect_multiset "--files 'DIR/*.log,DIR/c.txt'" "$OUT" "$T/exp2"
    ;;
  glob_nomatch)
    # A glob matching nothing is an input that cannot be read.
    run nm dcat --plain --cfg none --files "$d/*.nomatch,$d/a.log"
    expect_rc "glob without match" 1
    expect_bytes "glob without match: other file printed" "$OUT" "$d/a.log"
    expect_contains "glob without match: stderr names it" "$ERR" "*.nomatch"
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
