"""Validation adjustments -> changes to the next attempt's plan (the `retry` section decides which).

An adjustment is applied only when the config's `retry` section lists its action for its
issue kind (`reason`); every other one is skipped with a note. Applied adjustments mark the
tasks they add or change with `rule="retry:<issue kind>"` and add a sentence to the task's
reason. ExcludeChunks and DropClaims change no task: they become the plan's
`excluded_chunks` (the executor drops them) and `dropped_claims` (the composer skips them).

The adjustments are `router.adjust`'s typed classes (the contract validation fills in).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.vocab import SUBJECT_LABELS
from perception.types import Perception

from ..retrieval.filters import Filters
from ..types import RetrievalTask
from .adjust import (
    ADJUSTMENTS,
    AddEntityTask,
    Adjustment,
    DropClaims,
    ExcludeChunks,
    ExcludeStatus,
    NarrowWindow,
    RelaxFilters,
    Widen,
)
from .config import PlanLimits
from .draft import Draft
from .templates import topic

RELAXABLE = ("status", "doc_type")


@dataclass
class HintContext:
    """What an adjustment handler may read and write.

    Attributes:
        perception: the query's perception.
        limits: the config's limits (candidates_per_task caps widen).
        kbs: the knowledge bases the request may search.
        notes: the plan's notes (each handler adds one line).
    """

    perception: Perception
    limits: PlanLimits
    kbs: Sequence[str]
    notes: list[str]


@dataclass
class Applied:
    """The drafts after the allowed adjustments, and what they exclude from the attempt."""

    drafts: list[Draft]
    excluded_chunks: set[str] = field(default_factory=set)
    dropped_claims: list[str] = field(default_factory=list)


def allowed(adjustments: Sequence[Adjustment], retry: dict[str, tuple[str, ...]],
            notes: list[str] | None = None) -> list[Adjustment]:
    """The adjustments the retry table allows, in order; the others noted as skipped."""
    out = []
    for adjustment in adjustments:
        if adjustment.action in retry.get(adjustment.reason, ()):
            out.append(adjustment)
        elif notes is not None:
            allowed_here = ", ".join(retry.get(adjustment.reason, ())) or "none"
            notes.append(f"retry:{adjustment.reason}: {adjustment.action} skipped; the retry table allows "
                         f"{allowed_here} for {adjustment.reason}")
    return out


def _mark(draft: Draft, kind: str, sentence: str, **changes: Any) -> Draft:
    """The draft with `changes`, marked as changed by a retry for `kind`."""
    task = replace(draft.task, rule=f"retry:{kind}", reason=f"{draft.task.reason} Retry ({kind}): {sentence}",
                   **changes)
    return Draft(task, set(draft.from_perception), draft.order)


# --- handlers: (drafts, adjustment, context) -> drafts ----------------------------------------

def _add_entity_task(drafts: list[Draft], adj: AddEntityTask, ctx: HintContext) -> list[Draft]:
    """One task per knowledge base of the plan for the entity alone: hybrid, twice the top_k,
    keeping the time window and exclusions of that kb's first task but not its status,
    doc_type or source filters. The new tasks outrank every rule task."""
    entity = adj.entity.strip()
    if not entity:
        ctx.notes.append(f"retry:{adj.reason}: add_entity_task without an entity; skipped")
        return drafts
    compared = [e for e in ctx.perception.entities if e.label in SUBJECT_LABELS]
    query = " ".join(f"{entity} {topic(ctx.perception, compared)}".split())
    first_per_kb: dict[str, Draft] = {}
    for d in drafts:
        first_per_kb.setdefault(d.task.kb, d)
    priority = max(0, min((d.task.priority for d in drafts), default=1) - 1)
    added = []
    for kb in list(first_per_kb) or list(ctx.kbs):
        base = first_per_kb.get(kb)
        filters = replace(base.task.filters, status=(), doc_type=(), source=()) if base else Filters()
        top_k = min(ctx.limits.candidates_per_task, 2 * (base.task.top_k if base else 10))
        reason = (f"rule 'retry:{adj.reason}': validation found no evidence for {entity}; this task "
                  f"searches {kb} for {entity} alone with a wider net.")
        task = RetrievalTask(id="", query=query, search="hybrid", kb=kb, weight=1.0, priority=priority,
                             filters=filters, top_k=top_k, rule=f"retry:{adj.reason}", reason=reason,
                             entity=entity)
        added.append(Draft(task, {"time"} & base.from_perception if base else set(), -1))
    ctx.notes.append(f"retry:{adj.reason}: added {len(added)} task(s) for {entity}")
    return added + drafts


def _intersect(task_start: dt.date | None, task_end: dt.date | None, start: dt.date | None,
               end: dt.date | None) -> tuple[dt.date | None, dt.date | None]:
    """The intersection of two windows (None = open side)."""
    lo = max((d for d in (task_start, start) if d is not None), default=None)
    hi = min((d for d in (task_end, end) if d is not None), default=None)
    return lo, hi


def _narrow_window(drafts: list[Draft], adj: NarrowWindow, ctx: HintContext) -> list[Draft]:
    """The adjustment's window intersected with every task's (only tasks on `adj.kb` when set).

    A task whose own window does not overlap keeps its window (noted)."""
    start, end, kb = adj.start, adj.end, adj.kb
    if start is None and end is None:
        ctx.notes.append(f"retry:{adj.reason}: add_time_filter without start or end; skipped")
        return drafts
    window = f"{start.isoformat() if start else '…'} to {end.isoformat() if end else '…'}"
    out, changed = [], 0
    for d in drafts:
        f = d.task.filters
        lo, hi = _intersect(f.time_start, f.time_end, start, end)
        if (kb and d.task.kb != kb) or (lo, hi) == (f.time_start, f.time_end):
            out.append(d)
            continue
        if lo is not None and hi is not None and lo > hi:
            ctx.notes.append(f"retry:{adj.reason}: window {window} does not overlap the {d.task.kb} task's "
                             f"own window; kept its window")
            out.append(d)
            continue
        new = _mark(d, adj.reason, f"limited to documents dated {window}.",
                    filters=replace(f, time_start=lo, time_end=hi))
        new.from_perception.discard("time")
        out.append(new)
        changed += 1
    ctx.notes.append(f"retry:{adj.reason}: time window {window} on {changed} task(s)" + (f" of {kb}" if kb else ""))
    return out


def _exclude_status(drafts: list[Draft], adj: ExcludeStatus, ctx: HintContext) -> list[Draft]:
    """The statuses added to every task's exclude_status."""
    values = tuple(v for v in adj.values if v)
    if not values:
        ctx.notes.append(f"retry:{adj.reason}: exclude_status without values; skipped")
        return drafts
    out = [_mark(d, adj.reason, f"excludes {', '.join(values)} documents.",
                 filters=replace(d.task.filters,
                                 exclude_status=tuple(dict.fromkeys(d.task.filters.exclude_status + values))))
           for d in drafts]
    ctx.notes.append(f"retry:{adj.reason}: excluding status {', '.join(values)} on every task")
    return out


