#!/usr/bin/env python3
"""multiline.py: the multi-line records of dgrep/dcat --multiline, written
independently of the engine: a generator of Java and Go stack traces under
their log lines, and the oracle of what a record scan prints.

  multiline.py gen FILE N [SEED]       N log records, some with traces
  multiline.py grep FILE START PATTERN [--invert] [--max N] [--bound B]
      the records (a line matching START and the lines after it that do
      not) the pattern selects, each whole, as dgrep --plain prints them;
      --bound: the most bytes a record holds (without its last '\\n'),
      longer ones are cut after their last whole line that fits and the
      rest starts the next record.
"""
import random
import re
import sys


def gen(path, n, seed):
    rnd = random.Random(seed)
    levels = ["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"]
    with open(path, "w", newline="") as f:
        # A continuation before any start line: a record of its own.
        f.write("\tat orphan.Continuation.before(Start.java:1)\n")
        for i in range(n):
            lvl = rnd.choice(levels)
            f.write("2024-05-01T10:%02d:%02d.%03dZ %s worker-%d request %d done in %dms\n"
                    % (i // 60 % 60, i % 60, i % 1000, lvl, rnd.randint(1, 9), i, rnd.randint(1, 999)))
            r = rnd.random()
            if lvl == "ERROR" or r < 0.05:
                f.write("java.lang.IllegalStateException: request %d failed\n" % i)
                for d in range(rnd.randint(1, 40)):
                    f.write("\tat com.example.svc.Handler%d.handle(Handler.java:%d)\n" % (d, rnd.randint(1, 900)))
                if rnd.random() < 0.3:
                    f.write("Caused by: java.io.IOException: broken pipe\n\t... %d more\n" % rnd.randint(1, 9))
            elif r < 0.08:
                f.write("goroutine %d [running]:\n" % rnd.randint(1, 99))
                for d in range(rnd.randint(1, 10)):
                    f.write("main.step%d(0x%x)\n\t/src/app/main.go:%d +0x%x\n"
                            % (d, rnd.randint(0, 1 << 32), rnd.randint(1, 500), rnd.randint(0, 255)))
            elif r < 0.09:
                f.write("\n")   # an empty line is a continuation of ^\S


def records(path, start, bound):
    st = re.compile(start)
    with open(path, "rb") as f:
        data = f.read().decode("utf-8", "surrogateescape")
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cur = None
    for ln in lines:
        if cur is None:
            cur = [ln]
        elif st.search(ln) or (bound and len("\n".join(cur)) + 1 + len(ln) > bound):
            yield "\n".join(cur)
            cur = [ln]
        else:
            cur.append(ln)
    if cur is not None:
        yield "\n".join(cur)


def grep(args):
    path, start, pat = args[0], args[1], args[2]
    invert = "--invert" in args
    mx = int(args[args.index("--max") + 1]) if "--max" in args else 0
    bound = int(args[args.index("--bound") + 1]) if "--bound" in args else 0
    p = re.compile(pat)
    n = 0
    out = sys.stdout
    for rec in records(path, start, bound):
        if (p.search(rec) is not None) != invert:
            out.write(rec + "\n")
            n += 1
            if mx and n >= mx:
                break


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    elif sys.argv[1] == "grep":
        grep(sys.argv[2:])
    else:
        sys.exit("usage: multiline.py gen|grep ...")
