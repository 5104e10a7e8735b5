#!/usr/bin/env python3
"""query_diff.py - the generated differential test of issue 18's query
language against DuckDB (tests/e2e/query_diff.sh).

  query_diff.py gen DIR     the logs, the queries and their SQL, in DIR
  query_diff.py check DIR   dmap's CSV outfiles DIR/out/N.csv against
                            DuckDB's rows DIR/duck.jsonl

gen writes, from a fixed seed (the same files on every run):
  web.csv    4000 access records (logformat csv): empty cells, short rows
             (missing fields), "n/a" and "-" where numbers are expected,
             tied byte counts, values with quotes, tabs, backslashes, ':'
             and ',' (top's escapes), an empty host (an empty first part
             of a two-field group key), web4's total always 0 (a group
             sum to divide by)
  ev.json    3000 JSON events (logformat json): nested keys, null values
             (the text "null" to dmap, present), missing keys, strings
             where numbers are expected
  big.csv    27000 records, one group of 24000 (past the 10000 bounds of
             exact quantiles and distinct counts) and one of 3000
  cases.tsv  N <TAB> FILE <TAB> QUERY: the dmap queries
  cases.json the same with their SQL and how each column compares
  duck.sql   the SQL, one JSON string a line (query.mjs --batch)

The SQL encodes dmap's documented semantics (docs/query-language.md), so a
difference is a bug of one side:
  - a field is its text; a CSV empty cell is the empty string (present),
    a short row's missing cells are NULL (null_padding, no null string);
    a JSON null is the text "null" (present), a missing key NULL;
  - a numeric aggregate or comparison reads TRY_CAST(text AS DOUBLE) (the
    data holds no nan, hex or exponent forms, where strtod and DuckDB
    differ), so "n/a", "-", "" and "null" are skipped or unknown;
  - a group key is its fields' texts, a missing one the empty string, and
    rows without order by come in byte order of the parts joined by ',';
  - order by sorts descending by the column, ties in that key order;
  - a division by zero is NULL (NULLIF), an empty cell;
  - top(f, k) is "value:count" pairs, most frequent first, ties in byte
    order of the values, '\\' ',' ':' escaped with '\\';
  - quantiles are quantile_cont, exact (the same %f) while a group holds at
    most 10000 numbers, within 1 % beyond; count(distinct) exact while at
    most 10000, within 2.43 % (three standard errors of HyperLogLog) beyond.
Numbers compare as dmap's %f of DuckDB's double: within half a unit of the
sixth decimal plus 1e-9 relative.
"""
import csv
import io
import json
import math
import os
import random
import re
import sys

SEED = 18
QUANT_BOUND = 10000
DISTINCT_BOUND = 10000
SKETCH_REL = 0.01
HLL_REL = 0.0243

# ---------------------------------------------------------------- data


def gen_web(path, rnd):
    cols = ["host", "method", "path", "user", "ms", "total", "bytes", "status", "agent"]
    paths = ["/api/users", "/api/orders?id=7", "/health", "/static/app.css",
             "/api/users/42", "/a\\b", "/x:y,z"]
    agents = ['"Mozilla/5.0" (X11)', "tab\there", "Go-http-client/1.1"]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols)
    for i in range(4000):
        h = rnd.randrange(5)
        host = "" if rnd.random() < 0.03 else "web%d" % h
        method = rnd.choice(["GET", "GET", "GET", "POST", "PUT", "DELETE"])
        r = rnd.random()
        ms = "-" if r < 0.03 else ("" if r < 0.05 else "%g" % (rnd.randrange(8000) / 4))
        total = "0" if h == 4 else str(rnd.randrange(50))
        b = rnd.random()
        nbytes = "n/a" if b < 0.04 else str(rnd.randrange(200) * 500 + (rnd.randrange(2) * 250))
        a = rnd.randrange(10)
        agent = agents[a] if a < 3 else "curl/7.%d" % rnd.randrange(90)
        row = [host, method, rnd.choice(paths), "u%d" % rnd.randrange(150), ms, total,
               nbytes, rnd.choice(["200", "200", "200", "301", "404", "500"]), agent]
        c = rnd.random()
        if c < 0.04:
            row = row[:6]     # bytes, status, agent missing
        elif c < 0.07:
            row = row[:8]     # agent missing
        w.writerow(row)
    with open(path, "w") as f:
        f.write(out.getvalue())


