"""jsonpath.py: the e2e data of json(FIELD).path (tests/e2e/jsonpath.sh).

  python3 jsonpath.py gen FILE   JSON lines whose "msg" string holds the
                                 application's JSON: nested objects,
                                 arrays, escaped quotes, \\u escapes,
                                 missing keys, nulls, invalid inner JSON
  python3 jsonpath.py check A B  A (dmap CSV, with header) and B (DuckDB
                                 CSV rows) hold the same rows, in any
                                 order, numbers compared as numbers
"""
import csv
import json
import random
import sys


def gen(path):
    rnd = random.Random(20)
    levels = ["info", "warn", "error", 'quo"te', "caf\u00e9"]
    with open(path, "w", encoding="utf-8") as f:
        for i in range(3000):
            r = rnd.random()
            if r < 0.03:
                msg = "plain text, no JSON"
            elif r < 0.05:
                msg = '{"level": "info", "http": {"status": 200'   # cut off
            else:
                app = {"level": rnd.choice(levels), "seq": i}
                if rnd.random() < 0.9:
                    app["http"] = {"status": rnd.choice([200, 200, 301, 404, 500]),
                                   "ms": round(rnd.random() * 300, 3)}
                if rnd.random() < 0.1:
                    app["http"] = {"status": None}
                if rnd.random() < 0.7:
                    app["tags"] = rnd.sample(["a", "b", "c", "d"], rnd.randint(0, 3))
                if rnd.random() < 0.05:
                    del app["level"]
                msg = json.dumps(app, ensure_ascii=rnd.random() < 0.5)
            line = {"host": "h%d" % (i % 3), "msg": msg}
            f.write(json.dumps(line, ensure_ascii=False) + "\n")


def num(v):
    try:
        return float(v)
    except ValueError:
        return None


def same(a, b):
    if a == b:
        return True
    x, y = num(a), num(b)
    return x is not None and y is not None and abs(x - y) <= 1e-6 * max(1.0, abs(y))  # dmap prints 6 decimals


def check(a, b):
    got = sorted(list(csv.reader(open(a, encoding="utf-8")))[1:])
    want = sorted(csv.reader(open(b, encoding="utf-8")))
    if len(got) != len(want):
        print(f"{len(got)} rows, DuckDB has {len(want)}: {got[:5]} vs {want[:5]}", file=sys.stderr)
        return 1
    bad = 0
    for g, w in zip(got, want):
        if len(g) != len(w) or not all(same(x, y) for x, y in zip(g, w)):
            print(f"{g} vs DuckDB {w}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
