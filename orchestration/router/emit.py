"""Turning one matched rule's emit item into draft tasks: kbs x for_each items, filters, reason.

Promises: the same perception and spec always give the same drafts in the same order; a
for_each emits at most `cap` tasks per knowledge base (the first items in query order);
`exclude_status` never excludes a status the query asks for or the task allows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import replace

from perception.types import Entity, Perception

from ..retrieval.filters import Filters
from ..types import RetrievalTask
from .conditions import distinct_entities, join_names
from .config import ALL_KBS, PERCEPTION, FilterSpec, Rule, TaskSpec
from .draft import Draft
from .templates import values


def resolve_kbs(spec_kbs: Sequence[str], known: Sequence[str]) -> list[str]:
    """The spec's knowledge bases that are in `known` (the request's), "*" meaning all of them."""
    wanted = list(known) if ALL_KBS in spec_kbs else list(spec_kbs)
    return [kb for kb in wanted if kb in known]


def _perceived(spec_value: str | tuple[str, ...], perceived: list[str]) -> tuple[tuple[str, ...], bool]:
    """(values, taken from the perception?) for a status/doc_type/source spec."""
    if spec_value == PERCEPTION:
        return tuple(perceived), bool(perceived)
    return tuple(spec_value), False


def build_filters(spec: FilterSpec, perception: Perception, source: str | None
                  ) -> tuple[Filters, set[str], tuple[str, ...]]:
    """The filters of one task.

    Args:
        spec: the emit item's filter spec.
        perception: the query's perception.
        source: the for_each source of the task, if any (becomes the source filter).

    Returns:
        (filters, fields taken from the perception, statuses kept despite exclude_status
        because the query or the task asks for them).
    """
    c = perception.constraints
    taken: set[str] = set()
    start = end = None
    if spec.time == PERCEPTION and c.time is not None:
        pad = dt.timedelta(days=spec.time_pad_days)
        start = c.time.start - pad if c.time.start else None
        end = c.time.end + pad if c.time.end else None
        taken.add("time")
    status, from_p = _perceived(spec.status, c.status)
    taken |= {"status"} if from_p else set()
    doc_type, from_p = _perceived(spec.doc_type, c.doc_type)
    taken |= {"doc_type"} if from_p else set()
    sources: tuple[str, ...]
    if source is not None:
        sources, from_p = (source,), True
    else:
        sources, from_p = _perceived(spec.source, c.source)
    taken |= {"source"} if from_p else set()
    wanted = set(c.status) | set(status)
    kept = tuple(s for s in spec.exclude_status if s in wanted)
    exclude = tuple(s for s in spec.exclude_status if s not in wanted)
    filters = Filters(time_start=start, time_end=end, status=status, doc_type=doc_type, source=sources,
                      exclude_status=exclude, keep_undated=spec.keep_undated)
    return filters, taken, kept


def describe_filters(filters: Filters, kept: Sequence[str] = ()) -> str:
    """A sentence listing a task's filters ('' when there are none)."""
    parts = []
    if filters.time_start or filters.time_end:
        start = filters.time_start.isoformat() if filters.time_start else "…"
        end = filters.time_end.isoformat() if filters.time_end else "…"
        parts.append(f"dated {start} to {end}" + (" (undated kept)" if filters.keep_undated else ""))
    for name, label in (("status", "status"), ("doc_type", "document type"), ("source", "source")):
        if getattr(filters, name):
            parts.append(f"{label} {' or '.join(getattr(filters, name))}")
    if filters.exclude_status:
        parts.append(f"excluding {', '.join(filters.exclude_status)}")
    text = f" Filters: {'; '.join(parts)}." if parts else ""
    if kept:
        text += f" Keeps {', '.join(kept)} documents because the query asks for them."
    return text


def _auto_why(spec: TaskSpec, matched: list[str], kb: str, entity: Entity | None, source: str | None) -> str:
    """The reason when neither the emit nor the rule has a `why`."""
    target = f" for {entity.text} alone" if entity else (f" in {source} alone" if source else "")
    return f"{join_names(matched)}; this task runs a {spec.search} search of {kb}{target}"


def expand(rule: Rule, spec: TaskSpec, perception: Perception, kbs: Sequence[str], matched: list[str],
           top_k: int | None, notes: list[str]) -> list[Draft]:
    """The draft tasks one emit item produces for a perception.

    Args:
        rule: the matched rule.
        spec: one of its emit items.
        perception: the query's perception.
        kbs: the knowledge bases the request may search.
        matched: the phrases saying why the rule's condition holds.
        top_k: the request's top_k (replaces the spec's), or None.
        notes: receives a line when a for_each is capped or has nothing to iterate over.

    Returns:
        Drafts in kb order, then for_each item order.
    """
    compared = distinct_entities(perception, spec.entity_labels)
    items: list[tuple[Entity | None, str | None]] = [(None, None)]
    if spec.for_each == "entity":
        items = [(e, None) for e in compared]
    elif spec.for_each == "source":
        items = [(None, s) for s in dict.fromkeys(perception.constraints.source)]
    if spec.for_each and not items:
        notes.append(f"rule '{rule.name}': for_each {spec.for_each} found nothing to iterate over; no task")
        return []
    if len(items) > spec.cap:
        skipped = [e.text if e else s for e, s in items[spec.cap:]]
        notes.append(f"rule '{rule.name}': for_each {spec.for_each} capped at {spec.cap}; "
                     f"skipped {', '.join(str(x) for x in skipped)}")
        items = items[:spec.cap]
    why = spec.why or rule.why
    drafts = []
    for kb in resolve_kbs(spec.kbs, kbs):
        for entity, source in items:
            fill = values(perception, kb, compared, entity, source)
            query = spec.query.fill(fill) or perception.query
            filters, taken, kept = build_filters(spec.filters, perception, source)
            reason = why.fill(fill) if why else _auto_why(spec, matched, kb, entity, source)
            reason = f"rule '{rule.name}': {reason.rstrip('. ')}." + describe_filters(filters, kept)
            task = RetrievalTask(id="", query=query, search=spec.search, kb=kb, weight=spec.weight,
                                 priority=spec.priority, filters=filters, top_k=top_k or spec.top_k,
                                 rule=rule.name, reason=reason,
                                 entity=entity.text if entity else None)
            drafts.append(Draft(task, taken))
    return drafts


def with_task(draft: Draft, **changes) -> Draft:
    """A copy of the draft whose task has `changes` applied."""
    return Draft(replace(draft.task, **changes), set(draft.from_perception), draft.order)
