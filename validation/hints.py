"""Retry hints: what the router should change next time, issue kind by issue kind.

| issue kind                                   | hints (Hint.reason = the issue kind)              |
|----------------------------------------------|---------------------------------------------------|
| missing_side                                 | add_entity_task {entity}                          |
| outside_window                               | add_time_filter {start, end} (the query's window) |
| too_old                                      | add_time_filter {start: now - max age, end: None, |
|                                              |   kb}                                             |
| stale_status                                 | exclude_status {values: [status]},                |
|                                              |   exclude_chunk {chunk_id}                        |
| missing_citation, invalid_citation,          | drop_claim {claim}, exclude_chunk {chunk_id}      |
|   unsupported_number/_date/_term             |   (exclude_chunk only when the chunk is known)    |
| wrong_direction, unit_mismatch               | drop_claim {claim}                                |
| no_evidence                                  | widen {factor: 2}, relax_filters {}               |

Hints come out in issue order, each issue's hints in the order above; a hint equal to an
earlier one (same action and params) is dropped, so the list is deterministic and has no
repeats. Every issue kind of ISSUE_KINDS has a row (a test keeps it so).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from orchestration.retrieval.scored import ScoredChunk
from perception.types import Perception
from validation.context import CheckContext
from validation.types import Hint, Issue

WIDEN_FACTOR = 2


@dataclass(frozen=True)
class HintInputs:
    """What a hint rule may read besides the issue."""

    perception: Perception | None
    chunks: dict[str, ScoredChunk]
    context: CheckContext


Rule = Callable[[Issue, HintInputs], list[Hint]]


def _add_entity_task(issue: Issue, inputs: HintInputs) -> list[Hint]:
    """Search again for the side that has no evidence."""
    return [Hint("add_entity_task", issue.kind, {"entity": issue.entity})] if issue.entity else []


def _window_filter(issue: Issue, inputs: HintInputs) -> list[Hint]:
    """Restrict retrieval to the query's own time window."""
    perception = inputs.perception
    window = perception.constraints.time if perception is not None else None
    if window is None:
        return []
    return [Hint("add_time_filter", issue.kind, {"start": window.start.isoformat() if window.start else None,
                                                  "end": window.end.isoformat() if window.end else None})]


def _age_filter(issue: Issue, inputs: HintInputs) -> list[Hint]:
    """Restrict the chunk's KB to documents no older than its maximum age."""
    chunk = inputs.chunks.get(issue.chunk_id or "")
    if chunk is None:
        return []
    limit = inputs.context.max_age_for(chunk.kb)
    if limit is None:
        return []
    start = inputs.context.now - dt.timedelta(days=limit)
    return [Hint("add_time_filter", issue.kind, {"start": start.isoformat(), "end": None, "kb": chunk.kb})]


def _exclude_stale(issue: Issue, inputs: HintInputs) -> list[Hint]:
    """Filter out the stale status, and the chunk itself."""
    chunk = inputs.chunks.get(issue.chunk_id or "")
    status = str(chunk.metadata.get("status") or "").lower() if chunk is not None else ""
    hints = [Hint("exclude_status", issue.kind, {"values": [status]})] if status else []
    return hints + _exclude_chunk(issue)


def _drop_and_exclude(issue: Issue, inputs: HintInputs) -> list[Hint]:
    """Drop the unsupported claim and stop using the chunk it cited."""
    return _drop_claim(issue, inputs) + _exclude_chunk(issue)


def _drop_claim(issue: Issue, inputs: HintInputs) -> list[Hint]:
    """Drop the claim the issue is about."""
    return [Hint("drop_claim", issue.kind, {"claim": issue.claim})] if issue.claim is not None else []


def _exclude_chunk(issue: Issue) -> list[Hint]:
    """Leave the issue's chunk out of the next evidence."""
    return [Hint("exclude_chunk", issue.kind, {"chunk_id": issue.chunk_id})] if issue.chunk_id else []


def _search_wider(issue: Issue, inputs: HintInputs) -> list[Hint]:
    """Retrieve more, with fewer filters."""
    return [Hint("widen", issue.kind, {"factor": WIDEN_FACTOR}), Hint("relax_filters", issue.kind, {})]


HINT_RULES: dict[str, Rule] = {
    "missing_side": _add_entity_task,
    "outside_window": _window_filter,
    "too_old": _age_filter,
    "stale_status": _exclude_stale,
    "missing_citation": _drop_and_exclude,
    "invalid_citation": _drop_and_exclude,
    "unsupported_number": _drop_and_exclude,
    "unsupported_date": _drop_and_exclude,
    "unsupported_term": _drop_and_exclude,
    "wrong_direction": _drop_claim,
    "unit_mismatch": _drop_claim,
    "no_evidence": _search_wider,
}


def hints_for(issues: Sequence[Issue], perception: Perception | None, evidence: Sequence[ScoredChunk],
              context: CheckContext) -> list[Hint]:
    """The router hints for a list of issues, deduplicated, in a deterministic order.

    Args:
        issues: the verdict's issues, in order.
        perception: gives the time window for outside_window.
        evidence: gives a chunk's KB and status for too_old and stale_status.
        context: now and the maximum ages.

    Returns:
        Hints in issue order; an unknown issue kind yields none.
    """
    inputs = HintInputs(perception, {chunk.chunk_id: chunk for chunk in evidence}, context)
    seen: set[tuple[str, str]] = set()
    out: list[Hint] = []
    for issue in issues:
        rule = HINT_RULES.get(issue.kind)
        for hint in rule(issue, inputs) if rule else []:
            key = (hint.action, json.dumps(hint.params, sort_keys=True, default=str))
            if key not in seen:
                seen.add(key)
                out.append(hint)
    return out


__all__ = ["HINT_RULES", "WIDEN_FACTOR", "hints_for"]
