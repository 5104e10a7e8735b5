#!/usr/bin/env python3
"""logformats.py: the data and the Python oracle of tests/e2e/logformats.sh.

  logformats.py gen FORMAT OUT        writes a deterministic test file of FORMAT
  logformats.py oracle FORMAT FILE Q  reads FILE on its own (no knowledge of
                                      the generator) and prints query Q's rows
                                      as JSON lines, then {"parsed": P,
                                      "unparsed": U, "badtime": T}
  logformats.py check GOT WANT        dmap's --output csv rows in GOT against
                                      the oracle's (or DuckDB's) JSON lines in
                                      WANT: the same rows, numbers within 1e-6

Formats: logfmt, nginx, apache, syslog (oracle here), tsv, csvnoheader, json,
k8s (generated here, DuckDB is their oracle). The lines are what the formats
meet in the wild: quoted values with spaces and escaped quotes, missing
fields, IPv6 addresses, very long user agents, bad lines, bad times.
Zoneless times are at the host's offset (time.localtime().tm_gmtoff) and
RFC 3164's year is inferred against now, as docs/log-formats.md says.
"""
import csv
import datetime as dt
import io
import json
import math
import random
import re
import sys
import time

UTC = dt.timezone.utc
BASE = dt.datetime(2024, 5, 1, 10, 0, 0, tzinfo=UTC)

# --------------------------------------------------------------- generators


def long_agent(r):
    parts = ["Mozilla/5.0 (X11; Linux x86_64)", "AppleWebKit/537.36 (KHTML, like Gecko)",
             "Chrome/124.0 Safari/537.36", "Edg/124.0", "(compatible; bot/2.1; +http://x.y/z)"]
    return " ".join(r.choice(parts) for _ in range(r.randint(20, 120)))


def gen_access(r, n, apache):
    users = ["-", "-", "-", "frank", "alice"]
    methods = ["GET", "GET", "GET", "POST", "PUT", "DELETE", "HEAD"]
    paths = ["/", "/index.html", "/api/v1/items?id=7&x=1", "/search?q=\\x22hi\\x22",
             "/a%20b", "/login"]
    statuses = ["200", "200", "200", "301", "304", "404", "500", "503"]
    agents = ["curl/8.5.0", "Mozilla/4.08 [en] (Win98; I ;Nav)",
              "say \\\"hi\\\" agent", "Wget/1.21 \\x22q\\x22", "-"]
    zones = [("-0700", -7), ("+0000", 0), ("+0530", 5.5)]
    out = []
    for i in range(n):
        t = BASE + dt.timedelta(seconds=i * 7 + r.randint(0, 6))
        zs, zh = r.choice(zones)
        local = t + dt.timedelta(hours=zh)
        tl = local.strftime("%d/%b/%Y:%H:%M:%S ") + zs
        addr = r.choice(["192.168.%d.%d" % (r.randint(0, 9), r.randint(1, 254)),
                         "2001:db8::%x" % r.randint(1, 0xffff), "::1", "10.0.0.1"])
        req = "%s %s HTTP/%s" % (r.choice(methods), r.choice(paths), r.choice(["1.0", "1.1", "2.0"]))
        k = r.random()
        if k < 0.03:
            req = "\\x16\\x03\\x01\\x00\\xa5"          # TLS sent to a plain port
        elif k < 0.05:
            req = "-"
        size = str(r.randint(0, 50000)) if r.random() < 0.9 else ("-" if apache else "0")
        line = '%s - %s [%s] "%s" %s %s' % (addr, r.choice(users), tl, req, r.choice(statuses), size)
        k = r.random()
        if k < 0.1:
            pass                                       # common layout
        else:
            agent = long_agent(r) if r.random() < 0.05 else r.choice(agents)
            ref = r.choice(["-", "http://www.example.com/start.html", "https://x.y/?a=\\\"b\\\""])
            line += ' "%s" "%s"' % (ref, agent)
            if r.random() < 0.3:
                line += ' "10.%d.0.1, 10.0.0.2"' % r.randint(0, 9)
            if r.random() < 0.8:
                line += " %.3f" % (r.randint(0, 3000) / 1000)
        k = r.random()
        if k < 0.01:
            line = "garbage that is no access log line"
        elif k < 0.02:
            line = line[: r.randint(5, 40)]              # cut short
        elif k < 0.025:
            line = '%s - - [%s] "GET / HTTP/1.1" 2x0 12' % (addr, tl)      # no status
        elif k < 0.03:
            line = line.replace("[" + tl + "]", "[00/Xyz/2024:00:00:00 +0000]")   # bad time
        out.append(line)
    return out


