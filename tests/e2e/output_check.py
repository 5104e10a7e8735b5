#!/usr/bin/env python3
"""output_check.py FORM OUT WANT: dmap's --output FORM (csv, tsv or json) in
OUT, parsed as the next program in a pipe would parse it, against WANT,
DuckDB's rows for the same query (JSON lines, tests/support/duckdb/query.mjs).

- json: every line is one JSON object (json.loads, strict: no NaN, no
  trailing text), keys in the order of WANT's columns; count() columns
  (named "count(...)") are JSON integers; numbers are JSON numbers; an
  empty cell is null.
- csv: Python's csv module (RFC 4180): a header, then one record per row.
- tsv: split on tabs, \\t \\n \\r \\\\ unescaped; a header, then rows.

Rows are matched by their first column (the group key). Numbers agree to
1e-6 (dmap prints six decimals); strings exactly; null (csv/tsv: an empty
field) only with null. Prints what differs and exits 1; 0 when all agree.
"""
import csv
import io
import json
import math
import sys


def fail(msg):
    print(f"output_check: {msg}", file=sys.stderr)
    sys.exit(1)


def no_constant(name):
    fail(f"not JSON: the constant {name}")


def parse_json(text, cols):
    rows = []
    for n, line in enumerate(text.split("\n")[:-1], 1):
        try:
            obj = json.loads(line, parse_constant=no_constant,
                             object_pairs_hook=lambda pairs: pairs)
        except json.JSONDecodeError as e:
            fail(f"line {n} is not JSON: {e}: {line!r}")
        if [k for k, _ in obj] != cols:
            fail(f"line {n}: keys {[k for k, _ in obj]}, want {cols}")
        for k, v in obj:
            if k.startswith("count(") and not (isinstance(v, int) and not isinstance(v, bool)):
                fail(f"line {n}: {k} is {v!r}, want a JSON integer")
            if isinstance(v, str) and k != cols[0] and not k.startswith("last("):
                try:
                    float(v)
                    fail(f"line {n}: {k} is the string {v!r}, want a number")
                except ValueError:
                    pass
        rows.append([v for _, v in obj])
    if not text.endswith("\n") and text:
        fail("the output does not end in a newline")
    return rows


def unescape_tsv(field):
    out, i = [], 0
    while i < len(field):
        c = field[i]
        if c == "\\" and i + 1 < len(field):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(field[i + 1], "?"))
            i += 2
        elif c == "\\":
            fail(f"a lone backslash at the end of {field!r}")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_table(text, form, cols):
    if form == "csv":
        records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    else:
        records = [[unescape_tsv(f) for f in line.split("\t")] for line in text.split("\n")[:-1]]
    if not records or records[0] != cols:
        fail(f"header {records[0] if records else None}, want {cols}")
    return [[None if v == "" else v for v in r] for r in records[1:]]


def same(got, want):
    if want is None or got is None:
        return got is None and want is None
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        try:
            g = float(got)
        except (TypeError, ValueError):
            return False
        return math.isclose(g, want, rel_tol=1e-9, abs_tol=1.5e-6)
    return got == want


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("csv", "tsv", "json"):
        fail("usage: output_check.py csv|tsv|json OUT WANT")
    form, out_path, want_path = sys.argv[1:]
    with open(want_path, encoding="utf-8") as f:
        want = [json.loads(l, object_pairs_hook=lambda p: p) for l in f if l.strip()]
    if not want:
        fail("DuckDB gave no rows")
    cols = [k for k, _ in want[0]]
    with open(out_path, encoding="utf-8", newline="") as f:
        text = f.read()
    got = parse_json(text, cols) if form == "json" else parse_table(text, form, cols)
    want_rows = {r[0][1]: [v for _, v in r] for r in want}
    got_rows = {}
    for r in got:
        if len(r) != len(cols):
            fail(f"row {r!r} has {len(r)} fields, want {len(cols)}")
        if r[0] in got_rows:
            fail(f"group {r[0]!r} twice")
        got_rows[r[0]] = r
    if set(got_rows) != set(want_rows):
        fail(f"groups {sorted(got_rows)}, want {sorted(want_rows)}")
    bad = 0
    for key, w in want_rows.items():
        for c, (g, wv) in enumerate(zip(got_rows[key], w)):
            if not same(g, wv):
                print(f"output_check: group {key!r} column {cols[c]}: got {g!r}, want {wv!r}",
                      file=sys.stderr)
                bad += 1
    if bad:
        sys.exit(1)
    print(f"output_check: {form}: {len(got)} rows agree with DuckDB")


main()