def gen_ev(path, rnd):
    tags = ['a"b', "c\\d", "t\tx", "plain", "x:1,2"]
    with open(path, "w") as f:
        for i in range(3000):
            o = {}
            s = rnd.random()
            if s < 0.05:
                o["svc"] = None
            elif s > 0.03 + 0.05:
                o["svc"] = "svc" + "abcde"[rnd.randrange(5)]
            o["level"] = rnd.choice(["INFO", "INFO", "WARN", "ERROR"])
            req = {}
            m = rnd.random()
            if m < 0.04:
                req["ms"] = "n/a"
            elif m < 0.07:
                req["ms"] = None
            elif m < 0.95:
                req["ms"] = rnd.randrange(4000) / 4 if rnd.random() < 0.5 else rnd.randrange(1000)
            req["bytes"] = rnd.randrange(100) * 100
            o["req"] = req
            o["user"] = "id%d" % rnd.randrange(300)
            if rnd.random() < 0.9:
                o["code"] = rnd.choice([200, 200, 404, 500])
            o["tag"] = rnd.choice(tags)
            f.write(json.dumps(o, separators=(",", ":")) + "\n")


def gen_big(path, rnd):
    with open(path, "w") as f:
        f.write("k,v,u\n")
        for i in range(27000):
            if i % 9:
                f.write("big,%s,x%d\n" % (rnd.randrange(4000000) / 4, rnd.randrange(20000)))
            else:
                f.write("small,%s,y%d\n" % (rnd.randrange(400000) / 4, rnd.randrange(2000)))

# ---------------------------------------------------------------- sources


def json_field(name):
    p = "$." + name
    return ("CASE WHEN json_type(json_extract(json, '%s')) = 'NULL' THEN 'null' "
            "ELSE json_extract_string(json, '%s') END" % (p, p))


def source_sql(d, fmt, cols):
    """t: one VARCHAR column a field, NULL where the line lacks it."""
    f = os.path.join(d, fmt["file"])
    if fmt["kind"] == "csv":
        spec = ", ".join("'%s':'VARCHAR'" % c for c in cols)
        return ("SELECT * FROM read_csv('%s', header=true, auto_detect=false, columns={%s}, "
                "null_padding=true, nullstr='\\N~', quote='\"', escape='\"', delim=',')" % (f, spec))
    return "SELECT %s FROM read_ndjson_objects('%s')" % (
        ", ".join("%s AS %s" % (json_field(c), qid(c)) for c in cols), f)


def qid(name):
    return '"%s"' % name.replace('"', '""')


def sqlstr(s):
    return "'%s'" % s.replace("'", "''")


