#!/usr/bin/env python3
"""follow_check.py: checks what a follower (dtail) printed while logrotor
wrote and rotated the file it followed (tests/e2e/follow_rotate.sh).

  follow_check.py --mode MODE --path F --summary ROTOR_STDOUT
                  --ranges RANGES --out DTAIL_STDOUT --err DTAIL_STDERR

Every stdout line must be one of logrotor's lines, whole (the pattern and
the hash of its number), or a notice (below); anything else is `partial`.
The lines 1..written must each appear once (`duplicated` counts extra
copies) and in order (`out_of_order` counts the places where the number went
down). A line that is not there is `missing`, unless the rotor itself took
it away before the follower could read it and the follower said so: a
loss report (a line of stderr or a non-line of stdout with "not read",
"lost" or "deleted before") makes allowed
  rename-delete    every line of a deleted file of which no line was read
                   (a file held open can still be read after its unlink)
  truncate-regrow, copytruncate
                   the lines of a truncated content after the last one read
                   from it (the unread end the truncation destroyed)
Nothing is allowed for rename: every rotated file stays on disk.

copytruncate with logrotor's copy columns in RANGES (`k first last
copied_last copy_bytes`) is checked more strictly: the lines up to
copied_last are in the copy F.<k>, and a follower that reads the copy
shows them all; only the lines written between the copy and the
truncation (after byte copy_bytes of that content) are in no file. The
lines missing from a truncated content must be its last ones (a gap
before a line shown is missing), and are allowed only when a notice says
"after byte N" with N the offset of the first of them in that content,
exactly: the count is then right, neither understated nor overstated
(notices matched to the truncations in order). A notice that also says
"unfinished last line was dropped" may name a byte inside that first
line (the follower had read part of it). A follower that did not find the
copy in time (a busy machine) says its loss from where it had read, which
is honest: `in_copy_unshown` counts those lines (the copy held them),
`rotor_destroyed` the lines in no file; both are figures, not failures.

Notices: stdout and stderr lines that name the path with "rotated" or
"truncated" (through a dserver they come as server messages). rename modes
need one "rotated" per rotation; the truncation modes at least one
"truncated" (consecutive truncations may be told apart by no follower) and
no more than there were truncations.

Prints one `key=value` summary line (lost_to_rotor: the lines a loss
report would allow, reported or not; rotated_files_unread: rotated spans of
which no line was printed), then `LINES: PASS|FAIL ...` and
`NOTICES: PASS|FAIL ...`. Exit status: bit 0 lines failed, bit 1 notices
failed; 4 on bad input.
"""
import argparse
import bisect
import re
import sys

LINE = re.compile(rb"seq=(\d{9}) payload-([0-9a-f]{8})-padding-\.{20}")
LOSS = re.compile(rb"not read|lost|deleted before", re.I)
LOST_AFTER = re.compile(rb"after byte (\d+)[^;]*lost")
UNFINISHED = b"unfinished last line was dropped"
LINE_BYTES = 60


def said_exactly(said, at):
    """Whether a notice's (N, unfinished) says lost exactly what was from
    byte `at` (the first line not shown) on: N is `at`, or, with the
    unfinished line dropped, inside that line."""
    n, unfinished = said
    return n == at or (unfinished and at < n < at + LINE_BYTES)


def line_hash(seq):
    """The hash logrotor.c's line_hash computes."""
    h = (seq * 2654435761) & 0xFFFFFFFF
    return h ^ (h >> 16)


def intervals(nums, limit=6):
    """The first `limit` runs of consecutive numbers, as text."""
    runs = []
    for n in nums:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        elif len(runs) == limit:
            break
        else:
            runs.append([n, n])
    text = ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)
    return text or "-"


