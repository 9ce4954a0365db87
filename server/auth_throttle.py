"""Slows down a client address that keeps failing authentication (the admin token).

Each address may fail `free` times in a row; every further failure locks it out for twice as
long as the last (`base_seconds`, 2x, 4x, ... up to `max_seconds`). While locked out, its
requests are refused with 429 and Retry-After before the token is even compared, so guessing
costs the guesser time, not the service. A success clears the address. The state is one
process's (each gunicorn worker keeps its own), bounded to `max_clients` addresses, oldest
forgotten first; an address quiet for `forget_seconds` starts again from zero.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Record:
    failures: int = 0
    locked_until: float = 0.0
    last_seen: float = 0.0


class FailureThrottle:
    """Consecutive failures per client address, and the lock-out they earn.

    Args:
        free: failures in a row allowed before the first lock-out.
        base_seconds: the first lock-out; each further failure doubles it.
        max_seconds: the longest lock-out.
        forget_seconds: an address with no attempt for this long is forgotten.
        max_clients: addresses remembered at most (memory bound under a spray of addresses).
        clock: monotonic seconds (tests inject one).
    """

    def __init__(self, free: int = 5, base_seconds: float = 1.0, max_seconds: float = 300.0,
                 forget_seconds: float = 900.0, max_clients: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free, self.base_seconds, self.max_seconds = free, base_seconds, max_seconds
        self.forget_seconds, self.max_clients, self.clock = forget_seconds, max_clients, clock
        self._records: OrderedDict[str, _Record] = OrderedDict()
        self._lock = threading.Lock()

    def retry_after(self, client: str) -> int:
        """Whole seconds `client` must wait before its next attempt counts (0: it may try now)."""
        with self._lock:
            record = self._current(client)
            if record is None:
                return 0
            wait = record.locked_until - self.clock()
            return math.ceil(wait) if wait > 0 else 0

    def failed(self, client: str) -> int:
        """Record a failed attempt; the lock-out it earns in whole seconds (0 while still free)."""
        with self._lock:
            now = self.clock()
            record = self._current(client) or _Record()
            record.failures += 1
            record.last_seen = now
            over = record.failures - self.free
            lockout = 0.0 if over <= 0 else min(self.max_seconds, self.base_seconds * 2 ** (over - 1))
            record.locked_until = now + lockout
            self._records[client] = record
            self._records.move_to_end(client)
            while len(self._records) > self.max_clients:
                self._records.popitem(last=False)
            return math.ceil(lockout)

    def succeeded(self, client: str) -> None:
        """A correct token from `client`: its failures are forgotten."""
        with self._lock:
            self._records.pop(client, None)

    def _current(self, client: str) -> _Record | None:
        record = self._records.get(client)
        if record is not None and self.clock() - record.last_seen > self.forget_seconds:
            del self._records[client]
            return None
        return record