def dstr(s, hexes=False):
    """A dmap "quoted string" holding s, with the escapes of issue 18."""
    out = []
    for ch in s:
        if ch == '"':
            out.append("\\x22" if hexes else '\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def num(col):
    return "TRY_CAST(%s AS DOUBLE)" % qid(col)

# ---------------------------------------------------------------- schemas

# per data set: its fields, which hold numbers, strings to test, keys
WEB = {
    "file": "web.csv", "kind": "csv", "logformat": "csv",
    "cols": ["host", "method", "path", "user", "ms", "total", "bytes", "status", "agent"],
    "nums": ["ms", "bytes", "total", "status"],
    "texts": {"host": ["web0", "web1", "web3", ""], "method": ["GET", "POST", "DELETE"],
              "path": ["/health", "/a\\b", "/x:y,z", "/api/users"],
              "agent": ['"Mozilla/5.0" (X11)', "tab\there", "curl/7.1"],
              "status": ["200", "404"]},
    "subs": {"path": ["/api", "?id=", "\\", ":y,"], "agent": ['"Moz', "\t", "curl/7.4"]},
    "regexes": {"path": ["^/api/(users|orders)", "\\?id=\\d+$", "^/[a-z]\\\\"],
                "agent": ['^"Mozilla', "curl/7\\.[1-3]\\d?$", "\\t"],
                "host": ["[13]$", "^web"]},
    "keys": [["host"], ["method"], ["host", "method"], ["status"], ["status", "method"], []],
    "distinct": ["user", "path", "agent", "bytes"],
    "tops": ["path", "agent", "user", "status", "bytes"],
    "rows": 4000,
}
EV = {
    "file": "ev.json", "kind": "json", "logformat": "json",
    "cols": ["svc", "level", "req.ms", "req.bytes", "user", "code", "tag"],
    "nums": ["req.ms", "req.bytes", "code"],
    "texts": {"svc": ["svca", "null", "svcc"], "level": ["INFO", "ERROR"],
              "tag": ['a"b', "c\\d", "t\tx", "x:1,2"], "code": ["404", "500"]},
    "subs": {"tag": ['"', "\\", ":1"], "user": ["id1"]},
    "regexes": {"tag": ['^a"', "\\\\d$", "\\d,\\d"], "user": ["^id[0-9]$", "7"],
                "svc": ["^svc[ab]$", "ul"]},
    "keys": [["svc"], ["level"], ["svc", "level"], ["code"], ["code", "level"], []],
    "distinct": ["user", "tag", "svc", "req.ms"],
    "tops": ["tag", "svc", "user", "code"],
    "rows": 3000,
}

# ---------------------------------------------------------------- queries


class Case:
    def __init__(self):
        self.items = []      # (dmap text, sql expr, kind)
        self.aux = []        # extra sql columns (quantile counts)
        self.tops = []       # (alias, field, k)
        self.sets = []       # (dmap text, name, sql expr)


def cond_atom(rnd, sch):
    """One where condition over a field: (dmap, sql)."""
    r = rnd.random()
    if r < 0.22:
        f = rnd.choice(sch["nums"])
        op = rnd.choice(["==", "!=", "<", "<=", ">", ">=", "=<", "=>"])
        sqlop = {"==": "=", "!=": "<>", "=<": "<=", "=>": ">="}.get(op, op)
        v = {"ms": [250, 1000, 1500], "bytes": [50000, 25000, 90000], "total": [0, 25],
             "status": [200, 404], "req.ms": [100, 500], "req.bytes": [5000], "code": [200, 500]}[f]
        v = rnd.choice(v)
        return "%s %s %s" % (f, op, v), "%s %s %s" % (num(f), sqlop, v)
    if r < 0.32:
        f = rnd.choice(sch["nums"])
        g = rnd.choice(sch["nums"])
        kind = rnd.randrange(3)
        if kind == 0:
            return "%s * 2 - %s / 4 > 1000" % (f, g), "%s * 2 - %s / 4 > 1000" % (num(f), num(g))
        if kind == 1:
            return "(%s + %s) / 2 < 300" % (f, g), "(%s + %s) / 2 < 300" % (num(f), num(g))
        # per line division, by zero where g is 0: unknown
        return "%s / %s >= 1" % (f, g), "%s / NULLIF(%s, 0) >= 1" % (num(f), num(g))
    if r < 0.47:
        f = rnd.choice(sorted(sch["texts"]))
        v = rnd.choice(sch["texts"][f])
        op = rnd.choice(["eq", "ne"])
        return "%s %s %s" % (f, op, dstr(v, rnd.random() < 0.3)), \
            "%s %s %s" % (qid(f), "=" if op == "eq" else "<>", sqlstr(v))
    if r < 0.62:
        f = rnd.choice(sorted(sch["texts"]))
        vs = rnd.sample(sch["texts"][f], min(len(sch["texts"][f]), rnd.randrange(1, 4)))
        neg = rnd.random() < 0.4
        dv = ", ".join(v if re.fullmatch(r"[0-9]+", v) else dstr(v) for v in vs)
        return "%s %sin (%s)" % (f, "not " if neg else "", dv), \
            "%s %sIN (%s)" % (qid(f), "NOT " if neg else "", ", ".join(sqlstr(v) for v in vs))
    if r < 0.80:
        f = rnd.choice(sorted(sch["regexes"]))
        p = rnd.choice(sch["regexes"][f])
        neg = rnd.random() < 0.35
        s = "regexp_matches(%s, %s)" % (qid(f), sqlstr(p))
        return "%s %s %s" % (f, "nmatches" if neg else "matches", dstr(p, rnd.random() < 0.3)), \
            ("NOT " + s) if neg else s
    f = rnd.choice(sorted(sch["subs"]))
    v = rnd.choice(sch["subs"][f])
    op, fn = rnd.choice([("contains", "contains"), ("ncontains", "NOT contains"),
                         ("hasprefix", "starts_with"), ("lacks", "NOT contains")])
    return "%s %s %s" % (f, op, dstr(v)), "%s(%s, %s)" % (fn, qid(f), sqlstr(v))


def cond_tree(rnd, atom, depth):
    """(dmap, sql, top) with top the outermost operator: atom, and, or, not."""
    r = rnd.random()
    if depth == 0 or r < 0.35:
        d, s = atom()
        return d, "(" + s + ")", "atom"
    if r < 0.55:
        d, s, t = cond_tree(rnd, atom, depth - 1)
        if t != "atom":
            d = "(" + d + ")"
        return "not " + d, "(NOT " + s + ")", "not"
    a = cond_tree(rnd, atom, depth - 1)
    b = cond_tree(rnd, atom, depth - 1)
    if r < 0.78:
        # and: an or below needs parentheses; two atoms may stand side by
        # side (DTail's implicit and) unless the right one starts with "("
        da = "(" + a[0] + ")" if a[2] == "or" else a[0]
        db = "(" + b[0] + ")" if b[2] == "or" else b[0]
        join = " " if (b[2] == "atom" and not db.startswith("(") and rnd.random() < 0.4) else " and "
        return da + join + db, "(" + a[1] + " AND " + b[1] + ")", "and"
    # or: no parentheses needed below it (and binds tighter)
    return a[0] + " or " + b[0], "(" + a[1] + " OR " + b[1] + ")", "or"


def agg_item(rnd, sch, c, allow_top=True):
    """One aggregate select item, added to c."""
    r = rnd.random()
    nums = sch["nums"]
    if r < 0.12:
        c.items.append(("count($line)", "count(*)", "int"))
    elif r < 0.22:
        f = rnd.choice(sch["cols"])
        c.items.append(("count(%s)" % f, "count(%s)" % qid(f), "int"))
    elif r < 0.45:
        f = rnd.choice(nums)
        fn = rnd.choice(["sum", "avg", "min", "max"])
        c.items.append(("%s(%s)" % (fn, f), "%s(%s)" % (fn, num(f)), "num"))
    elif r < 0.62:
        f = rnd.choice(nums)
        q, d = rnd.choice([(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0, "p0"), (1, "p100"),
                           (0.25, "quantile(%s, 0.25)"), (0.999, "p99.9"), (0.1, "p10")])
        text = d % f if "%" in d else "%s(%s)" % (d, f)
        c.items.append((text, "quantile_cont(%s, %s)" % (num(f), q), "quant:%d" % len(c.aux)))
        c.aux.append("count(%s)" % num(f))
    elif r < 0.78:
        f = rnd.choice(sch["distinct"])
        c.items.append(("count(distinct %s)" % f, "count(DISTINCT %s)" % qid(f), "distinct"))
    elif r < 0.9 and allow_top:
        f = rnd.choice(sch["tops"])
        k = rnd.choice([1, 2, 3, 5])
        alias = "top%d" % len(c.tops)
        c.tops.append((alias, f, k))
        c.items.append(("top(%s, %d)" % (f, k), "any_value(%s.top)" % alias, "text"))
    else:
        c.items.append(arith_item(rnd, sch))


def arith_operand(rnd, sch):
    f = rnd.choice(sch["nums"])
    return rnd.choice([
        ("sum(%s)" % f, "sum(%s)" % num(f)),
        ("count($line)", "CAST(count(*) AS DOUBLE)"),
        ("avg(%s)" % f, "avg(%s)" % num(f)),
        ("max(%s)" % f, "max(%s)" % num(f)),
        ("min(%s)" % f, "min(%s)" % num(f)),
        ("count(distinct %s)" % rnd.choice(sch["distinct"]),
         None),
        (str(rnd.choice([2, 100, 1024, 0.5])), None),
    ])


def arith_item(rnd, sch):
    """An arithmetic select item over aggregates: (dmap, sql, kind)."""
    def operand():
        d, s = arith_operand(rnd, sch)
        if s is None:
            if d.startswith("count(distinct"):
                s = "CAST(count(DISTINCT %s) AS DOUBLE)" % qid(d[len("count(distinct "):-1])
            else:
                s = d
        return d, s
    a, b, c = operand(), operand(), operand()
    op1, op2 = rnd.choice("+-*/"), rnd.choice("+-*/")

    def bin_(x, op, y):
        if op == "/":
            return "%s / NULLIF(%s, 0)" % (x, y)
        return "%s %s %s" % (x, op, y)
    shape = rnd.randrange(3)
    if shape == 0:
        return ("%s %s %s" % (a[0], op1, b[0]), "(" + bin_(a[1], op1, b[1]) + ")", "num")
    if shape == 1:
        return ("(%s %s %s) %s %s" % (a[0], op1, b[0], op2, c[0]),
                "(" + bin_("(" + bin_(a[1], op1, b[1]) + ")", op2, c[1]) + ")", "num")
    # a op1 b op2 c with the usual precedence
    if op2 in "*/" and op1 in "+-":
        inner = "(" + bin_(b[1], op2, c[1]) + ")"
        return ("%s %s %s %s %s" % (a[0], op1, b[0], op2, c[0]),
                "(" + bin_(a[1], op1, inner) + ")", "num")
    left = "(" + bin_(a[1], op1, b[1]) + ")"
    return ("%s %s %s %s %s" % (a[0], op1, b[0], op2, c[0]),
            "(" + bin_(left, op2, c[1]) + ")", "num")


def having_atom(rnd, sch, keys, per_group):
    r = rnd.random()
    if r < 0.45 or not keys:
        t = rnd.randrange(4)
        if t == 0:
            n = int(per_group * rnd.choice([0.8, 1.0, 1.05, 1.2]))
            return "count($line) > %d" % n, "count(*) > %d" % n
        if t == 1:
            f = rnd.choice(sch["nums"])
            return "avg(%s) >= %s" % (f, {"ms": 995, "bytes": 50000, "total": 20, "status": 280,
                                         "req.ms": 400, "req.bytes": 4950, "code": 300}[f]), \
                "avg(%s) >= %s" % (num(f), {"ms": 995, "bytes": 50000, "total": 20, "status": 280,
                                           "req.ms": 400, "req.bytes": 4950, "code": 300}[f])
        if t == 2:
            f = rnd.choice(sch["nums"])
            return "(max(%s) - min(%s)) / 2 > sum(%s) / count($line) / 2" % (f, f, f), \
                "(max(%s) - min(%s)) / 2 > sum(%s) / count(*) / 2" % (num(f), num(f), num(f))
        f = rnd.choice(sch["distinct"])
        n = rnd.choice([10, 100, 140, 290])
        return "count(distinct %s) * 2 >= %d" % (f, n), "count(DISTINCT %s) * 2 >= %d" % (qid(f), n)
    k = rnd.choice(keys)
    vals = sch["texts"].get(k)
    if vals and r < 0.75:
        vs = rnd.sample(vals, min(2, len(vals)))
        return "%s in (%s)" % (k, ", ".join(dstr(v) for v in vs)), \
            "any_value(%s) IN (%s)" % (qid(k), ", ".join(sqlstr(v) for v in vs))
    pats = sch["regexes"].get(k, ["^.?[a-z]"])
    p = rnd.choice(pats)
    return "%s matches %s" % (k, dstr(p)), "regexp_matches(any_value(%s), %s)" % (qid(k), sqlstr(p))


def make_case(rnd, sch, want=None):
    """A random query over sch: (dmap query, SQL, kinds, per-query facts)."""
    want = want or set()
    c = Case()
    keys = rnd.choice(sch["keys"])
    if "nogroup" in want:
        keys = []
    if "group" in want and not keys:
        keys = sch["keys"][0]
    groups = {"host": 6, "method": 4, "status": 5, "svc": 7, "level": 3, "code": 4}
    ngroups = 1
    for k in keys:
        ngroups *= groups.get(k, 5)
    where = rnd.random() < 0.75 or "where" in want
    per_group = sch["rows"] / ngroups * (0.5 if where else 1)
    for k in keys:
        if rnd.random() < 0.8:
            c.items.append((k, "coalesce(any_value(%s), '')" % qid(k), "text"))
    for _ in range(rnd.randrange(1, 5)):
        agg_item(rnd, sch, c)
    if "arith" in want:
        c.items.append(arith_item(rnd, sch))
    if not any(k != "text" or d.startswith("top(") for d, s, k in c.items):
        agg_item(rnd, sch, c)
    # set: per line arithmetic (and a division by zero), or an escaped string
    if rnd.random() < 0.25 or "set" in want:
        f, g = rnd.sample(sch["nums"], 2)
        kind = rnd.randrange(3)
        if kind == 0:
            c.sets.append(("$kb = %s / 1024" % f, "$kb"))
            c.items.append(("sum($kb)", "sum(%s / 1024)" % num(f), "num"))
        elif kind == 1:
            # a divisor that is 0 on some lines: those leave $r missing
            g = "total" if "total" in sch["nums"] else "req.bytes"
            f = f if f != g else "ms" if g == "total" else "req.ms"
            c.sets.append(("$r = %s / %s" % (f, g), "$r"))
            c.items.append(("sum($r)", "sum(%s / NULLIF(%s, 0))" % (num(f), num(g)), "num"))
            c.items.append(("count($r)", "count(%s / NULLIF(%s, 0))" % (num(f), num(g)), "int"))
        else:
            c.sets.append(("$x = (%s + 1) * 2 - %s" % (f, g), "$x"))
            c.items.append(("max($x)", "max((%s + 1) * 2 - %s)" % (num(f), num(g)), "num"))
    w = cond_tree(rnd, lambda: cond_atom(rnd, sch), rnd.randrange(1, 4)) if where else None
    hv = None
    if keys and (rnd.random() < 0.35 or "having" in want):
        hv = cond_tree(rnd, lambda: having_atom(rnd, sch, keys, per_group), rnd.randrange(1, 3))
    order = None
    if keys and (rnd.random() < 0.3 or "order" in want):
        cand = [i for i, (d, s, k) in enumerate(c.items)
                if k in ("int", "distinct") or d in ("sum(ms)", "sum(req.bytes)", "sum(total)")]
        if not cand:
            c.items.append(("count($line)", "count(*)", "int"))
            cand = [len(c.items) - 1]
        order = (rnd.choice(cand), rnd.choice(["order", "rorder"]), rnd.choice([None, 2, 3, 5]))
    return build(sch, c, keys, w, hv, order)


def build(sch, c, keys, w, hv, order):
    # dmap's query
    q = "select " + ", ".join(d for d, s, k in c.items)
    if c.sets:
        q += " set " + ", ".join(d for d, _ in c.sets)
    if w:
        q += " where " + w[0]
    if keys:
        q += " group by " + ", ".join(keys)
    if hv:
        q += " having " + hv[0]
    if order:
        q += " %s by %s" % (order[1], c.items[order[0]][0])
        if order[2]:
            q += " limit %d" % order[2]
    q += " logformat " + sch["logformat"]
    # DuckDB's SQL
    kexpr = ["coalesce(%s, '')" % qid(k) for k in keys] or ["''"]
    kcols = ["__k%d" % i for i in range(len(kexpr))]
    ctes = ["t AS (%s)" % source_sql("@DIR@", sch, sch["cols"]),
            "w AS (SELECT *, %s FROM t%s)" % (
                ", ".join("%s AS %s" % (e, n) for e, n in zip(kexpr, kcols)),
                " WHERE " + w[1] if w else "")]
    for alias, f, k in c.tops:
        ks = ", ".join(kcols)
        esc = "replace(replace(replace(v, '\\', '\\\\'), ',', '\\,'), ':', '\\:')"
        ctes.append(
            "%s AS (SELECT %s, string_agg(%s || ':' || n, ',' ORDER BY n DESC, v) AS top FROM ("
            "SELECT %s, v, n, row_number() OVER (PARTITION BY %s ORDER BY n DESC, v) AS rn FROM ("
            "SELECT %s, %s AS v, count(*) AS n FROM w WHERE %s IS NOT NULL GROUP BY ALL)) "
            "WHERE rn <= %d GROUP BY %s)" % (alias, ks, esc, ks, ks, ks, qid(f), qid(f), k, ks))
    cols = ["%s AS c%d" % (s, i) for i, (d, s, k) in enumerate(c.items)]
    cols += ["%s AS a%d" % (s, i) for i, s in enumerate(c.aux)]
    joins = "".join(" LEFT JOIN %s USING (%s)" % (a, ", ".join(kcols)) for a, _, _ in c.tops)
    having = [hv[1]] if hv else []
    if not keys:
        having.append("count(*) > 0")   # dmap writes no row when no line is left
    keyorder = " || ',' || ".join(kcols)
    sql = "WITH %s SELECT %s FROM w%s GROUP BY %s%s" % (
        ", ".join(ctes), ", ".join(cols), joins, ", ".join(kcols),
        " HAVING " + " AND ".join(having) if having else "")
    if order:
        sql += " ORDER BY c%d %s NULLS LAST, %s" % (order[0], "DESC" if order[1] == "order" else "ASC",
                                                   keyorder)
        if order[2]:
            sql += " LIMIT %d" % order[2]
    else:
        sql += " ORDER BY " + keyorder
    return q, sql, [k for d, s, k in c.items]


# Constructs the queries must use, with a pattern each (over dmap's text).
COVERAGE = {
    "or": r" or ", "not": r"(where|having|\(| or | and |^) *not ", "parentheses": r"where .*\(.* or ",
    "in": r" in \(", "not in": r" not in \(", "matches": r" matches \"", "nmatches": r" nmatches \"",
    "having": r" having ", "arith +": r"\) \+ ", "arith -": r"\) - ", "arith *": r"\) \* |\* 2",
    "arith /": r"\) / ", "arith parentheses": r"select .*\(\w+\(", "arith in set": r" set \$\w+ = .*[-+*/]",
    "arith in where": r"where .*\w \* 2", "arith in having": r"having .*\) / 2",
    "division by zero (set)": r"\$r = \S+ / (total|req\.bytes)", "division by zero (select)": r"/ sum\(total\)",
    "count(distinct)": r"count\(distinct ", "top": r"top\(\w+(\.\w+)?, \d\)",
    "exact quantile": r"p50\(|p90\(|p99\(|quantile\(", "p0": r"p0\(", "p100": r"p100\(",
    "approximate quantile": r"@big .*p50\(", "approximate distinct": r"@big .*count\(distinct u\)",
    "escape \\\"": r'\\"', "escape \\\\": r"\\\\\\\\", "escape \\t": r"\\t", "escape \\xNN": r"\\x22", "escape \\n": r"\\n",
    "order by": r" order by ", "rorder by": r" rorder by ", "limit": r" limit \d",
    "implicit and": r"where \S+ \S+ \S+ \w", "csv": r"logformat csv", "json": r"logformat json",
}


def generate(d):
    rnd = random.Random(SEED)
    gen_web(os.path.join(d, "web.csv"), rnd)
    gen_ev(os.path.join(d, "ev.json"), rnd)
    gen_big(os.path.join(d, "big.csv"), rnd)
    cases = []
    wants = [{"having", "arith", "order"}, {"set", "where"}, {"nogroup", "arith"},
             {"having", "group"}, {"arith", "set"}]
    for i in range(46):
        q, sql, kinds = make_case(rnd, WEB, wants[i % len(wants)] if i < 15 else None)
        cases.append({"file": "web.csv", "query": q, "sql": sql, "kinds": kinds})
    for i in range(22):
        q, sql, kinds = make_case(rnd, EV, wants[i % len(wants)] if i < 8 else None)
        cases.append({"file": "ev.json", "query": q, "sql": sql, "kinds": kinds})
    # Two written out, so that the rarest constructs are there whatever the
    # seed draws: a group sum of 0 to divide by (web4), \xNN, p0 and p100.
    c = Case()
    c.items = [("host", "coalesce(any_value(\"host\"), '')", "text"),
               ("count($line) * 100 / sum(total)",
                "(CAST(count(*) AS DOUBLE) * 100 / NULLIF(sum(%s), 0))" % num("total"), "num"),
               ("sum(bytes) / 1024", "(sum(%s) / 1024)" % num("bytes"), "num"),
               ("p0(ms)", "quantile_cont(%s, 0)" % num("ms"), "quant:0"),
               ("p100(ms)", "quantile_cont(%s, 1)" % num("ms"), "quant:0")]
    c.aux = ["count(%s)" % num("ms")]
    q, sql, kinds = build(WEB, c, ["host"],
                          ('agent matches "\\x22Mozilla" or path eq "/a\\\\b" or status == 500',
                           "(regexp_matches(\"agent\", '\"Mozilla') OR \"path\" = '/a\\b' OR %s = 500)"
                           % num("status"), "or"), None, None)
    cases.append({"file": "web.csv", "query": q, "sql": sql, "kinds": kinds})
    c = Case()
    c.items = [("svc", "coalesce(any_value(\"svc\"), '')", "text"),
               ("p0(req.ms)", "quantile_cont(%s, 0)" % num("req.ms"), "quant:0"),
               ("p100(req.ms)", "quantile_cont(%s, 1)" % num("req.ms"), "quant:0"),
               ("top(tag, 5)", "any_value(top0.top)", "text")]
    c.aux = ["count(%s)" % num("req.ms")]
    c.tops = [("top0", "tag", 5)]
    q, sql, kinds = build(EV, c, ["svc"], ('tag nmatches "^a\\x22|\\n"', "(NOT regexp_matches(\"tag\", '^a\"|\\n'))",
                                          "atom"), None, None)
    cases.append({"file": "ev.json", "query": q, "sql": sql, "kinds": kinds})
    # Past the bounds: 24000 numbers and about 14000 distinct values in
    # group "big", 3000 and fewer than 2000 in "small".
    big = {"file": "big.csv", "kind": "csv", "logformat": "csv", "cols": ["k", "v", "u"]}
    for quants in (("p50", 0.5), ("p99", 0.99)), (("p0", 0), ("p100", 1), ("p90", 0.9)), \
            (("quantile(v, 0.25)", 0.25), ("p10", 0.1)):
        c = Case()
        c.items.append(("k", "coalesce(any_value(\"k\"), '')", "text"))
        for name, q in quants:
            c.items.append((name if "(" in name else "%s(v)" % name, "quantile_cont(%s, %s)" % (num("v"), q),
                            "quant:0"))
        c.aux.append("count(%s)" % num("v"))
        c.items.append(("count(distinct u)", "count(DISTINCT \"u\")", "distinct"))
        c.items.append(("count($line)", "count(*)", "int"))
        q, sql, kinds = build(big, c, ["k"], None, None, None)
        cases.append({"file": "big.csv", "query": q, "sql": sql, "kinds": kinds, "big": True})
    c = Case()
    c.items = [("k", "coalesce(any_value(\"k\"), '')", "text"), ("top(u, 3)", "any_value(top0.top)", "text"),
               ("count(distinct u)", "count(DISTINCT \"u\")", "distinct")]
    c.tops = [("top0", "u", 3)]
    q, sql, kinds = build(big, c, ["k"], ("v > 500000", "(%s > 500000)" % num("v"), "atom"),
                          ("count($line) > 100", "count(*) > 100", "atom"), None)
    cases.append({"file": "big.csv", "query": q, "sql": sql, "kinds": kinds, "big": True})
    text = "\n".join(("@big " if c.get("big") else "") + c["query"] for c in cases)
    missing = [name for name, pat in COVERAGE.items() if not re.search(pat, text, re.M)]
    if missing:
        sys.exit("query_diff.py: the generated queries miss: " + ", ".join(missing))
    with open(os.path.join(d, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
    with open(os.path.join(d, "cases.tsv"), "w") as f:
        for i, c in enumerate(cases):
            assert "\t" not in c["query"] and "\n" not in c["query"]
            f.write("%d\t%s\t%s\n" % (i, c["file"], c["query"]))
    with open(os.path.join(d, "duck.sql"), "w") as f:
        for c in cases:
            f.write(json.dumps(c["sql"].replace("@DIR@", d)) + "\n")
    print("%d queries, covering: %s" % (len(cases), ", ".join(COVERAGE)))

# ---------------------------------------------------------------- check


def fnum(s):
    return {"+Inf": math.inf, "-Inf": -math.inf, "Infinity": math.inf,
            "-Infinity": -math.inf, "NaN": math.nan}.get(s, None) if isinstance(s, str) and \
        s in ("+Inf", "-Inf", "Infinity", "-Infinity", "NaN") else float(s)


def cell_ok(kind, got, want, row):
    """Whether dmap's cell got is DuckDB's value want; '' is NULL."""
    if want is None:
        return got == "", "NULL"
    if kind == "text":
        return got == str(want), str(want)
    if kind == "int":
        return got == str(int(want)), str(int(want))
    x = fnum(want)
    if got == "":
        return False, "%r" % x
    g = fnum(got)
    if math.isnan(x) or math.isinf(x):
        return (math.isnan(g) and math.isnan(x)) or g == x, "%r" % x
    if kind == "distinct":
        if x <= DISTINCT_BOUND:
            return g == x, "%d (exact)" % x
        return abs(g - x) <= HLL_REL * x, "%d within %.2f%%" % (x, HLL_REL * 100)
    if kind.startswith("quant:"):
        n = row[int(kind.split(":")[1])]
        if n <= QUANT_BOUND:
            return got == "%f" % x, "%f (exact, %d values)" % (x, n)
        return abs(g - x) <= SKETCH_REL * abs(x) + 5e-7, "%f within 1%% (%d values)" % (x, n)
    # num: %f of DuckDB's double, to 1e-9 relative
    return abs(g - x) <= 5.000001e-7 + 1e-9 * abs(x), "%f" % x


def check(d):
    cases = json.load(open(os.path.join(d, "cases.json")))
    duck = [json.loads(l) for l in open(os.path.join(d, "duck.jsonl")) if l.strip()]
    if len(duck) != len(cases):
        sys.exit("query_diff.py: %d DuckDB results for %d queries" % (len(duck), len(cases)))
    bad = 0
    approx = 0
    cells = 0
    empty = 0
    for i, (c, rows) in enumerate(zip(cases, duck)):
        def fail(msg):
            nonlocal bad
            bad += 1
            print("q%d: %s\n  dmap:   %s\n  SQL:    %s" % (i, msg, c["query"], c["sql"][:3000]))
        if isinstance(rows, dict):
            fail("DuckDB failed: " + rows["error"])
            continue
        path = os.path.join(d, "out", "%d.csv" % i)
        if not os.path.exists(path):
            fail("dmap wrote no CSV")
            continue
        with open(path, newline="") as f:
            got = list(csv.reader(f))
        header, got = got[0], got[1:]
        nk = len(c["kinds"])
        if len(header) != nk:
            fail("header %s has %d columns, want %d" % (header, len(header), nk))
            continue
        empty += not rows
        cells += len(rows) * nk
        if len(got) != len(rows):
            fail("%d rows, DuckDB %d:\n  dmap rows: %s\n  DuckDB rows: %s" % (
                len(got), len(rows), got[:8], rows[:8]))
            continue
        for r, (g, w) in enumerate(zip(got, rows)):
            aux = w[nk:]
            for col, kind in enumerate(c["kinds"]):
                ok, shown = cell_ok(kind, g[col], w[col], aux)
                if kind in ("distinct",) or kind.startswith("quant:"):
                    if (kind == "distinct" and w[col] is not None and w[col] > DISTINCT_BOUND) or \
                            (kind.startswith("quant:") and aux[int(kind[6:])] > QUANT_BOUND):
                        approx += 1
                if not ok:
                    fail("row %d column %s: dmap %r, DuckDB %s\n  dmap row: %s\n  DuckDB row: %s" % (
                        r + 1, header[col], g[col], shown, g, w))
                    break
            else:
                continue
            break
    print("%d queries against DuckDB, %d differ; %d cells compared, %d past the bounds within "
          "them; %d queries without rows" % (len(cases), bad, cells, approx, empty))
    if empty * 5 > len(cases):
        print("more than a fifth of the queries select nothing: the test would prove little")
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("gen", "check"):
        sys.exit("usage: query_diff.py gen|check DIR")
    if sys.argv[1] == "gen":
        generate(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2]))
