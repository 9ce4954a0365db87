"""The trace: every operation of a request with its parameters, counts, decisions and time.

An operation records {op, stage, params, input_count, output_count, kept, rejected {id: reason},
ms, reason}. All operations of one request share the trace's `trace_id`. The stage is the one
the caller opened with `Trace.stage()` when the operation was recorded (perceive, route,
retrieve, compose, validate): operations carry their stage, so nothing maps names to stages,
and the stage's own wall time is kept in `Trace.stage_ms`.

Times are measured with `time.perf_counter()` from the trace's start (`Trace.started`): each
operation's `start_ms` and each stage entry (`Trace.stages`) say when it began, so the server can
draw a timeline or export spans with real start times. `start_ms` stays out of `to_dict()`: a
response is the same for the same question, apart from how long each step took.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Operation:
    """One step of a request, as shown in the response and logs."""

    op: str
    params: dict[str, Any] = field(default_factory=dict)
    stage: str = ""
    input_count: int = 0
    output_count: int = 0
    kept: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    ms: float = 0.0
    reason: str = ""
    start_ms: float | None = None  # from the trace's start; set when the trace records it

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "stage": self.stage, "params": self.params, "input_count": self.input_count,
                "output_count": self.output_count, "kept": list(self.kept),
                "rejected": dict(self.rejected), "ms": round(self.ms, 3), "reason": self.reason}


@dataclass(frozen=True)
class StageTime:
    """One entry into a stage: its name, when it began (ms from the trace's start) and how long it took."""

    stage: str
    start_ms: float
    ms: float


class Trace:
    """The operations of one request, in the order they were recorded (each when it ended)."""

    def __init__(self, trace_id: str | None = None) -> None:
        self.trace_id = trace_id or uuid.uuid4().hex
        self.operations: list[Operation] = []
        self.stage_ms: dict[str, float] = {}
        self.stages: list[StageTime] = []
        self.started = time.perf_counter()
        self._stage = ""

    def elapsed_ms(self) -> float:
        """Milliseconds since the trace started."""
        return (time.perf_counter() - self.started) * 1000

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage of the request; operations recorded inside it carry its name.

        A stage entered again (each retry attempt) adds to its time."""
        outer, self._stage = self._stage, name
        started = time.perf_counter()
        try:
            yield
        finally:
            ms = (time.perf_counter() - started) * 1000
            self.stage_ms[name] = self.stage_ms.get(name, 0.0) + ms
            self.stages.append(StageTime(name, (started - self.started) * 1000, ms))
            self._stage = outer

    @contextmanager
    def operation(self, op: str, **params: Any) -> Iterator[Operation]:
        """Time a block and record it; the block fills in counts, kept and rejected."""
        record = Operation(op=op, params=params, stage=self._stage)
        started = time.perf_counter()
        record.start_ms = (started - self.started) * 1000
        try:
            yield record
        finally:
            record.ms = (time.perf_counter() - started) * 1000
            self.operations.append(record)

    def add(self, record: Operation) -> None:
        """Record an operation timed elsewhere (e.g. a validation check timed by its agent).

        Promises: an operation without a `start_ms` is taken to have ended now, `ms` long."""
        record.stage = record.stage or self._stage
        if record.start_ms is None:
            record.start_ms = max(self.elapsed_ms() - record.ms, 0.0)
        self.operations.append(record)

