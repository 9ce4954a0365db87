"""A finished request as a tree of span records: the root, a span per stage entry, a span per operation.

Times are real, not reconstructed from durations: the trace records when each stage was
entered and each operation began (`time.perf_counter()`, orchestration/trace.py), and the
request's arrival (server/context.py) ties that clock to the wall clock. The root span runs
from the request's arrival to the moment it is exported (after the loop, before the response
is written). A stage entered again (each retry attempt) is a span of its own. An operation is a
child of the stage entry that was running when it began; one recorded outside any stage (or
after its stage ended, as `perceive.followup`) is a child of the root. The validation checks
run one after another: each begins where the one before it ended.

Plain data, no OpenTelemetry import: server/otel/sdk.py turns the records into SDK spans.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .attributes import Attribute, operation_attributes, request_attributes, stage_attributes

if TYPE_CHECKING:
    from ..context import RequestContext
    from ..loop import AnswerResult

EPSILON_MS = 1e-6  # an operation that begins as its stage begins is inside it
SERVED_ENDPOINTS = frozenset({"rag", "ui", "chat", "mcp"})  # entries reached over HTTP: their root is a SERVER span


@dataclass(frozen=True)
class SpanRecord:
    """One span to export.

    Attributes:
        name: the span's name.
        start_ns, end_ns: wall-clock times, nanoseconds since the epoch.
        attributes: server/otel/attributes.py.
        parent: the index of the parent record in the list; None for the root (whose parent is
            the caller's span when a `traceparent` named one).
        error: the span's error description (status ERROR); None: the span did not fail.
        served: the span is a server's handling of a remote call (OpenTelemetry's kind SERVER:
            the root of an HTTP request); otherwise INTERNAL.
    """

    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Attribute] = field(default_factory=dict)
    parent: int | None = None
    error: str | None = None
    served: bool = False


def root_name(context: RequestContext) -> str:
    """The root span's name: `sightline.<endpoint>` (sightline.rag, sightline.chat, ...)."""
    return f"sightline.{context.endpoint}"


def request_spans(result: AnswerResult, ended_perf: float) -> list[SpanRecord]:
    """The span records of an answered request, the root first, each parent before its children.

    Args:
        result: the finished answer.
        ended_perf: `time.perf_counter()` when the request's span ends (the export).
    """
    arrival = result.context.arrival

    def wall(ms: float) -> int:  # a trace offset (ms from the trace's start) on the wall clock
        return arrival.wall_ns_at(result.started + ms / 1000)

    records = [SpanRecord(root_name(result.context), arrival.wall_ns, arrival.wall_ns_at(ended_perf),
                          request_attributes(result), served=result.context.endpoint in SERVED_ENDPOINTS)]
    entries: list[tuple[str, float, float, int]] = []  # (stage, start ms, end ms, record index)
    for stage in result.stages:
        entries.append((stage.stage, stage.start_ms, stage.start_ms + stage.ms, len(records)))
        records.append(SpanRecord(f"sightline.{stage.stage}", wall(stage.start_ms), wall(stage.start_ms + stage.ms),
                                  stage_attributes(stage), parent=0))
    for op in result.operations:
        start = op.start_ms if op.start_ms is not None else 0.0
        parent = next((index for name, begin, end, index in entries
                       if name == op.stage and begin - EPSILON_MS <= start <= end), 0)
        records.append(SpanRecord(op.op, wall(start), wall(start + op.ms), operation_attributes(op, result),
                                  parent=parent))
    return records


def failure_spans(context: RequestContext, code: str, http_status: int, ended_perf: float) -> list[SpanRecord]:
    """The one span of a request the loop refused or failed (an unknown or unreadable knowledge
    base, a bug, ...): the root with the error's code and HTTP status, status ERROR."""
    attributes: dict[str, Attribute] = {
        "sightline.trace_id": context.trace_id, "sightline.endpoint": context.endpoint,
        "sightline.now": context.now.isoformat(), "sightline.caller.name": context.caller.name,
        "sightline.caller.kind": context.caller.kind, "sightline.profile": context.profile,
        "sightline.error.code": code, "sightline.error.http_status": http_status}
    return [SpanRecord(root_name(context), context.arrival.wall_ns, context.arrival.wall_ns_at(ended_perf),
                       attributes, error=code, served=context.endpoint in SERVED_ENDPOINTS)]
