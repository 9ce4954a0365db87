"""Retry adjustments: what the router should change next time, issue kind by issue kind.

| issue kind                                   | adjustments (reason = the issue kind)             |
|----------------------------------------------|---------------------------------------------------|
| missing_side                                 | AddEntityTask(entity)                             |
| outside_window                               | NarrowWindow(start, end) (the query's window)     |
| too_old                                      | NarrowWindow(start=now - max age, kb)             |
| stale_status                                 | ExcludeStatus([status]), ExcludeChunks([chunk])   |
| missing_citation, invalid_citation,          | DropClaims([claim text]), ExcludeChunks([chunk])  |
|   unsupported_number/_date/_term             |   (ExcludeChunks only when the chunk is known)    |
| wrong_direction, unit_mismatch               | DropClaims([claim text])                          |
| no_evidence, unanswered                      | Widen(factor=2), RelaxFilters()                   |
|   (unanswered for an unwritten word)         |   none: no search finds a word no document writes |
| conflicting_sources                          | none (the answer states both; partial)            |
| other_period, other_variant                  | none (the figure stands, flagged; partial)        |

Adjustments come out in issue order, each issue's in the order above; one equal to an earlier
one is dropped, so the list is deterministic and has no repeats. Every issue kind of
ISSUE_KINDS has a row (a test keeps it so). The classes are the router's (router/adjust.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.text import strip_markers
from orchestration.retrieval.scored import ScoredChunk
from orchestration.router.adjust import (
    AddEntityTask,
    Adjustment,
    DropClaims,
    ExcludeChunks,
    ExcludeStatus,
    NarrowWindow,
    RelaxFilters,
    Widen,
)
from orchestration.types import Claim
from perception.types import Perception
from validation.context import CheckContext
from validation.types import Issue

WIDEN_FACTOR = 2
# a refusal no search can change: no document of the KBs writes what was asked (orchestration/unwritten.py)
NOTHING_TO_FIND = ("unwritten",)


@dataclass(frozen=True)
class HintInputs:
    """What a rule may read besides the issue."""

    perception: Perception | None
    chunks: dict[str, ScoredChunk]
    claims: Sequence[Claim]
    context: CheckContext


Rule = Callable[[Issue, HintInputs], list[Adjustment]]


def _add_entity_task(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """Search again for the side that has no evidence."""
    return [AddEntityTask(reason=issue.kind, entity=issue.entity)] if issue.entity else []


def _window_filter(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """Restrict retrieval to the query's own time window."""
    perception = inputs.perception
    window = perception.constraints.time if perception is not None else None
    if window is None:
        return []
    return [NarrowWindow(reason=issue.kind, start=window.start, end=window.end)]


def _age_filter(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """Restrict the chunk's KB to documents no older than its maximum age."""
    chunk = inputs.chunks.get(issue.chunk_id or "")
    if chunk is None:
        return []
    limit = inputs.context.max_age_for(chunk.kb)
    if limit is None:
        return []
    start = inputs.context.now - dt.timedelta(days=limit)
    return [NarrowWindow(reason=issue.kind, start=start, kb=chunk.kb)]


def _exclude_stale(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """Filter out the stale status, and the chunk itself."""
    chunk = inputs.chunks.get(issue.chunk_id or "")
    status = str(chunk.metadata.get("status") or "").lower() if chunk is not None else ""
    out: list[Adjustment] = [ExcludeStatus(reason=issue.kind, values=(status,))] if status else []
    return out + _exclude_chunk(issue)


def _drop_and_exclude(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """Drop the unsupported claim and stop using the chunk it cited."""
    return _drop_claim(issue, inputs) + _exclude_chunk(issue)


def _drop_claim(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """Drop the claim the issue is about (by its text, so later attempts skip that sentence)."""
    if issue.claim is None or not 0 <= issue.claim < len(inputs.claims):
        return []
    text = strip_markers(inputs.claims[issue.claim].text)
    return [DropClaims(reason=issue.kind, claims=(text,))] if text else []


def _exclude_chunk(issue: Issue) -> list[Adjustment]:
    """Leave the issue's chunk out of the next evidence."""
    return [ExcludeChunks(reason=issue.kind, chunk_ids=(issue.chunk_id,))] if issue.chunk_id else []


def _search_wider(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """Retrieve more, with fewer filters; not when no document of the KBs writes what was asked
    (`unwritten` reads every document, filtered or not: no search finds it)."""
    if issue.reason is not None and issue.reason.code in NOTHING_TO_FIND:
        return []
    return [Widen(reason=issue.kind, factor=WIDEN_FACTOR), RelaxFilters(reason=issue.kind)]


def _nothing(issue: Issue, inputs: HintInputs) -> list[Adjustment]:
    """No retry helps: the answer stands with the finding flagged (partial): both sources of a
    conflict stated, or a compared figure of another period or variant (the composer would pick
    it again from the same evidence)."""
    return []


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
    "other_period": _nothing,
    "other_variant": _nothing,
    "no_evidence": _search_wider,
    "unanswered": _search_wider,
    "conflicting_sources": _nothing,
}


def hints_for(issues: Sequence[Issue], perception: Perception | None, evidence: Sequence[ScoredChunk],
              context: CheckContext, claims: Sequence[Claim] = ()) -> list[Adjustment]:
    """The router adjustments for a list of issues, deduplicated, in a deterministic order.

    Args:
        issues: the verdict's issues, in order.
        perception: gives the time window for outside_window.
        evidence: gives a chunk's KB and status for too_old and stale_status.
        context: now and the maximum ages.
        claims: the answer's claims (an issue's `claim` indexes them).

    Returns:
        Adjustments in issue order; an unknown issue kind yields none.
    """
    inputs = HintInputs(perception, {chunk.chunk_id: chunk for chunk in evidence}, claims, context)
    out: list[Adjustment] = []
    for issue in issues:
        rule = HINT_RULES.get(issue.kind)
        out += [a for a in (rule(issue, inputs) if rule else []) if a not in out]
    return out


__all__ = ["HINT_RULES", "WIDEN_FACTOR", "hints_for"]
