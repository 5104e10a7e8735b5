# What an outfile does to what is already at its path (exec/sink/outpath.h,
# docs/sqlite-export.md "Where the file goes"): a symbolic link is written
# through (the link stays, its target gets the result), a dangling one gets
# its target created; a FIFO, a directory or a device node is refused with
# an error naming the path and is left as it was; `outfile -` is CSV on
# stdout; a failed outfile leaves no temporary and no .query behind. For
# dmap serverless, dtail --query, and dmap and dtail through a dserver.
# Only nodes the test makes itself are used (mkfifo, mknod in $T as root).
# Usage: bash outfile_dest.sh link_csv|link_sqlite|dangling|fifo|dir|device|
#                             stdout|fail|dtail|remote
. "$(dirname "$0")/lib.sh"
mode=${1:?mode}
need_bin dmap
need_input "$M"

Q='from STATS select count($line),last($time),max($goroutines) group by $hostname'
stats_facts
printf 'count($line),last($time),max($goroutines)\n%s,%s,%s\n' "$M_N" "$M_LAST_TIME" "$M_MAX_GOR" >"$T/want.csv"

# no_leftovers LABEL DIR KEEP...: DIR holds only the names KEEP (and the
# runs' .out/.err): no temporary (.NAME.XXXXXX) and no stray .query.
no_leftovers() {
  local label=$1 dir=$2 left
  shift 2
  left=$(cd "$dir" && ls -A | grep -v -e '\.out$' -e '\.err$' -e '^want\.csv$' |
           grep -vxF "$(printf '%s\n' "$@")")
  [ -z "$left" ] || fail "$label: files left behind in $dir: $(echo $left)"
}

# is_link LABEL PATH TARGET: PATH is still a symbolic link to TARGET.
is_link() {
  [ -L "$2" ] || { fail "$1: $2 is no longer a symbolic link"; return; }
  [ "$(readlink "$2")" = "$3" ] || fail "$1: $2 now points to $(readlink "$2"), want $3"
}

# refused LABEL PATH KIND [append]: dmap with outfile PATH fails at once
# (exit 1, PATH and KIND in the error) and PATH is still of that KIND.
refused() {
  local label=$1 path=$2 kind=$3 how=${4:-}
  run "$label" dmap --cfg none --query "$Q outfile ${how:+$how }$path" "$M"
  expect_rc "$label" 1
  expect_contains "$label: error names the path" "$ERR" "outfile $path:"
  expect_contains "$label: error says what is there" "$ERR" "$kind"
}

sq() { timeout 20 sqlite3 -batch -list "$1" "$2"; }

