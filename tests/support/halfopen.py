#!/usr/bin/env python3
"""halfopen.py HOST PORT N SECONDS [SOURCE]: holds N TCP connections to an SSH server
that never say anything, and opens a new one for each the server drops,
until SECONDS have passed (or it is killed). Prints "holding N" once N are
open, and at the end "reconnects R" (how many the server dropped).
With SOURCE the sockets are bound to that local address first (e.g.
127.0.0.2, an attacker at another address than the clients).
For the dserver hardening tests: an attacker renewing half-open sockets."""
import selectors
import socket
import sys
import time


def main():
    host, port, n, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    source = sys.argv[5] if len(sys.argv) > 5 else None
    sel = selectors.DefaultSelector()
    reconnects = 0

    def connect():
        while True:
            s = socket.socket()
            try:
                if source:
                    s.bind((source, 0))
                s.connect((host, port))
            except OSError:
                s.close()
                time.sleep(0.01)
                continue
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            return

    for _ in range(n):
        connect()
    print("holding %d" % n, flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            try:
                data = s.recv(4096)   # the server's banner, then its close
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
                reconnects += 1
                connect()
    print("reconnects %d" % reconnects, flush=True)


if __name__ == "__main__":
    main()
