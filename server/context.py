"""The request context: when, who, and under which trace one request runs, built once in server/.

Every entry that answers a question (POST /rag, the chat API, `sightline ask`, the warm-up
questions, evaluation) builds one frozen `RequestContext` before anything runs, and every layer
reads its values from it: Perception, retrieval and validation get `context.now` as a plain
date (they never read the clock: tests/test_architecture.py), the retriever the caller's
groups, the trace its id, and what reads a finished answer (the response, /ui, MCP, batch,
OpenTelemetry) `AnswerResult.context`. So one request has one "today", even one that arrives a
moment before midnight UTC.
"""

from __future__ import annotations

import datetime as dt
import secrets
import time
from dataclasses import dataclass

from .callers import ANONYMOUS, Caller
from .profiles import DEFAULT_PROFILE
from .traceparent import TraceParent


def new_trace_id() -> str:
    """A new request's trace id: 32 hex digits, all 128 bits random.

    Not a uuid4's hex: a uuid4 fixes 6 of its bits, two of them the top of its low 64 bits, which
    OpenTelemetry's ratio sampler compares with its bound, so below a ratio of 0.5 it never
    sampled a request (server/traceparent.py uses the id as the OpenTelemetry trace id)."""
    return secrets.token_hex(16)


@dataclass(frozen=True)
class Arrival:
    """When a request arrived, on two clocks read at once.

    Attributes:
        wall_ns: the wall clock, nanoseconds since the epoch (UTC): the request's date, and
            where exported spans start.
        perf: `time.perf_counter()` then: the trace measures its stages and operations on
            this clock, so `wall_ns` places them in wall time.
    """

    wall_ns: int
    perf: float

    @classmethod
    def now(cls) -> Arrival:
        """The arrival of a request arriving now: the one place a request reads the clock."""
        return cls(time.time_ns(), time.perf_counter())

    @property
    def date(self) -> dt.date:
        """The UTC date of the arrival."""
        return dt.datetime.fromtimestamp(self.wall_ns / 1e9, dt.UTC).date()

    def wall_ns_at(self, perf: float) -> int:
        """The wall-clock time (ns since the epoch) of a `perf_counter()` reading of this process."""
        return self.wall_ns + round((perf - self.perf) * 1e9)


@dataclass(frozen=True)
class RequestContext:
    """One request's when, who and trace; frozen, so no layer can change what another reads.

    Attributes:
        now: the request's "today": relative times ("last quarter"), ages and freshness count
            from it. The request's own `now`, else the UTC date of its arrival.
        trace_id: the request's trace id (POST /rag's `trace_id`, the X-Request-ID header).
        arrival: when it arrived (wall clock and perf_counter).
        caller: who asks (never a key); its groups are the only ACL groups searched.
        trace_level: how much of the trace the reply shows: none, summary or full.
        profile: the answer profile (server/profiles.py): which composer answers.
        endpoint: the entry that asked: rag, chat, ask, mcp, batch, warm-up, eval, ...
        parent: the caller's span from a W3C `traceparent` header, None without one.
    """

    now: dt.date
    trace_id: str
    arrival: Arrival
    caller: Caller = ANONYMOUS
    trace_level: str = "full"
    profile: str = DEFAULT_PROFILE
    endpoint: str = "rag"
    parent: TraceParent | None = None

    @property
    def acl_groups(self) -> tuple[str, ...] | None:
        """The groups every search filters on: the caller's; None (no filter) for an unrestricted caller."""
        return self.caller.acl_groups

    @classmethod
    def create(cls, now: dt.date | None = None, *, caller: Caller = ANONYMOUS, trace_id: str | None = None,
               trace_level: str = "full", profile: str = DEFAULT_PROFILE, endpoint: str = "rag",
               parent: TraceParent | None = None, arrival: Arrival | None = None) -> RequestContext:
        """The context of a request.

        Args:
            now: the request's date; None: the UTC date of `arrival`.
            trace_id: None: a new one (`new_trace_id()`).
            arrival: None: now.
            The others: as the attributes.

        Promises: the clock is read at most once, and `now` is the arrival's date unless given.
        """
        arrival = arrival or Arrival.now()
        return cls(now=now or arrival.date, trace_id=trace_id or new_trace_id(), arrival=arrival,
                   caller=caller, trace_level=trace_level, profile=profile, endpoint=endpoint, parent=parent)
