# 20000 files through one glob: all are read (no file-descriptor leak) and
# the run stays well within the time bound.
. "$(dirname "$0")/lib.sh"
need_bin dcat
d=$T/many
mkdir "$d"
(cd "$d" && for i in $(seq 1 20000); do echo "file $i" >"f$i.log"; done) || die "cannot create files"
seq 1 20000 | sed 's/^/file /' >"$T/exp"
run many dcat --plain --cfg none --files "$d/*.log"
expect_rc many 0
expect_multiset "20000 files via a glob" "$OUT" "$T/exp"
expect_empty "stderr" "$ERR"
finish
