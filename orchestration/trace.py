"""The trace: every operation of a request with its parameters, counts, decisions and time.

An operation records {op, params, input_count, output_count, kept, rejected {id: reason},
ms, reason}. All operations of one request share the trace's `trace_id`.
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
    input_count: int = 0
    output_count: int = 0
    kept: list[str] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)
    ms: float = 0.0
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "params": self.params, "input_count": self.input_count,
                "output_count": self.output_count, "kept": list(self.kept),
                "rejected": dict(self.rejected), "ms": round(self.ms, 3), "reason": self.reason}


class Trace:
    """The operations of one request, in the order they ran."""

    def __init__(self, trace_id: str | None = None) -> None:
        self.trace_id = trace_id or uuid.uuid4().hex
        self.operations: list[Operation] = []

    @contextmanager
    def operation(self, op: str, **params: Any) -> Iterator[Operation]:
        """Time a block and record it; the block fills in counts, kept and rejected."""
        record = Operation(op=op, params=params)
        started = time.perf_counter()
        try:
            yield record
        finally:
            record.ms = (time.perf_counter() - started) * 1000
            self.operations.append(record)

    def add(self, record: Operation) -> None:
        """Record an operation timed elsewhere (e.g. a validation check timed by its agent)."""
        self.operations.append(record)

