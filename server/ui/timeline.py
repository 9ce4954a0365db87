"""The timing waterfall of a trace: one bar per operation, placed where it ran.

Operations are recorded in the order they finish, each with its duration, so each bar starts
where the one before it ended; an operation recorded inside another (an LLM call inside
`compose`, `kb.unavailable` inside `route`) starts where its parent starts and does not move
the clock. Time between operations (the loop's own bookkeeping) is not drawn, so the bars may
end before `timing.total`, which sets the scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NESTED = frozenset({"compose.llm", "kb.unavailable"})  # recorded inside the operation that follows
WIDTH = 1000  # the bars' coordinate space (an SVG viewBox), whatever the page width


@dataclass(frozen=True)
class Bar:
    """One operation on the waterfall.

    Attributes:
        label: what ran, for a person ("retrieve.keyword t1 · manuals", "check citation").
        stage: perceive, route, retrieve, compose or validate (the bar's colour).
        attempt: the attempt it belongs to (None: before the first route).
        start_ms, ms: where it starts and how long it took.
        x, width: the same in WIDTH units (width at least 1, so a 0.01 ms step stays visible).
    """

    label: str
    stage: str
    attempt: int | None
    start_ms: float
    ms: float
    x: float
    width: float


def label(op: dict[str, Any]) -> str:
    """A readable name for an operation: its kind, then the task, KB, check or call it was about."""
    name, params = op.get("op", ""), op.get("params") or {}
    if name.startswith("validate."):
        return f"check {name.removeprefix('validate.')}"
    parts = [name]
    if "task" in params:
        parts.append(str(params["task"]))
    kb = params.get("kb")
    if kb:
        parts.append("+".join(kb) if isinstance(kb, list) else str(kb))
    if name == "compose.llm" and "call" in params:
        parts.append(f"call {params['call']}")
    return " · ".join(parts)


def attempts_of(operations: list[dict[str, Any]]) -> list[int | None]:
    """The attempt of each operation: the `attempt` of the last `route` before it (None before any)."""
    out: list[int | None] = []
    current: int | None = None
    for op in operations:
        if op.get("op") == "route":
            current = (op.get("params") or {}).get("attempt", current)
        out.append(current)
    return out


def waterfall(operations: list[dict[str, Any]], total_ms: float) -> list[Bar]:
    """The bars of a trace's operations, in order, scaled to the larger of `total_ms` and the
    bars' own end."""
    placed: list[tuple[dict[str, Any], int | None, float, float]] = []
    clock = 0.0
    for op, attempt in zip(operations, attempts_of(operations), strict=True):
        ms = float(op.get("ms") or 0.0)
        placed.append((op, attempt, clock, ms))
        if op.get("op") not in NESTED:
            clock += ms
    scale = max(total_ms, clock, 1e-9)
    return [Bar(label(op), op.get("stage", ""), attempt, round(start, 3), round(ms, 3),
                round(start / scale * WIDTH, 2), round(max(ms / scale * WIDTH, 1.0), 2))
            for op, attempt, start, ms in placed]
