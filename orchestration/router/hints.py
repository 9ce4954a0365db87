"""Validation hints -> changes to the next attempt's plan (the `retry` section decides which).

A hint is applied only when the config's `retry` section lists its action for its issue kind
(`hint.reason`); every other hint is skipped with a note. Applied hints mark the tasks they
add or change with `rule="retry:<issue kind>"` and add a sentence to the task's reason.
Malformed hint parameters never raise: the hint is skipped with a note.

Hints are `router.adjust.Hint` (the contract validation fills in).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.vocab import SUBJECT_LABELS
from perception.types import Perception

from ..retrieval.filters import Filters
from ..types import RetrievalTask
from .adjust import ACTIONS as HINT_ACTIONS
from .adjust import Hint
from .config import PlanLimits
from .draft import Draft
from .templates import topic

RELAXABLE = ("status", "doc_type")


@dataclass
class HintContext:
    """What a hint handler may read and write.

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


def allowed(hints: Sequence[Hint], retry: dict[str, tuple[str, ...]], notes: list[str] | None = None
            ) -> list[Hint]:
    """The hints the retry table allows, in order; the others noted as skipped."""
    out = []
    for hint in hints:
        if hint.action in retry.get(hint.reason, ()):
            out.append(hint)
        elif notes is not None:
            allowed_here = ", ".join(retry.get(hint.reason, ())) or "none"
            notes.append(f"retry:{hint.reason}: hint {hint.action} skipped; the retry table allows "
                         f"{allowed_here} for {hint.reason}")
    return out


def excluded_chunks(hints: Sequence[Hint], retry: dict[str, tuple[str, ...]]) -> set[str]:
    """Chunk ids of the allowed exclude_chunk hints."""
    return {str(h.params["chunk_id"]) for h in allowed(hints, retry)
            if h.action == "exclude_chunk" and h.params.get("chunk_id")}


def _mark(draft: Draft, kind: str, sentence: str, **changes: Any) -> Draft:
    """The draft with `changes`, marked as changed by a retry for `kind`."""
    task = replace(draft.task, rule=f"retry:{kind}", reason=f"{draft.task.reason} Retry ({kind}): {sentence}",
                   **changes)
    return Draft(task, set(draft.from_perception), draft.order)


# --- handlers: (drafts, hint, context) -> drafts -----------------------------------------------

def _add_entity_task(drafts: list[Draft], hint: Hint, ctx: HintContext) -> list[Draft]:
    """One task per knowledge base of the plan for the entity alone: hybrid, twice the top_k,
    keeping the time window and exclusions of that kb's first task but not its status,
    doc_type or source filters. The new tasks outrank every rule task."""
    entity = str(hint.params.get("entity") or "").strip()
    if not entity:
        ctx.notes.append(f"retry:{hint.reason}: add_entity_task without an entity; skipped")
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
        reason = (f"rule 'retry:{hint.reason}': validation found no evidence for {entity}; this task "
                  f"searches {kb} for {entity} alone with a wider net.")
        task = RetrievalTask(id="", query=query, search="hybrid", kb=kb, weight=1.0, priority=priority,
                             filters=filters, top_k=top_k, rule=f"retry:{hint.reason}", reason=reason,
                             entity=entity)
        added.append(Draft(task, {"time"} & base.from_perception if base else set(), -1))
    ctx.notes.append(f"retry:{hint.reason}: added {len(added)} task(s) for {entity}")
    return added + drafts


def _parse_day(value: Any) -> dt.date | None:
    """An ISO date (or None)."""
    return None if value in (None, "") else dt.date.fromisoformat(str(value)[:10])


def _intersect(task_start: dt.date | None, task_end: dt.date | None, start: dt.date | None,
               end: dt.date | None) -> tuple[dt.date | None, dt.date | None]:
    """The intersection of two windows (None = open side)."""
    lo = max((d for d in (task_start, start) if d is not None), default=None)
    hi = min((d for d in (task_end, end) if d is not None), default=None)
    return lo, hi


