"""The app's own body read has one deadline for the whole body (deployments without the proxy).

Finding (issue 22, item 6): the body timeout was a socket timeout, renewed by every byte, so a
body sent one byte every 4 s never hit the 10 s limit and held a gunicorn thread for as long
as the client liked. `secured` runs with limits.body_timeout_seconds = 3.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

BODY = b'{"query": "What triggers error code E4027?", "now": "2025-07-01", "trace": "none"}'


def test_a_body_dripped_one_byte_a_second_gets_408_at_the_whole_body_deadline(secured):
    parts = urlsplit(secured.live.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    started = time.monotonic()
    reply = b""
    try:
        sock.sendall(b"POST /rag HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % len(BODY))
        sock.settimeout(1.0)
        for byte in BODY[:12]:  # 12 s of drip, each byte well inside the 3 s per-read timeout
            try:
                sock.sendall(bytes([byte]))
                reply = sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:  # the server closed its side
                break
            if reply:
                break
        closed_after = time.monotonic() - started
        sock.settimeout(5.0)
        while reply and b"request_timeout" not in reply and (more := sock.recv(65536)):  # the JSON body
            reply += more
    finally:
        sock.close()
    assert reply.startswith(b"HTTP/1.1 408"), (reply[:200], f"{closed_after:.1f} s")
    assert b"request_timeout" in reply and b"within 3 s" in reply
    assert closed_after < 5.0, f"408 after {closed_after:.1f} s; the deadline is 3 s"
