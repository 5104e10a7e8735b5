#!/usr/bin/env python3
"""kexinit_at_once.py HOST PORT KEX HOSTKEYS CIPHER MAC: an SSH client that
waits for the server's identification line, then sends its own and its
KEXINIT (offering only the algorithms given, comma-separated) in one write,
and reads until the server hangs up (at most 20 s). Prints what it read
from the server after the identification line, as a byte count.

OpenSSH sends its KEXINIT only once it has the server's identification, so
when the server's line was out first (a client that was slow to start) the
two arrive in one segment; this client makes that order certain, for the
dserver test that the refusal of such a client still names the algorithm."""
import os
import socket
import struct
import sys
import time


def name_list(s):
    b = s.encode()
    return struct.pack(">I", len(b)) + b


def kexinit(kex, hostkeys, cipher, mac):
    payload = bytes([20]) + os.urandom(16)
    for s in (kex, hostkeys, cipher, cipher, mac, mac, "none", "none", "", ""):
        payload += name_list(s)
    payload += b"\0" + struct.pack(">I", 0)
    # RFC 4253 6: 4 to 255 bytes of padding, the whole a multiple of 8.
    pad = 8 - (5 + len(payload)) % 8
    if pad < 4:
        pad += 8
    return struct.pack(">IB", 1 + len(payload) + pad, pad) + payload + os.urandom(pad)


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    kex, hostkeys, cipher, mac = sys.argv[3:7]
    s = socket.create_connection((host, port), timeout=20)
    got = b""
    while b"\n" not in got:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("the server closed before its identification line")
        got += chunk
    rest = got[got.index(b"\n") + 1:]
    s.sendall(b"SSH-2.0-kexinit_at_once\r\n" + kexinit(kex, hostkeys, cipher, mac))
    end = time.monotonic() + 20
    while time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        rest += chunk
    print("read %d" % len(rest))


if __name__ == "__main__":
    main()