def _add_time_filter(drafts: list[Draft], hint: Hint, ctx: HintContext) -> list[Draft]:
    """The hint's window intersected with every task's (only tasks on `params.kb` when given).

    A task whose own window does not overlap the hint's keeps its window (noted)."""
    try:
        start, end = _parse_day(hint.params.get("start")), _parse_day(hint.params.get("end"))
    except ValueError:
        ctx.notes.append(f"retry:{hint.reason}: add_time_filter with a bad date {hint.params}; skipped")
        return drafts
    if start is None and end is None:
        ctx.notes.append(f"retry:{hint.reason}: add_time_filter without start or end; skipped")
        return drafts
    kb = hint.params.get("kb")
    window = f"{start.isoformat() if start else '…'} to {end.isoformat() if end else '…'}"
    out, changed = [], 0
    for d in drafts:
        f = d.task.filters
        lo, hi = _intersect(f.time_start, f.time_end, start, end)
        if (kb and d.task.kb != kb) or (lo, hi) == (f.time_start, f.time_end):
            out.append(d)
            continue
        if lo is not None and hi is not None and lo > hi:
            ctx.notes.append(f"retry:{hint.reason}: window {window} does not overlap the {d.task.kb} task's "
                             f"own window; kept its window")
            out.append(d)
            continue
        new = _mark(d, hint.reason, f"limited to documents dated {window}.",
                    filters=replace(f, time_start=lo, time_end=hi))
        new.from_perception.discard("time")
        out.append(new)
        changed += 1
    ctx.notes.append(f"retry:{hint.reason}: time window {window} on {changed} task(s)" + (f" of {kb}" if kb else ""))
    return out


def _exclude_status(drafts: list[Draft], hint: Hint, ctx: HintContext) -> list[Draft]:
    """The hint's statuses added to every task's exclude_status."""
    raw = hint.params.get("values") or ()
    values = tuple(str(v) for v in ([raw] if isinstance(raw, str) else raw))
    if not values:
        ctx.notes.append(f"retry:{hint.reason}: exclude_status without values; skipped")
        return drafts
    out = [_mark(d, hint.reason, f"excludes {', '.join(values)} documents.",
                 filters=replace(d.task.filters,
                                 exclude_status=tuple(dict.fromkeys(d.task.filters.exclude_status + values))))
           for d in drafts]
    ctx.notes.append(f"retry:{hint.reason}: excluding status {', '.join(values)} on every task")
    return out


def _exclude_chunk(drafts: list[Draft], hint: Hint, ctx: HintContext) -> list[Draft]:
    """No task change: the executor drops the chunk (see Router.excluded_chunks)."""
    ctx.notes.append(f"retry:{hint.reason}: chunk {hint.params.get('chunk_id')} excluded from the evidence")
    return drafts


def _drop_claim(drafts: list[Draft], hint: Hint, ctx: HintContext) -> list[Draft]:
    """No task change: the composer drops the claim."""
    ctx.notes.append(f"retry:{hint.reason}: claim {hint.params.get('claim')} to be dropped by the composer")
    return drafts


def _widen(drafts: list[Draft], hint: Hint, ctx: HintContext) -> list[Draft]:
    """Every task's top_k times the factor (rounded up, at most candidates_per_task)."""
    factor = hint.params.get("factor", 2)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor <= 1:
        ctx.notes.append(f"retry:{hint.reason}: widen needs a factor > 1, got {factor!r}; skipped")
        return drafts
    cap = ctx.limits.candidates_per_task
    out = [_mark(d, hint.reason, f"top_k widened x{factor:g}.",
                 top_k=min(cap, math.ceil(d.task.top_k * factor))) for d in drafts]
    ctx.notes.append(f"retry:{hint.reason}: top_k x{factor:g} (at most {cap}) on every task")
    return out


def _relax_filters(drafts: list[Draft], hint: Hint, ctx: HintContext) -> list[Draft]:
    """Status and doc_type filters that came from the perception dropped (time, source and
    exclusions stay; ACL is never the router's to relax)."""
    out, relaxed = [], 0
    for d in drafts:
        fields = [f for f in RELAXABLE if f in d.from_perception]
        if not fields:
            out.append(d)
            continue
        changed = _mark(d, hint.reason, f"dropped the {' and '.join(fields)} filter taken from the query.",
                        filters=replace(d.task.filters,
                                        status=() if "status" in fields else d.task.filters.status,
                                        doc_type=() if "doc_type" in fields else d.task.filters.doc_type))
        changed.from_perception -= set(fields)
        out.append(changed)
        relaxed += 1
    ctx.notes.append(f"retry:{hint.reason}: relaxed perceived status/doc_type filters on {relaxed} task(s)")
    return out


HANDLERS: dict[str, Callable[[list[Draft], Hint, HintContext], list[Draft]]] = {
    "add_entity_task": _add_entity_task,
    "add_time_filter": _add_time_filter,
    "exclude_status": _exclude_status,
    "exclude_chunk": _exclude_chunk,
    "drop_claim": _drop_claim,
    "widen": _widen,
    "relax_filters": _relax_filters,
}
assert set(HANDLERS) == set(HINT_ACTIONS)


def apply(drafts: list[Draft], hints: Sequence[Hint], retry: dict[str, tuple[str, ...]],
          ctx: HintContext) -> list[Draft]:
    """The drafts after every allowed hint, applied in the order given."""
    for hint in allowed(hints, retry, ctx.notes):
        drafts = HANDLERS[hint.action](drafts, hint, ctx)
    return drafts
