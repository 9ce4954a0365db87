"""The strategy router: Perception (+ retry hints) -> Plan, from the rules of config/router.yaml.

Contract (as every Sightline component): the constructor is cheap and takes a validated
`RouterConfig`; `warm_up()` has nothing to load; `run()` is deterministic (the same
perception, hints, kbs and overrides always give the same plan) and explains itself: every
task names the rule that emitted it and carries a sentence saying why; `plan.notes` says
which rules matched, which were skipped and why, and what the hints and limits changed.

Steps of `run()`:
  1. every enabled rule whose `when` holds and whose `unless` does not emits its tasks;
  2. no task at all -> one `fallback` hybrid task per requested knowledge base;
  3. the hints the retry table allows change or add tasks (see `hints`);
  4. request overrides: its filters replace the task's (exclude_status is merged);
  5. top_k capped at limits.candidates_per_task;
  6. identical tasks (kb, search, query, filters) merged: the first is kept with the
     highest weight, the lowest priority and the largest top_k of the group;
  7. ordered by priority, then weight (descending), then emission; cut at limits.max_tasks;
  8. ids t1..tn in that order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from core.errors import RequestError, UnknownKnowledgeBase
from perception.types import Perception

from ..retrieval.filters import Filters
from ..types import Plan, RetrievalTask
from . import hints as hint_rules
from .adjust import Adjustment
from .config import RouterConfig
from .draft import Draft
from .emit import describe_filters, expand, with_task

OVERRIDE_KEYS = ("filters", "top_k")
_FILTER_FIELDS = tuple(f.name for f in fields(Filters))


class Router:
    """Plans retrieval for one perception at a time; safe to share between threads.

    Args:
        config: a validated router config (swap configs by building a new Router).
    """

    def __init__(self, config: RouterConfig) -> None:
        self.config = config

    def warm_up(self) -> None:
        """Nothing to load: the config was validated when it was loaded."""

    def run(self, perception: Perception, hints: Sequence[Adjustment] = (), attempt: int = 0,
            kbs: Sequence[str] | None = None, overrides: dict[str, Any] | None = None) -> Plan:
        """The plan for one attempt.

        Args:
            perception: the query's perception.
            hints: validation's adjustments accumulated so far (applied when the retry table allows
                them; allowed ExcludeChunks / DropClaims become Plan.excluded_chunks / dropped_claims).
            attempt: 0 for the first attempt; recorded in the notes.
            kbs: the knowledge bases the request asked for (None or empty: every known one).
            overrides: request-level `filters` (Filters.to_dict form) and `top_k`; None values ignored.

        Returns:
            A Plan with tasks t1..tn, the fusion and budget settings and the config version.

        Raises:
            UnknownKnowledgeBase: `kbs` names a knowledge base the config does not know.
            RequestError: `overrides` has an unknown key or a bad value.
        """
        cfg = self.config
        notes: list[str] = [f"attempt {attempt}; config {cfg.version}"]
        allowed_kbs = self._kbs(kbs)
        filters, top_k = _overrides(overrides)
        drafts = self._emit(perception, allowed_kbs, top_k, notes)
        ctx = hint_rules.HintContext(perception, cfg.limits, allowed_kbs, notes)
        applied = hint_rules.apply(drafts, hints, cfg.retry, ctx)
        drafts = applied.drafts
        drafts = [_override(d, filters) for d in drafts] if filters else drafts
        drafts = [self._cap_top_k(d) for d in drafts]
        tasks = self._rank(_dedupe(drafts, notes), notes)
        return Plan(tasks=tasks, fusion_method=cfg.fusion.method, fusion_k=cfg.fusion.k,
                    across_kbs=cfg.fusion.across_kbs,
                    max_evidence=cfg.limits.max_evidence, context_budget_words=cfg.limits.context_budget_words,
                    config_version=cfg.version, notes=notes, excluded_chunks=sorted(applied.excluded_chunks),
                    dropped_claims=applied.dropped_claims)

    # --- steps ---------------------------------------------------------------------------

    def _kbs(self, kbs: Sequence[str] | None) -> list[str]:
        """The requested knowledge bases in config order (all known when None or empty)."""
        known = self.config.known_kbs
        if not kbs:
            return list(known)
        for name in kbs:
            if name not in known:
                raise UnknownKnowledgeBase(f"unknown knowledge base '{name}'; known: {', '.join(known)}",
                                           field="kb")
        return [name for name in known if name in kbs]

    def _emit(self, perception: Perception, kbs: list[str], top_k: int | None, notes: list[str]) -> list[Draft]:
        """Steps 1-2: the tasks of every matching rule, or the fallback."""
        drafts: list[Draft] = []
        for rule in self.config.rules:
            if not rule.enabled:
                notes.append(f"rule '{rule.name}' is disabled")
                continue
            matched = rule.when.match(perception)
            if matched is None:
                continue
            blocked = rule.unless.match(perception) if rule.unless else None
            if blocked is not None:
                notes.append(f"rule '{rule.name}' skipped: unless holds ({'; '.join(blocked)})")
                continue
            emitted = [d for spec in rule.emit for d in expand(rule, spec, perception, kbs, matched, top_k, notes)]
            notes.append(f"rule '{rule.name}' matched ({'; '.join(matched)}): {len(emitted)} task(s)")
            drafts += emitted
        if not drafts:
            drafts = self._fallback(perception, kbs, top_k, notes)
        for order, draft in enumerate(drafts):
            draft.order = order
        return drafts

    def _fallback(self, perception: Perception, kbs: list[str], top_k: int | None, notes: list[str]) -> list[Draft]:
        """One hybrid task per requested knowledge base with the whole query."""
        notes.append("no rule produced a task for the requested knowledge bases; using the fallback")
        d = self.config.defaults
        return [Draft(RetrievalTask(
            id="", query=perception.query, search="hybrid", kb=kb, weight=d.get("weight", 1.0),
            priority=d.get("priority", 5), top_k=top_k or d.get("top_k", 10), rule="fallback",
            reason=f"rule 'fallback': no rule produced a task for {kb}, so this task searches it with the "
                   f"whole query."), set()) for kb in kbs]

    def _cap_top_k(self, draft: Draft) -> Draft:
        """Step 5: top_k within limits.candidates_per_task."""
        cap = self.config.limits.candidates_per_task
        return with_task(draft, top_k=cap) if draft.task.top_k > cap else draft

    def _rank(self, drafts: list[Draft], notes: list[str]) -> list[RetrievalTask]:
        """Steps 7-8: order, cut at max_tasks, number."""
        ordered = sorted(drafts, key=lambda d: (d.task.priority, -d.task.weight, d.order))
        limit = self.config.limits.max_tasks
        for d in ordered[limit:]:
            t = d.task
            notes.append(f"max_tasks {limit}: dropped {t.search} task on {t.kb} for '{t.query}' "
                         f"(rule '{t.rule}', priority {t.priority}, weight {t.weight:g})")
        return [replace(d.task, id=f"t{i}") for i, d in enumerate(ordered[:limit], start=1)]


# --- helpers --------------------------------------------------------------------------------

def _overrides(overrides: dict[str, Any] | None) -> tuple[dict[str, Any], int | None]:
    """(filter values the request sets, the request's top_k) from the overrides mapping.

    Raises:
        RequestError: an unknown key, an unknown filter field, a bad date or top_k.
    """
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    for key in overrides:
        if key not in OVERRIDE_KEYS:
            raise RequestError(f"unknown override '{key}'; allowed: {', '.join(OVERRIDE_KEYS)}", field=key)
    top_k = overrides.get("top_k")
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise RequestError(f"top_k must be a positive integer, got {top_k!r}", field="top_k")
    raw = overrides.get("filters") or {}
    if not isinstance(raw, dict):
        raise RequestError("filters must be an object", field="filters")
    for key in raw:
        if key not in _FILTER_FIELDS:
            raise RequestError(f"unknown filter '{key}'; allowed: {', '.join(_FILTER_FIELDS)}", field=f"filters.{key}")
    try:
        parsed = Filters.from_dict(raw)
    except (TypeError, ValueError) as exc:
        raise RequestError(f"bad filters ({exc})", field="filters") from exc
    return {key: getattr(parsed, key) for key in raw if raw[key] not in (None, "", [])}, top_k


def _override(draft: Draft, values: dict[str, Any]) -> Draft:
    """Step 4: the request's filter values replace the task's; exclude_status is merged."""
    current = draft.task.filters
    changes = dict(values)
    if "exclude_status" in changes:
        changes["exclude_status"] = tuple(dict.fromkeys(current.exclude_status + changes["exclude_status"]))
    filters = replace(current, **changes)
    if filters == current:
        return draft
    changed = with_task(draft, filters=filters,
                        reason=draft.task.reason + f" Request filters applied:{describe_filters(filters)[9:]}")
    changed.from_perception -= set(values) & {"status", "doc_type", "source"}
    changed.from_perception -= {"time"} if {"time_start", "time_end"} & set(values) else set()
    return changed


def _dedupe(drafts: list[Draft], notes: list[str]) -> list[Draft]:
    """Step 6: identical tasks merged into the first (max weight, min priority, max top_k)."""
    groups: dict[tuple, Draft] = {}
    for d in drafts:
        t = d.task
        key = (t.kb, t.search, " ".join(t.query.casefold().split()), t.filters)
        kept = groups.get(key)
        if kept is None:
            groups[key] = d
            continue
        merged = with_task(kept, weight=max(kept.task.weight, t.weight), priority=min(kept.task.priority, t.priority),
                           top_k=max(kept.task.top_k, t.top_k))
        merged.from_perception |= d.from_perception
        groups[key] = merged
        notes.append(f"rule '{t.rule}': task on {t.kb} for '{t.query}' duplicates one of rule "
                     f"'{kept.task.rule}'; merged")
    return list(groups.values())