def _exclude_chunks(drafts: list[Draft], adj: ExcludeChunks, ctx: HintContext) -> list[Draft]:
    """No task change: the chunks go to Plan.excluded_chunks (see apply)."""
    ctx.notes.append(f"retry:{adj.reason}: chunk(s) {', '.join(adj.chunk_ids)} excluded from the evidence")
    return drafts


def _drop_claims(drafts: list[Draft], adj: DropClaims, ctx: HintContext) -> list[Draft]:
    """No task change: the sentences go to Plan.dropped_claims (see apply)."""
    ctx.notes.append(f"retry:{adj.reason}: {len(adj.claims)} claim(s) not to be composed again")
    return drafts


def _widen(drafts: list[Draft], adj: Widen, ctx: HintContext) -> list[Draft]:
    """Every task's top_k times the factor (rounded up, at most candidates_per_task)."""
    factor = adj.factor
    if not factor > 1:
        ctx.notes.append(f"retry:{adj.reason}: widen needs a factor > 1, got {factor!r}; skipped")
        return drafts
    cap = ctx.limits.candidates_per_task
    out = [_mark(d, adj.reason, f"top_k widened x{factor:g}.",
                 top_k=min(cap, math.ceil(d.task.top_k * factor))) for d in drafts]
    ctx.notes.append(f"retry:{adj.reason}: top_k x{factor:g} (at most {cap}) on every task")
    return out


def _relax_filters(drafts: list[Draft], adj: RelaxFilters, ctx: HintContext) -> list[Draft]:
    """Status and doc_type filters that came from the perception dropped (time, source and
    exclusions stay; ACL is never the router's to relax)."""
    out, relaxed = [], 0
    for d in drafts:
        names = [f for f in RELAXABLE if f in d.from_perception]
        if not names:
            out.append(d)
            continue
        changed = _mark(d, adj.reason, f"dropped the {' and '.join(names)} filter taken from the query.",
                        filters=replace(d.task.filters,
                                        status=() if "status" in names else d.task.filters.status,
                                        doc_type=() if "doc_type" in names else d.task.filters.doc_type))
        changed.from_perception -= set(names)
        out.append(changed)
        relaxed += 1
    ctx.notes.append(f"retry:{adj.reason}: relaxed perceived status/doc_type filters on {relaxed} task(s)")
    return out


HANDLERS: dict[type[Adjustment], Callable[[list[Draft], Any, HintContext], list[Draft]]] = {
    AddEntityTask: _add_entity_task,
    NarrowWindow: _narrow_window,
    ExcludeStatus: _exclude_status,
    ExcludeChunks: _exclude_chunks,
    DropClaims: _drop_claims,
    Widen: _widen,
    RelaxFilters: _relax_filters,
}
assert set(HANDLERS) == set(ADJUSTMENTS)


def apply(drafts: list[Draft], adjustments: Sequence[Adjustment], retry: dict[str, tuple[str, ...]],
          ctx: HintContext) -> Applied:
    """The drafts after every allowed adjustment, applied in the order given, and the chunks and
    claims the allowed ExcludeChunks and DropClaims leave out of the attempt."""
    out = Applied(drafts)
    for adj in allowed(adjustments, retry, ctx.notes):
        out.drafts = HANDLERS[type(adj)](out.drafts, adj, ctx)
        if isinstance(adj, ExcludeChunks):
            out.excluded_chunks.update(adj.chunk_ids)
        elif isinstance(adj, DropClaims):
            out.dropped_claims += [c for c in adj.claims if c not in out.dropped_claims]
    return out