def read_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    elif LINE.fullmatch(lines[-1]):
        # A whole line's text without its newline is still a partial line:
        # spoil it so that it counts as one.
        lines[-1] += b" (no newline)"
    return lines


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mode", required=True,
                   choices=["rename", "rename-delete", "truncate-regrow", "copytruncate"])
    p.add_argument("--path", required=True)
    p.add_argument("--summary", required=True)
    p.add_argument("--ranges", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--err", required=True)
    return p.parse_args(argv)


def rotor_facts(summary, ranges):
    with open(summary) as f:
        kv = dict(w.split("=", 1) for w in f.read().split())
    written, rotations = int(kv["written"]), int(kv["rotations"])
    spans, copies = [], {}
    with open(ranges) as f:
        for row in f:
            cols = [int(x) for x in row.split()]
            k, first, last = cols[:3]
            if first <= last:
                spans.append((first, last, k))
            if len(cols) == 5:
                # copied_last, and the content's byte offset of line `first`
                copies[k] = (cols[3], cols[4] - (cols[3] - first + 1) * LINE_BYTES, cols[4])
    spans.sort()
    return written, rotations, spans, copies


def main(argv):
    a = parse_args(argv)
    try:
        written, rotations, spans, copies = rotor_facts(a.summary, a.ranges)
        out, err = read_lines(a.out), read_lines(a.err)
    except (OSError, ValueError, KeyError) as e:
        print(f"follow_check: bad input: {e}", file=sys.stderr)
        return 4
    path = a.path.encode()

    seqs, others, partial_examples = [], [], []
    partial = 0
    for ln in out:
        m = LINE.fullmatch(ln)
        if m and int(m.group(2), 16) == line_hash(int(m.group(1))) and 1 <= int(m.group(1)) <= written:
            seqs.append(int(m.group(1)))
        elif b"rotated" in ln or b"truncated" in ln or LOSS.search(ln):
            others.append(ln)
        else:
            partial += 1
            if len(partial_examples) < 3:
                partial_examples.append(ln[:120])
    others += err
    rotated = sum(1 for ln in others if path in ln and b"rotated" in ln)
    truncated = sum(1 for ln in others if path in ln and b"truncated" in ln)
    loss_reports = sum(1 for ln in others if LOSS.search(ln))

    count = {}
    for s in seqs:
        count[s] = count.get(s, 0) + 1
    duplicated = sum(c - 1 for c in count.values())
    out_of_order = sum(1 for i in range(1, len(seqs)) if seqs[i] < seqs[i - 1])

    # Per rotated span: how many of its lines were read, and the last one.
    firsts = [s[0] for s in spans]
    span_read = [0] * len(spans)
    span_last = [0] * len(spans)
    for s in count:
        i = bisect.bisect_right(firsts, s) - 1
        if i >= 0 and s <= spans[i][1]:
            span_read[i] += 1
            span_last[i] = max(span_last[i], s)

    # excusable: lost to the rotor, allowed if the loss was reported.
    missing, excusable = [], []
    whole_spans_missed = sum(1 for n in span_read if n == 0)
    strict = a.mode == "copytruncate" and copies
    by_span = {}
    for s in range(1, written + 1):
        if s in count:
            continue
        i = bisect.bisect_right(firsts, s) - 1
        ok = False
        if i >= 0 and s <= spans[i][1]:
            if a.mode == "rename-delete":
                ok = span_read[i] == 0
            elif strict:
                by_span.setdefault(i, []).append(s)
                continue
            elif a.mode in ("truncate-regrow", "copytruncate"):
                ok = s > span_last[i]
        (excusable if ok else missing).append(s)
    in_copy_unshown = rotor_destroyed = 0
    if strict:
        # "after byte N" notices, in order, each for one truncation.
        said = [(int(m.group(1)), UNFINISHED in ln) for ln in others
                for m in [LOST_AFTER.search(ln)] if m and path in ln]
        p = 0
        for first, last, k in spans:
            if k in copies:
                rotor_destroyed += last - copies[k][0]
        for i in sorted(by_span):
            first, last, k = spans[i]
            copied_last, base, copy_bytes = copies.get(k, (last, 0, 0))
            gone = by_span[i]
            in_copy_unshown += sum(1 for s in gone if s <= copied_last)
            # Only the content's last lines can be lost to the truncation:
            # a gap before a line shown is missing, whatever was said.
            tail_from = len(gone)
            while tail_from > 0 and gone[tail_from - 1] == last - (len(gone) - tail_from):
                tail_from -= 1
            missing += gone[:tail_from]
            gone = gone[tail_from:]
            if not gone:
                continue
            at = base + (gone[0] - first) * LINE_BYTES
            q = p
            while q < len(said) and not said_exactly(said[q], at):
                q += 1
            if q < len(said):
                excusable += gone
                p = q + 1
            else:
                missing += gone
    allowed = excusable if loss_reports else []
    if not loss_reports:
        missing += excusable

    print(f"follow_check: mode={a.mode} written={written} rotations={rotations} "
          f"printed={len(seqs)} missing={len(missing)} allowed_lost={len(allowed)} "
          f"duplicated={duplicated} out_of_order={out_of_order} partial={partial} "
          f"rotated_files_unread={whole_spans_missed} notices_rotated={rotated} "
          f"notices_truncated={truncated} loss_reports={loss_reports} "
          f"lost_to_rotor={len(excusable)}"
          + (f" in_copy_unshown={in_copy_unshown} rotor_destroyed={rotor_destroyed}"
             if strict else ""))

    rc = 0
    why = []
    if missing:
        missing.sort()
        why.append(f"{len(missing)} missing (first runs {intervals(missing)})")
    if duplicated:
        dups = sorted(s for s, c in count.items() if c > 1)
        why.append(f"{duplicated} duplicated (first runs {intervals(dups)})")
    if out_of_order:
        why.append(f"{out_of_order} places out of order")
    if partial:
        why.append(f"{partial} partial or garbled, e.g. {partial_examples!r}")
    if not seqs:
        why.append("no line at all")
    if why:
        rc |= 1
        print("LINES: FAIL " + "; ".join(why))
    else:
        print("LINES: PASS")

    if a.mode in ("rename", "rename-delete"):
        bad = rotated != rotations
        want = f"one 'rotated' notice naming {a.path} per rotation: want {rotations}, got {rotated}"
    else:
        bad = not 1 <= truncated <= rotations
        want = (f"between 1 and {rotations} 'truncated' notices naming {a.path}, "
                f"got {truncated}")
    if bad:
        rc |= 2
        print("NOTICES: FAIL " + want)
    else:
        print("NOTICES: PASS " + want)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