def gen_logfmt(r, n):
    levels = ["info", "info", "info", "warn", "error", "debug"]
    users = ["bob", "alice", "carol", "dave"]
    msgs = ['"GET /a \\"q\\""', '"db down: retry in 5s"', "plain", '"caf\\u00e9 \\\\ ok"',
            '"x=1 y=2"', '""']
    out = []
    for i in range(n):
        t = BASE + dt.timedelta(seconds=i * 3 + r.randint(0, 2), milliseconds=r.randint(0, 999))
        pairs = []
        k = r.random()
        if k < 0.6:
            pairs.append("time=" + t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")
        elif k < 0.8:
            pairs.append("ts=%d" % int(t.timestamp() * 1000))
        elif k < 0.9:
            off = dt.timedelta(seconds=time.localtime().tm_gmtoff)
            pairs.append('time="%s"' % (t + off).strftime("%Y-%m-%d %H:%M:%S"))   # no zone
        elif k < 0.95:
            pairs.append("time=" + t.strftime("%Y-%m-%dT%H:%M:%S+00:00"))
        pairs.append("level=" + r.choice(levels))
        pairs.append("msg=" + r.choice(msgs))
        if r.random() < 0.9:
            pairs.append("user=" + r.choice(users))
        if r.random() < 0.85:
            pairs.append("took=%s" % r.choice(["%d" % r.randint(0, 900), "%.2f" % (r.random() * 50),
                                              "n/a"]))
        pairs.append("status=%d" % r.choice([200, 200, 404, 500]))
        if r.random() < 0.2:
            pairs.append("cached")
        r.shuffle(pairs)
        line = ("  " if r.random() < 0.1 else " ").join(pairs)
        k = r.random()
        if k < 0.01:
            line += ' note="unterminated'
        elif k < 0.02:
            line = "=oops " + line
        elif k < 0.025:
            line += ' bad"key=1'
        elif k < 0.03:
            line += ' quoted="x"y'
        elif k < 0.04:
            line = re.sub(r"^", "time=garbage ", line) if "time=" not in line and "ts=" not in line \
                else line.replace("time=", "time=20240501 ", 1).replace("ts=", "ts=abc", 1)
        out.append(line)
    return out


MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def gen_syslog(r, n):
    hosts = ["web1", "web2", "db-1.example.com", "10.0.0.9"]
    apps = ["sshd", "nginx", "cron", "kernel", "app"]
    now = dt.datetime.now(UTC)
    # RFC 3164 times: 20 to 40 days ago, so the inferred year is never near
    # its 7-day edge; RFC 5424 ones: around BASE.
    start = now - dt.timedelta(days=40)
    out = []
    for i in range(n):
        pri = r.choice([13, 14, 34, 38, 86, 165, 182, 191, 0, 3])
        k = r.random()
        msg = r.choice(["Accepted publickey for root from 10.0.0.1 port 22", "session opened",
                        "GET /x 200", "[x] bracket first", "disk 91% full", ""])
        if k < 0.5:
            t = BASE + dt.timedelta(seconds=i * 5, microseconds=r.randint(0, 999999))
            ts = t.strftime("%Y-%m-%dT%H:%M:%S.%f") + r.choice(["Z", "+00:00"])
            if r.random() < 0.05:
                ts = "-"
            sd = r.choice(["-", '[ex@32473 n="%d" who="a \\"b\\" \\]c"]' % r.randint(0, 99),
                           '[ex@32473 n="%d"][meta@1 seq="%d"]' % (r.randint(0, 99), i),
                           '[timeQuality tzKnown="1"]'])
            line = "<%d>1 %s %s %s %s %s %s" % (pri, ts, r.choice(hosts), r.choice(apps + ["-"]),
                                                r.choice(["-", str(r.randint(1, 9999))]),
                                                r.choice(["-", "ID47", "AUTH"]), sd)
            if msg or r.random() < 0.5:
                line += " " + ("\ufeff" if r.random() < 0.1 else "") + msg
        else:
            t = start + dt.timedelta(days=i * 20 / n, seconds=r.randint(0, 3600))
            off = dt.timedelta(seconds=time.localtime().tm_gmtoff)
            lt = t + off
            stamp = "%s %2d %s" % (MONTHS[lt.month - 1], lt.day, lt.strftime("%H:%M:%S"))
            if r.random() < 0.1:
                stamp = (t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "+00:00")
            tag = r.choice(["%s[%d]:" % (r.choice(apps), r.randint(1, 999)), "%s:" % r.choice(apps),
                            ""])
            head = ("<%d>" % pri) if r.random() < 0.7 else ""
            line = "%s%s %s %s%s" % (head, stamp, r.choice(hosts), tag + " " if tag else "", msg)
            line = line.rstrip(" ") if not msg else line
        k = r.random()
        if k < 0.01:
            line = "<999>" + line.split(">", 1)[-1]
        elif k < 0.02:
            line = "no syslog line at all"
        elif k < 0.025:
            line = "<13>1 - - - -"
        elif k < 0.03:
            line = '<13>1 - h a - - [ex@1 n="unterminated] m'
        elif k < 0.035:
            line = "<34>Feb 30 10:00:00 web1 app: no such day"       # a bad time
        out.append(line)
    return out


def gen_tsv(r, n):
    out = ["time\tuser\tstatus\tbytes\tlat\tmsg"]
    users = ["bob", "alice", "carol", "", "d\u00e9j\u00e0"]
    for i in range(n):
        t = BASE + dt.timedelta(seconds=i * 4 + r.randint(0, 3))
        f = [t.strftime("%Y-%m-%dT%H:%M:%SZ") if r.random() < 0.97 else "soon", r.choice(users),
             str(r.choice([200, 404, 500])), str(r.randint(0, 90000)),
             r.choice(["%.3f" % r.random(), "-", "12"]),
             r.choice(["ok", "has\\ttab", "two words", "say \"hi\"", ""])]
        k = r.random()
        if k < 0.05:
            f = f[:r.randint(1, 5)]                          # missing fields
        elif k < 0.07:
            f = f + ["extra"]                                # too many: an error
        out.append("\t".join(f))
    return out


def gen_csvnoheader(r, n):
    out = []
    for i in range(n):
        f = [r.choice(["bob", "alice", '"smith, john"', '"say ""hi"""', ""]),
             str(r.choice([200, 404, 500])), str(r.randint(0, 5000)),
             r.choice(["%.2f" % (r.random() * 10), "x", ""])]
        k = r.random()
        if k < 0.05:
            f = f[:r.randint(1, 3)]
        elif k < 0.08:
            f = f + ["e1", "e2"]                               # more columns: fine
        elif k < 0.1:
            f[0] = '"x"y'                                      # text after a quote: an error
        if f == [""]:
            f.append("")     # an empty line is one empty value, and DuckDB skips it
        out.append(",".join(f))
    return out


# logformat pattern: a custom nginx log_format (what logformats.sh passes).
PATTERN = ('$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
           '"$http_referer" "$http_user_agent" rt=$request_time uct="${upstream_connect_time}"')


def gen_pattern(r, n):
    """Lines of PATTERN: from the access lines' pools, then broken ones."""
    out = []
    agents = ["curl/8.5.0", "say \\\"hi\\\" agent", "Wget/1.21 \\x22q\\x22", "-"]
    for i in range(n):
        t = BASE + dt.timedelta(seconds=i * 5 + r.randint(0, 4))
        zs, zh = r.choice([("-0700", -7), ("+0000", 0), ("+0530", 5.5)])
        tl = (t + dt.timedelta(hours=zh)).strftime("%d/%b/%Y:%H:%M:%S ") + zs
        addr = r.choice(["192.168.%d.%d" % (r.randint(0, 9), r.randint(1, 254)),
                         "2001:db8::%x" % r.randint(1, 0xffff), "::1"])
        req = "%s %s HTTP/1.1" % (r.choice(["GET", "POST"]), r.choice(["/", "/a b", "/q?x=\\x22"]))
        agent = long_agent(r) if r.random() < 0.03 else r.choice(agents)
        line = '%s - %s [%s] "%s" %s %s "%s" "%s" rt=%s uct="%s"' % (
            addr, r.choice(["-", "frank", "al ice"]), tl, req, r.choice(["200", "404", "500"]),
            r.randint(0, 9000), r.choice(["-", "http://x/?a=\\\"b\\\""]), agent,
            r.choice(["%.3f" % r.random(), "-"]), r.choice(["0.001", "-", "0.002, 0.004"]))
        k = r.random()
        if k < 0.01:
            line = "garbage that is no access log line"
        elif k < 0.02:
            line = line[: r.randint(5, 60)]                    # cut short
        elif k < 0.03:
            line = line.replace("[" + tl + "]", "[00/Xyz/2024:00:00:00 +0000]")   # bad time
        elif k < 0.035:
            line += " trailing"                                # text after the pattern: an error
        out.append(line)
    return out


# logformat csv delimiter ";" timeformat TIMEFORMAT
TIMEFORMAT = "%d.%m.%Y %H:%M:%S"


def gen_csvsemi(r, n):
    out = ["ts;user;bytes;lat;msg"]
    for i in range(n):
        t = BASE + dt.timedelta(seconds=i * 4 + r.randint(0, 3))
        f = [t.strftime("%d.%m.%Y %H:%M:%S") if r.random() < 0.97 else r.choice(["soon", "31.04.2024 10:00:00"]),
             r.choice(["bob", "alice", '"smith; john"', '"say ""hi"""', ""]),
             str(r.randint(0, 5000)), r.choice(["%.2f" % (r.random() * 10), "x", ""]),
             r.choice(["ok", "a,b", "two words"])]
        k = r.random()
        if k < 0.03:
            f = f + ["extra"]                                  # too many: an error
        out.append(";".join(f))
    return out


def gen_inner(r, i, t):
    obj = {"level": r.choice(["info", "info", "warn", "error", "debug"]),
           "msg": r.choice(["hello", 'say "hi"', "caf\u00e9", "a\\b", "tab\there"]),
           "req": {"ms": r.choice([r.randint(0, 900), round(r.random() * 100, 3), "slow"]),
                   "user": {"id": r.randint(1, 20)}},
           "tags": r.sample(["a", "b", "c", "d"], r.randint(0, 3))}
    if r.random() < 0.1:
        del obj["req"]
    if t is not None:
        obj["time"] = t
    return obj


def gen_json(r, n):
    out = []
    for i in range(n):
        t = BASE + dt.timedelta(seconds=i * 3, milliseconds=r.randint(0, 999))
        k = r.random()
        tv = t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z" if k < 0.97 else "soon"
        obj = gen_inner(r, i, tv)
        line = json.dumps(obj, ensure_ascii=r.random() < 0.5)
        k = r.random()
        if k < 0.01:
            line = line[: len(line) // 2]
        elif k < 0.02:
            line = "not json"
        out.append(line)
    return out


def gen_k8s(r, n):
    out = []
    for i in range(n):
        t = BASE + dt.timedelta(seconds=i * 3, microseconds=r.randint(0, 999999))
        inner = json.dumps(gen_inner(r, i, None), ensure_ascii=r.random() < 0.5)
        k = r.random()
        if k < 0.03:
            inner = "plain text from a container"
        log = inner + "\n"
        tv = t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "123Z" if r.random() < 0.98 else "later"
        line = json.dumps({"log": log, "stream": r.choice(["stdout", "stdout", "stderr"]),
                           "time": tv})
        k = r.random()
        if k < 0.01:
            line = line[:-5]
        elif k < 0.02:
            line = "no json"
        out.append(line)
    return out


def gen(fmt, path):
    r = random.Random(sum(map(ord, fmt)))
    n = 3000
    lines = {"nginx": lambda: gen_access(r, n, False), "apache": lambda: gen_access(r, n, True),
             "logfmt": lambda: gen_logfmt(r, n), "syslog": lambda: gen_syslog(r, n),
             "tsv": lambda: gen_tsv(r, n), "csvnoheader": lambda: gen_csvnoheader(r, n),
             "json": lambda: gen_json(r, n), "k8s": lambda: gen_k8s(r, n),
             "pattern": lambda: gen_pattern(r, n), "csvsemi": lambda: gen_csvsemi(r, n)}[fmt]()
    with open(path, "w", encoding="utf-8", newline="") as f:
        for line in lines:
            f.write(line + "\n")


# ------------------------------------------------------------------ oracle
#
# Each parser reads one line (trimmed of ASCII space) into a dict of fields,
# or None when the format rejects it.

ESCAPES = {'"': '"', "\\": "\\", "/": "/", "]": "]", "n": "\n", "r": "\r", "t": "\t",
           "b": "\b", "f": "\f"}


def unescape(s):
    """Backslash escapes of quoted values, as docs/log-formats.md lists them."""
    out, i = bytearray(), 0
    b = s.encode("utf-8", "surrogateescape")
    while i < len(b):
        c = chr(b[i])
        if c != "\\" or i + 1 >= len(b):
            out.append(b[i])
            i += 1
            continue
        e = chr(b[i + 1])
        if e in ESCAPES:
            out += ESCAPES[e].encode()
            i += 2
        elif e == "x" and re.fullmatch(rb"[0-9a-fA-F]{2}", b[i + 2:i + 4] or b""):
            out.append(int(b[i + 2:i + 4], 16))
            i += 4
        elif e == "u" and re.fullmatch(rb"[0-9a-fA-F]{4}", b[i + 2:i + 6] or b""):
            out += chr(int(b[i + 2:i + 6], 16)).encode("utf-8", "surrogatepass")
            i += 6
        else:
            out.append(b[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def host_offset():
    return dt.timedelta(seconds=time.localtime().tm_gmtoff)


def iso_instant(s, now):
    """A timestamp as an aware datetime, or None (the forms of logtime.h
    that the test data uses)."""
    s = s.strip()
    try:
        if re.fullmatch(r"\d{12,14}", s):
            return dt.datetime.fromtimestamp(int(s) / 1000, UTC)
        if re.fullmatch(r"\d{9,11}", s):
            return dt.datetime.fromtimestamp(int(s), UTC)
        m = re.fullmatch(r"(\d\d)/([A-Z][a-z]{2})/(\d{4}):(\d\d):(\d\d):(\d\d) ([+-]\d{4})", s)
        if m:
            return dt.datetime.strptime(s, "%d/%b/%Y:%H:%M:%S %z")
        m = re.fullmatch(r"([A-Z][a-z]{2}) ([ \d]\d) (\d\d):(\d\d):(\d\d)", s)
        if m:
            if m.group(1) not in MONTHS:
                return None
            off = host_offset()
            year = (now + off).year
            for k in range(8):
                try:
                    t = dt.datetime(year - k, MONTHS.index(m.group(1)) + 1, int(m.group(2)),
                                    int(m.group(3)), int(m.group(4)), int(m.group(5)),
                                    tzinfo=dt.timezone(off))
                except ValueError:
                    continue
                if k == 0 and t > now + dt.timedelta(days=7):
                    continue
                return t
            return None
        m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?"
                         r"(Z|[+-]\d\d:?\d\d)?", s)
        if m:
            frac = (m.group(7) or "")[:6].ljust(6, "0")
            z = m.group(8)
            tz = dt.timezone(host_offset()) if not z else UTC if z == "Z" else \
                dt.timezone((1 if z[0] == "+" else -1) *
                            dt.timedelta(hours=int(z[1:3]), minutes=int(z[-2:])))
            return dt.datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                               int(m.group(5)), int(m.group(6)), int(frac), tzinfo=tz)
    except ValueError:
        return None
    return None


def p_logfmt(line):
    f, i, n = {}, 0, len(line)
    while i < n:
        while i < n and line[i] == " ":
            i += 1
        if i >= n:
            break
        m = re.compile(r'[^ ="]*').match(line, i)
        key, i = m.group(0), m.end()
        if (i < n and line[i] == '"') or not key:
            return None
        if i >= n or line[i] == " ":
            f[key] = "true"
            continue
        i += 1
        if i < n and line[i] == '"':
            m = re.compile(r'"((?:[^"\\]|\\.)*)"').match(line, i)
            if not m or (m.end() < n and line[m.end()] != " "):
                return None
            f[key] = unescape(m.group(1)) if "\\" in m.group(1) else m.group(1)
            i = m.end()
        else:
            m = re.compile(r"[^ ]*").match(line, i)
            f[key], i = m.group(0), m.end()
    return f


QUOTED = r'"((?:[^"\\]|\\.)*)"'


def p_access(line):
    m = re.fullmatch(r"([^ ]+) [^ ]* ([^ ]*) \[([^\]]*)\] " + QUOTED + r" ([1-9]\d\d) (\d+|-)(.*)",
                     line)
    if not m:
        return None
    f = {"$remote_addr": m.group(1), "$remote_user": m.group(2), "$time_local": m.group(3),
         "$status": m.group(5), "$body_bytes_sent": "0" if m.group(6) == "-" else m.group(6)}
    req = unescape(m.group(4))
    f["$request"] = req
    if " " in req:
        f["$method"], rest = req.split(" ", 1)
        head, _, proto = rest.rpartition(" ")
        if _ and proto.startswith("HTTP/"):
            f["$protocol"], rest = proto, head
        f["$path"] = rest
    rest, k = m.group(7), 0
    while rest:
        mm = re.match(r" +(?:" + QUOTED + r"|([^ ]*))", rest)
        if not mm:
            return None
        rest = rest[mm.end():]
        if mm.group(0).strip() == "":
            break
        quoted = mm.group(1) is not None
        if not quoted and mm.group(2).startswith('"'):
            return None                               # a quote not closed
        if k < 2 and not quoted:
            return None
        v = unescape(mm.group(1)) if quoted else mm.group(2)
        if k < 2:
            f["$http_user_agent" if k else "$http_referer"] = v
        elif quoted:
            f.setdefault("$http_x_forwarded_for", v)
        elif re.fullmatch(r"\d*\.?\d*", v) and re.search(r"\d", v):
            f.setdefault("$request_time", v)
        k += 1
    f["@time"] = f["$time_local"]
    return f


FAC = ["kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
       "authpriv", "ftp", "ntp", "audit", "alert", "clock"] + ["local%d" % k for k in range(8)]
SEV = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"]


def p_syslog(line):
    f = {}
    m = re.match(r"<(\d{1,3})>", line)
    if line.startswith("<"):
        if not m or int(m.group(1)) > 191 or (m.group(1).startswith("0") and len(m.group(1)) > 1):
            return None
        pri = int(m.group(1))
        f.update({"$priority": m.group(1), "$facility": FAC[pri // 8], "$severity": SEV[pri % 8]})
        rest = line[m.end():]
        v = re.match(r"([1-9]\d{0,2}) ", rest)
        if v:
            rest = rest[v.end():]
            parts = rest.split(" ", 5)
            if len(parts) < 6 or not all(parts[:5]):
                return None
            for name, val in zip(["$timestamp", "$host", "$app", "$pid", "$msgid"], parts[:5]):
                if val != "-":
                    f[name] = val
            sd = parts[5]
            if sd.startswith("-"):
                tail = sd[1:]
            else:
                el = re.match(r'(?:\[[^ \]="]+(?: [^ \]="]+="(?:[^"\\]|\\.)*")*\])+', sd)
                if not el:
                    return None
                f["$sd"] = el.group(0)
                for e in re.finditer(r'\[([^ \]="]+)((?: [^ \]="]+="(?:[^"\\]|\\.)*")*)\]', el.group(0)):
                    for p in re.finditer(r' ([^ \]="]+)="((?:[^"\\]|\\.)*)"', e.group(2)):
                        f[e.group(1) + "." + p.group(1)] = unescape(p.group(2))
                tail = sd[el.end():]
            if tail:
                if tail[0] != " ":
                    return None
                msg = tail[1:]
                f["$message"] = msg[1:] if msg.startswith("\ufeff") else msg
            f["@time"] = f.get("$timestamp")
            return f
        line = rest
    m = re.match(r"((?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d)(?: |$)", line)
    if m:
        f["$timestamp"] = m.group(1)
        rest = line[m.end():]
    else:
        m = re.match(r"(\d[^ ]{3}-[^ ]*) ", line) if len(line) >= 10 else None
        if not m:
            return None
        f["$timestamp"] = m.group(1)
        rest = line[m.end():]
    m = re.match(r"([^ ]+)(?: |$)", rest)
    if not m:
        return None
    f["$host"] = m.group(1)
    rest = rest[m.end():]
    tag = rest.split(" ", 1)[0]
    if tag.endswith(":") and tag:
        t = tag[:-1]
        tm = re.fullmatch(r"([^\[]*)\[(.*)\]", t)
        if tm:
            f["$app"], f["$pid"] = tm.group(1), tm.group(2)
        else:
            f["$app"] = t
        rest = rest[len(tag) + 1:] if len(rest) > len(tag) else ""
    f["$message"] = rest[1:] if rest.startswith("\ufeff") else rest
    f["@time"] = f["$timestamp"]
    return f


def pattern_items(pattern):
    """PATTERN as [(is_field, text)]: nginx $name and ${name} only."""
    items, i = [], 0
    for m in re.finditer(r"\$(\w+)|\$\{(\w+)\}", pattern):
        if m.start() > i:
            items.append((False, pattern[i:m.start()]))
        items.append((True, "$" + (m.group(1) or m.group(2))))
        i = m.end()
    if i < len(pattern):
        items.append((False, pattern[i:]))
    return items


def p_pattern(line):
    """docs/log-formats.md's rule: literals where the pattern has them, a
    field up to the first place the next literal occurs (a field between
    two quotes: to the first unescaped quote, unescaped), the last to the
    end."""
    items, f, pos = pattern_items(PATTERN), {}, 0
    for k, (field, text) in enumerate(items):
        if not field:
            if not line.startswith(text, pos):
                return None
            pos += len(text)
            continue
        quoted = 0 < k < len(items) - 1 and items[k - 1][1].endswith('"') and \
            items[k + 1][1].startswith('"')
        if k == len(items) - 1:
            end = len(line)
        elif quoted:
            m = re.match(r'(?:[^"\\]|\\.)*', line[pos:])
            end = pos + m.end()
            if end >= len(line):
                return None
        else:
            end = line.find(items[k + 1][1], pos)
            if end < 0:
                return None
        f[text] = unescape(line[pos:end]) if quoted else line[pos:end]
        pos = end
    if pos != len(line):
        return None
    f["@time"] = f.get("$time_local")
    return f


PARSERS = {"logfmt": p_logfmt, "nginx": p_access, "apache": p_access, "syslog": p_syslog,
           "pattern": p_pattern}


def fields_time(fmt, f, now):
    """$time's source of parsed line f: the instant, None (no source) or
    False (a source that is no timestamp)."""
    if fmt == "logfmt":
        src = next((f[k] for k in ("time", "ts", "timestamp") if k in f), None)
    else:
        src = f.get("@time")
    if src is None:
        return None
    t = iso_instant(src, now)
    return t if t is not None else False


def utc_iso(t, frac=False):
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def bucket(t, width):
    s = int(t.timestamp()) // width * width
    return dt.datetime.fromtimestamp(s, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def num(v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) or v.strip().lower() in ("nan", "inf", "-inf", "+inf") else x


# Queries: (keys, aggregates); a key is a field name or ("bucket", width);
# an aggregate is ("count",) or (fn, field).
QUERIES = {
    "logfmt": {
        "level": (["level"], [("count",), ("sum", "took"), ("avg", "took"), ("max", "took")]),
        "minute": ([("bucket", 60)], [("count",)]),
        "user": (["user", "status"], [("count",), ("min", "took")]),
    },
    "nginx": {
        "status": (["$status"], [("count",), ("sum", "$body_bytes_sent"), ("avg", "$request_time"),
                                 ("max", "$request_time")]),
        "bucket": ([("bucket", 300)], [("count",), ("sum", "$body_bytes_sent")]),
        "method": (["$method", "$http_x_forwarded_for"], [("count",), ("max", "$body_bytes_sent")]),
    },
    "syslog": {
        "severity": (["$severity", "$facility"], [("count",)]),
        "host": (["$host", "$app"], [("count",), ("sum", "ex@32473.n"), ("max", "$pid")]),
        "bucket": ([("bucket", 600)], [("count",)]),
    },
}
QUERIES["apache"] = QUERIES["nginx"]
QUERIES["pattern"] = {
    "status": (["$status"], [("count",), ("sum", "$body_bytes_sent"), ("avg", "$request_time"),
                             ("max", "$request_time")]),
    "bucket": ([("bucket", 300)], [("count",), ("sum", "$body_bytes_sent")]),
    "user": (["$remote_user", "$upstream_connect_time"], [("count",), ("min", "$body_bytes_sent")]),
}


def oracle(fmt, path, qname):
    now = dt.datetime.now(UTC)
    keys, aggs = QUERIES[fmt][qname]
    groups, parsed, unparsed, badtime = {}, 0, 0, 0
    with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
        for raw in fh:
            line = raw.rstrip("\n").strip(" \t\r\v\f")
            f = PARSERS[fmt](line)
            if f is None:
                unparsed += 1
                continue
            parsed += 1
            t = fields_time(fmt, f, now)
            badtime += t is False
            key = []
            for k in keys:
                if isinstance(k, tuple):
                    key.append(bucket(t, k[1]) if t else "")
                else:
                    key.append(f.get(k, ""))
            g = groups.setdefault(tuple(key), [[] for _ in aggs])
            for a, vals in zip(aggs, g):
                if a[0] == "count":
                    vals.append(1)
                else:
                    x = num(f.get(a[1]))
                    if x is not None:
                        vals.append(x)
    for key in sorted(groups):
        row = list(key)
        for a, vals in zip(aggs, groups[key]):
            if a[0] == "count":
                row.append(len(vals))
            elif not vals:
                row.append(None)
            else:
                row.append({"sum": sum(vals), "avg": sum(vals) / len(vals), "max": max(vals),
                            "min": min(vals)}[a[0]])
        print(json.dumps(row))
    print(json.dumps({"parsed": parsed, "unparsed": unparsed, "badtime": badtime}))


# ------------------------------------------------------------------- check


def check(got_path, want_path, n_keys):
    """The first n_keys columns are the group key, compared as text (an
    empty field is a missing value); the others numerically."""
    with open(got_path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        got = list(csv.reader(fh, strict=True))[1:]
    want = []
    with open(want_path, encoding="utf-8", errors="surrogateescape") as fh:
        for line in fh:
            v = json.loads(line)
            if isinstance(v, dict):
                if "parsed" in v:
                    continue
                v = list(v.values())
            want.append(v)

    def text(v):
        return "" if v is None else str(v)

    def row_key(r):
        return [text(v) for v in r[:n_keys]]

    g = sorted(got, key=row_key)
    w = sorted(want, key=row_key)
    bad = 0
    if len(g) != len(w):
        print("check: %d rows, want %d" % (len(g), len(w)), file=sys.stderr)
        bad += 1
    for a, b in zip(g, w):
        same = len(a) == len(b) and row_key(a) == row_key(b)
        for x, y in zip(a[n_keys:], b[n_keys:]):
            if y is None or y == "":
                same &= x == ""
            else:
                xv = num(x)
                same &= xv is not None and abs(xv - float(y)) <= 1e-6 * max(1.0, abs(float(y)))
        if not same:
            bad += 1
            if bad <= 5:
                print("check: row %r, want %r" % (a, b), file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2], sys.argv[3])
    elif cmd == "oracle":
        oracle(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "pattern":
        print(PATTERN)
    elif cmd == "timeformat":
        print(TIMEFORMAT)
    elif cmd == "check":
        check(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit("usage: logformats.py gen|oracle|check ...")
