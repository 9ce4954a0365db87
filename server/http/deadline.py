"""One deadline for reading a whole request body from a client socket.

A socket timeout bounds one read: a client that sends a byte every few seconds renews it
forever (a body dripped one byte every 4 s held a gunicorn thread past the 10 s limit).
`BodyDeadline` keeps the socket timeout as the bound on each read and adds a timer that shuts
the socket's read side when the whole body is due: the read in progress returns at once (end
of stream), the caller sees `expired` and answers 408 on the still-open write side.
"""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class BodyDeadline:
    """A context manager: reads of `sock` inside it end `seconds` after it was entered.

    Args:
        sock: the client connection (None: no socket to bound, e.g. a test client; nothing is done).
        seconds: the time the whole body may take.

    Promises: `expired` is True exactly when the deadline cut the reading short; on exit the
    timer is cancelled and the socket is back to blocking reads, so a body that arrived in
    time leaves the connection usable (keep-alive) and an expired one is never read again.
    """

    def __init__(self, sock: socket.socket | None, seconds: float) -> None:
        self.sock = sock
        self.seconds = seconds
        self.expired = False
        self._done = False
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> BodyDeadline:
        if self.sock is not None:
            self.sock.settimeout(self.seconds)  # no single read outlives the deadline either
            self._timer = threading.Timer(self.seconds, self._expire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        with self._lock:
            self._done = True
        if self._timer is not None:
            self._timer.cancel()
        if self.sock is not None:
            try:
                self.sock.settimeout(None)
            except OSError:  # the client is gone; nothing left to restore
                pass

    def _expire(self) -> None:
        """At the deadline, unless the body is read: shut the read side (a blocked read returns)."""
        with self._lock:
            if self._done:
                return
            self.expired = True
        try:
            assert self.sock is not None  # the timer only runs with a socket
            self.sock.shutdown(socket.SHUT_RD)
        except OSError:  # already closed by the client
            pass
