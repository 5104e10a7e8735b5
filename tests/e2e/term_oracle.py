#!/usr/bin/env python3
"""term_oracle.py: the oracle of tests/e2e/term.sh, independent of the C
code (base/term.c): what a client writing to a terminal must show.

  term_oracle.py esc IN OUT     IN escaped as docs/dcat-dgrep.md "Terminal
                                safety" says (a block of whole lines)
  term_oracle.py tty IN OUT     a pty transcript with the line discipline's
                                CR before each newline taken out
  term_oracle.py strip IN OUT   IN without ESC [ digits;... m (SGR: paint)
"""
import re
import sys


def esc(b):
    out = bytearray()
    i, n = 0, len(b)
    while i < n:
        c = b[i]
        if c == 0x0D and i + 1 < n and b[i + 1] == 0x0A:
            out.append(c)   # CR ending a line
            i += 1
        elif c in (0x09, 0x0A) or 0x20 <= c < 0x7F:
            out.append(c)
            i += 1
        elif c < 0x20 or c == 0x7F:
            out += b"^" + bytes([0x3F if c == 0x7F else c + 0x40])
            i += 1
        else:
            size = 2 if 0xC2 <= c <= 0xDF else 3 if 0xE0 <= c <= 0xEF else 4 if 0xF0 <= c <= 0xF4 else 0
            ch = None
            if size and i + size <= n:
                try:
                    ch = b[i:i + size].decode("utf-8")   # strict: no overlongs, surrogates
                except UnicodeDecodeError:
                    ch = None
            if ch is None:
                out += b"<%02X>" % c
                i += 1
            elif 0x80 <= ord(ch) <= 0x9F:
                out += b"<U+%04X>" % ord(ch)
                i += size
            else:
                out += b[i:i + size]
                i += size
    return bytes(out)


def main():
    mode, src, dst = sys.argv[1:4]
    with open(src, "rb") as f:
        data = f.read()
    if mode == "esc":
        data = esc(data)
    elif mode == "tty":
        data = data.replace(b"\r\n", b"\n")
    elif mode == "strip":
        data = re.sub(rb"\x1b\[[0-9;]*m", b"", data)
    else:
        sys.exit("unknown mode " + mode)
    with open(dst, "wb") as f:
        f.write(data)


main()