case $mode in
  link_csv)
    # A chain of links, one relative to a link in another directory: the
    # target is written, beside it its .query; every link stays; the
    # target keeps its permission bits.
    mkdir "$T/data" "$T/links"
    echo old >"$T/data/t.csv"
    chmod 600 "$T/data/t.csv"
    ln -s ../data/t.csv "$T/links/l2.csv"
    ln -s links/l2.csv "$T/l1.csv"
    run w dmap --cfg none --query "$Q outfile $T/l1.csv" "$M"
    expect_rc w 0
    is_link "first link" "$T/l1.csv" links/l2.csv
    is_link "second link" "$T/links/l2.csv" ../data/t.csv
    expect_bytes "target" "$T/data/t.csv" "$T/want.csv"
    [ "$(stat -c %a "$T/data/t.csv")" = 600 ] || fail "the target's mode became $(stat -c %a "$T/data/t.csv")"
    [ "$(cat "$T/data/t.csv.query")" = "$Q outfile $T/l1.csv" ] || fail "no .query beside the target"
    no_leftovers "links" "$T/links" l2.csv
    no_leftovers "top" "$T" data links l1.csv w.out w.err
    no_leftovers "data" "$T/data" t.csv t.csv.query
    # Append through the link: rows added to the target, no header again.
    run a dmap --cfg none --query "$Q outfile append $T/l1.csv" "$M"
    expect_rc a 0
    is_link "first link after append" "$T/l1.csv" links/l2.csv
    { cat "$T/want.csv"; tail -n 1 "$T/want.csv"; } >"$T/want2"
    expect_bytes "appended target" "$T/data/t.csv" "$T/want2"
    ;;
  link_sqlite)
    command -v sqlite3 >/dev/null || skip "the sqlite3 CLI is missing"
    mkdir "$T/db"
    run w0 dmap --cfg none --query "$Q outfile $T/db/r.sqlite" "$M"
    ln -s db/r.sqlite "$T/l.sqlite"
    run w dmap --cfg none --query "$Q outfile $T/l.sqlite" "$M"
    expect_rc w 0
    is_link "sqlite link" "$T/l.sqlite" db/r.sqlite
    got=$(sq "$T/db/r.sqlite" 'SELECT count(*), max("count($line)") FROM STATS')
    [ "$got" = "1|$M_N" ] || fail "target after write through the link: '$got', want 1|$M_N"
    run a dmap --cfg none --query "$Q outfile append $T/l.sqlite" "$M"
    expect_rc a 0
    is_link "sqlite link after append" "$T/l.sqlite" db/r.sqlite
    got=$(sq "$T/db/r.sqlite" 'SELECT group_concat(run_id) FROM queries')
    [ "$got" = "1,2" ] || fail "runs in the target after append: '$got', want 1,2"
    no_leftovers "sqlite dir" "$T/db" r.sqlite
    no_leftovers "sqlite top" "$T" db l.sqlite
    ;;
  dangling)
    # A link to nothing: its target is created (CSV and SQLite).
    mkdir "$T/d"
    ln -s d/new.csv "$T/l.csv"
    run w dmap --cfg none --query "$Q outfile $T/l.csv" "$M"
    expect_rc w 0
    is_link "dangling link" "$T/l.csv" d/new.csv
    expect_bytes "created target" "$T/d/new.csv" "$T/want.csv"
    [ "$(stat -c %a "$T/d/new.csv")" = 644 ] || fail "a new file got mode $(stat -c %a "$T/d/new.csv")"
    ln -s d/new.sqlite "$T/l.sqlite"
    run s dmap --cfg none --query "$Q outfile $T/l.sqlite" "$M"
    expect_rc s 0
    is_link "dangling sqlite link" "$T/l.sqlite" d/new.sqlite
    [ -f "$T/d/new.sqlite" ] && [ ! -L "$T/d/new.sqlite" ] || fail "the sqlite target was not created"
    no_leftovers "dangling" "$T/d" new.csv new.csv.query new.sqlite
    # A dangling link whose target's directory is missing: an error.
    ln -s nodir/x.csv "$T/bad.csv"
    run b dmap --cfg none --query "$Q outfile $T/bad.csv" "$M"
    expect_rc b 1
    expect_contains "missing directory named" "$ERR" "outfile $T/bad.csv:"
    is_link "bad link" "$T/bad.csv" nodir/x.csv
    # A loop of links: an error, not a hang.
    ln -s loop2 "$T/loop1"
    ln -s loop1 "$T/loop2"
    run lp dmap --cfg none --query "$Q outfile $T/loop1" "$M"
    expect_rc lp 1
    expect_contains "link loop" "$ERR" "outfile $T/loop1: more than 40 symbolic links"
    ;;
  fifo)
    # A FIFO nobody reads: writing it would block, replacing it would lose
    # it. Refused at once (run's bound catches a hang), left as it was,
    # whether named directly, through a link, appended to or as SQLite;
    # and a FIFO where the .query would go keeps the CSV from being made.
    mkdir "$T/f"
    mkfifo "$T/f/p" "$T/f/p.sqlite" "$T/f/x.csv.query"
    ln -s p "$T/f/lp"
    refused direct "$T/f/p" "is a FIFO"
    refused append "$T/f/p" "is a FIFO" append
    refused link "$T/f/lp" "$T/f/p is a FIFO"
    refused sqlite "$T/f/p.sqlite" "is a FIFO"
    refused sqlite_append "$T/f/p.sqlite" "is a FIFO" append
    refused query "$T/f/x.csv" "$T/f/x.csv.query is a FIFO"
    for p in p p.sqlite x.csv.query; do
      [ -p "$T/f/$p" ] || fail "$p is no longer a FIFO"
    done
    is_link "link to the FIFO" "$T/f/lp" p
    no_leftovers "fifo" "$T/f" p p.sqlite x.csv.query lp
    ;;
  dir)
    mkdir -p "$T/a.csv/inside" "$T/b.sqlite"
    refused csv "$T/a.csv" "is a directory"
    refused csv_append "$T/a.csv" "is a directory" append
    refused sqlite "$T/b.sqlite" "is a directory"
    ln -s a.csv "$T/la"
    refused link "$T/la" "$T/a.csv is a directory"
    [ -d "$T/a.csv/inside" ] && [ -z "$(ls -A "$T/b.sqlite")" ] || fail "a directory changed"
    [ "$(ls -A "$T/a.csv")" = inside ] || fail "a.csv holds $(ls -A "$T/a.csv")"
    no_leftovers "dir" "$T" a.csv b.sqlite la
    ;;
  device)
    # Device nodes only of our own making: mknod needs root.
    [ "$(id -u)" = 0 ] || skip "device: needs root for mknod (FIFO and directory cases run as any user)"
    mknod "$T/null" c 1 3 && mknod "$T/null.sqlite" c 1 3 || skip "device: mknod is not permitted here"
    refused chr "$T/null" "is a character device"
    refused chr_append "$T/null" "is a character device" append
    refused chr_sqlite "$T/null.sqlite" "is a character device"
    [ -c "$T/null" ] && [ -c "$T/null.sqlite" ] || fail "a device node was replaced"
    no_leftovers "device" "$T" null null.sqlite
    ;;
  stdout)
    # outfile -: the CSV on stdout, no file named - or -.query, in memory
    # and from a spilled result (rows streamed in chunks).
    mkdir "$T/cwd"
    cd "$T/cwd" || die "cd"
    run o dmap --cfg none --query "$Q outfile -" "$M"
    expect_rc o 0
    expect_bytes "CSV on stdout" "$OUT" "$T/want.csv"
    run oa dmap --cfg none --query "$Q outfile append -" "$M"
    expect_rc oa 0
    expect_bytes "CSV on stdout (append)" "$OUT" "$T/want.csv"
    awk 'BEGIN { for (i = 0; i < 60000; i++) printf "id=g%d|v=%d\n", i, i % 7 }' >"$T/kv.log"
    KQ='select count($line),sum(v),id group by id order by id logformat generickv'
    run big dmap --cfg none --query "$KQ outfile $T/big.csv" "$T/kv.log"
    run sp env TMPDIR="$T/cwd" "$DTAIL_BIN/dmap" --cfg none --logLevel info --memory-limit 256K \
      --query "$KQ outfile -" "$T/kv.log"
    expect_rc sp 0
    grep -q 'INFO|spill|' "$ERR" || fail "spilled: nothing spilled under 256K"
    expect_bytes "spilled CSV on stdout" "$OUT" "$T/big.csv"
    [ -z "$(ls -A "$T/cwd")" ] || fail "files made in the working directory: $(ls -A "$T/cwd")"
    ;;
  fail)
    # In a directory that does not exist: nothing made, at once.
    run nd dmap --cfg none --query "$Q outfile $T/no/such/x.csv" "$M"
    expect_rc nd 1
    expect_contains "error names the path" "$ERR" "outfile $T/no/such/x.csv:"
    [ -e "$T/no" ] && fail "something was created: $(ls -R "$T/no")"
    # Failing while the rows are written (the file size limit; SIGXFSZ
    # ignored so the write fails with EFBIG): the old file and its .query
    # stay, no temporary and no new .query is left.
    mkdir "$T/w"
    awk 'BEGIN { for (i = 0; i < 20000; i++) printf "id=g%d|v=%d\n", i, i }' >"$T/kv.log"
    KQ='select count($line),id group by id logformat generickv'
    run_sh big "trap '' XFSZ; ulimit -f 64; exec '$DTAIL_BIN/dmap' --cfg none --query '$KQ outfile $T/w/new.csv' '$T/kv.log'"
    expect_rc big 1
    expect_contains "error names the path" "$ERR" "outfile $T/w/new.csv:"
    no_leftovers "failed new file" "$T/w"
    echo keep >"$T/w/old.csv"
    echo keepq >"$T/w/old.csv.query"
    run_sh big2 "trap '' XFSZ; ulimit -f 64; exec '$DTAIL_BIN/dmap' --cfg none --query '$KQ outfile $T/w/old.csv' '$T/kv.log'"
    expect_rc big2 1
    [ "$(cat "$T/w/old.csv")" = keep ] && [ "$(cat "$T/w/old.csv.query")" = keepq ] ||
      fail "a failed write changed the old file or its .query"
    no_leftovers "failed replacement" "$T/w" old.csv old.csv.query
    ;;
  dtail)
    # dtail --query rewrites the outfile every interval: through a link,
    # and a FIFO is refused before anything is followed.
    need_bin dtail
    : >"$T/q.log"
    mkdir "$T/d"
    ln -s d/q.csv "$T/q.csv"
    bg_start dtail --files "$T/q.log" --query "$Q interval 1 outfile $T/q.csv"
    wait_following "$BG_PID" "$T/q.log"
    cat "$M" >>"$T/q.log"
    poll 30 grep -qs "^$M_N," "$T/d/q.csv" || fail "no outfile with all $M_N records within 30 s"
    bg_stop TERM 30
    expect_rc "dtail after SIGTERM" 0
    is_link "dtail link" "$T/q.csv" d/q.csv
    expect_bytes "dtail target" "$T/d/q.csv" "$T/want.csv"
    no_leftovers "dtail" "$T/d" q.csv q.csv.query
    mkfifo "$T/p.csv"
    run df dtail --files "$T/q.log" --query "$Q interval 1 outfile $T/p.csv"
    expect_rc df 1
    expect_contains "dtail error names the path" "$ERR" "outfile $T/p.csv: is a FIFO"
    [ -p "$T/p.csv" ] || fail "dtail replaced the FIFO"
    ;;
  remote)
    # Through a dserver the client writes the outfile: the same rules.
    . "$(dirname "$0")/server_lib.sh"
    need_bin dserver
    server_setup
    mkdir -p "$T/in" "$T/out"
    chmod 755 "$T/in"
    cp "$M" "$T/in/m.log" && chmod 644 "$T/in/m.log" || die "cp"
    server_start
    ln -s out/r.csv "$T/r.csv"
    run r dmap "${SERVER_CLIENT_FLAGS[@]}" --query "$Q outfile $T/r.csv" --files "$T/in/m.log"
    expect_rc r 0
    is_link "remote link" "$T/r.csv" out/r.csv
    [ "$(wc -l <"$T/out/r.csv")" = 2 ] && grep -qxF "$(tail -n 1 "$T/want.csv")" "$T/out/r.csv" ||
      fail "remote target: $(cat "$T/out/r.csv")"
    mkfifo "$T/out/p.csv"
    run rf dmap "${SERVER_CLIENT_FLAGS[@]}" --query "$Q outfile $T/out/p.csv" --files "$T/in/m.log"
    expect_rc rf 1
    expect_contains "remote error names the path" "$ERR" "outfile $T/out/p.csv: is a FIFO"
    run tf dtail "${SERVER_CLIENT_FLAGS[@]}" --query "$Q interval 1 outfile $T/out/p.csv" --files "$T/in/m.log"
    expect_rc tf 1
    expect_contains "remote dtail error names the path" "$ERR" "outfile $T/out/p.csv: is a FIFO"
    [ -p "$T/out/p.csv" ] || fail "the FIFO was replaced"
    no_leftovers "remote" "$T/out" r.csv r.csv.query p.csv
    server_stop
    ;;
  *) die "unknown mode $mode" ;;
esac
finish
