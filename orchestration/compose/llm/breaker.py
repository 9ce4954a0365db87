"""A circuit breaker in front of the LLM server: an outage costs N timeouts, not one per request.

States (the usual three):

    closed     every call goes to the model; `failures` consecutive failed calls open the circuit
    open       no call goes to the model until `retry_at` (`cooldown_seconds` after it opened):
               `call()` raises CircuitOpen at once and the composer answers extractively
    half_open  the cool-down is over: one call (the probe) goes to the model, concurrent ones are
               refused like in `open`; the probe's success closes the circuit, its failure opens
               it again for another cool-down

A failure is any UpstreamError a call raises (timeout, connection, HTTP 4xx/5xx, a body that is
not a chat completion); any reply that was read is a success (what the model wrote is
validation's business, not the breaker's).

Promises:
- One breaker per LLMComposer, so one per worker process: each gunicorn worker learns of an
  outage by itself (N timeouts per worker) and probes by itself.
- Thread-safe: a worker's connection threads share it; at most one probe is in flight.
- The clock is injected (monotonic seconds) so tests drive the state machine without sleeping;
  `describe()` also gives wall-clock times for /readyz.
- `listener(state, opened)` is told of every state change (`opened`: the change opened the
  circuit), so the server keeps its metrics without this module importing it.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from core.errors import CircuitOpen, UpstreamError

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"
STATES = (CLOSED, HALF_OPEN, OPEN)  # the metric's value is the index: 0 closed, 1 half open, 2 open
CIRCUIT_OPEN = "circuit_open"  # the fallback reason of a call the breaker did not let through (CircuitOpen)

T = TypeVar("T")
Listener = Callable[[str, bool], None]


class CircuitBreaker:
    """Counts consecutive failed LLM calls and stops calling for a cool-down after `failures` of them.

    Args:
        failures: consecutive failed calls that open the circuit (>= 1).
        cooldown_seconds: how long it stays open before one probe call is let through (> 0).
        clock: monotonic seconds (tests pass their own).
        wall: wall-clock seconds since the epoch, for the times /readyz shows.
    """

    def __init__(self, failures: int, cooldown_seconds: float, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time) -> None:
        self.failures = failures
        self.cooldown_seconds = cooldown_seconds
        self._clock, self._wall = clock, wall
        self._lock = threading.Lock()
        self.state = CLOSED
        self.consecutive_failures = 0
        self.opens = 0                         # times the circuit opened, since start
        self.last_failure: str | None = None   # the reason of the last failed call ("timeout", ...)
        self._opened_at: float | None = None   # clock time of the last opening
        self._probe_in_flight = False
        self.listener: Listener | None = None

    # --- the call -------------------------------------------------------------------------

    def call(self, send: Callable[[], T]) -> T:
        """`send()`'s result when the circuit lets the call through; its success or failure is counted.

        Raises:
            CircuitOpen: the circuit is open, or half open with its probe already in flight;
                `send` was not called. The message says why and when the model is tried again.
            UpstreamError: what `send` raised (counted as a failure).
        """
        probe = self._admit()
        try:
            result = send()
        except UpstreamError as exc:
            self._record(ok=False, reason=exc.reason, probe=probe)
            raise
        except BaseException:
            self._record(ok=False, reason="error", probe=probe)
            raise
        self._record(ok=True, reason=None, probe=probe)
        return result

    def _admit(self) -> bool:
        """Let a call through (True when it is the half-open probe) or raise CircuitOpen."""
        with self._lock:
            if self.state == OPEN and self._clock() >= self._retry_at():
                self._set(HALF_OPEN)
            if self.state == CLOSED:
                return False
            if self.state == HALF_OPEN and not self._probe_in_flight:
                self._probe_in_flight = True
                return True
            raise CircuitOpen(self._refusal())

    def _record(self, ok: bool, reason: str | None, probe: bool) -> None:
        """Count one finished call and move the state machine."""
        with self._lock:
            if probe:
                self._probe_in_flight = False
            if ok:
                self.consecutive_failures = 0
                if self.state != CLOSED:
                    self._set(CLOSED)
                return
            self.consecutive_failures += 1
            self.last_failure = reason
            if probe or (self.state == CLOSED and self.consecutive_failures >= self.failures):
                self._opened_at = self._clock()
                self.opens += 1
                self._set(OPEN, opened=True)

    def _set(self, state: str, opened: bool = False) -> None:
        self.state = state
        if self.listener is not None:
            self.listener(state, opened)

    # --- what it says -----------------------------------------------------------------------

    def _retry_at(self) -> float:
        return (self._opened_at or 0.0) + self.cooldown_seconds

    def _refusal(self) -> str:
        """Why a call was not made, for the fallback note and the response's composer detail."""
        if self.state == HALF_OPEN:
            return ("the LLM circuit is half open: one probe call to the model is in flight after "
                    f"{self.consecutive_failures} consecutive failures (last: {self.last_failure}); "
                    "the model was not called for this request")
        left = max(0.0, self._retry_at() - self._clock())
        return (f"the LLM circuit is open after {self.consecutive_failures} consecutive failed calls "
                f"(last: {self.last_failure}); the model is not called for {self.cooldown_seconds:g} s, "
                f"next try in {left:.1f} s")

    def describe(self) -> dict[str, Any]:
        """The breaker as /readyz shows it: state, consecutive failures, when it opened and when
        the model is tried again (ISO times, None while closed), the settings and opens so far."""
        with self._lock:
            state = self.state
            if state == OPEN and self._clock() >= self._retry_at():
                state = HALF_OPEN  # the next call is the probe
            opened = retry = None
            if state != CLOSED and self._opened_at is not None:
                offset = self._wall() - self._clock()
                opened = _iso(self._opened_at + offset)
                retry = _iso(self._retry_at() + offset)
            return {"state": state, "consecutive_failures": self.consecutive_failures,
                    "last_failure": self.last_failure, "opens_after_failures": self.failures, "opened_at": opened,
                    "retry_at": retry, "cooldown_seconds": self.cooldown_seconds, "opens": self.opens}


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="seconds")
