"""Plan adjustments a validation result may ask the router for: the contract between the two.

Validation reports issues and, for each, the adjustments that could fix it; the router carries
out those its retry table allows for that issue kind (router/hints.py). The router owns this
vocabulary because it is the one that must be able to carry each adjustment out; validation
imports it (the allowed direction: validation sits above orchestration).

Every adjustment is a frozen dataclass: equal adjustments are equal values (they accumulate
across attempts without repeats), and `reason` is the issue kind that asked for it.

| class          | action (config name) | fields              | effect on the next attempt              |
|----------------|----------------------|---------------------|-----------------------------------------|
| AddEntityTask  | add_entity_task      | entity              | a task per KB for that entity alone     |
| NarrowWindow   | add_time_filter      | start, end, kb      | tasks (of `kb`, or all) limited to the  |
|                |                      |                     | window                                  |
| ExcludeStatus  | exclude_status       | values              | documents with those statuses left out  |
| ExcludeChunks  | exclude_chunk        | chunk_ids           | those chunks never come back            |
|                |                      |                     | (Plan.excluded_chunks)                  |
| DropClaims     | drop_claim           | claims (texts)      | those sentences are not composed again  |
|                |                      |                     | (Plan.dropped_claims)                   |
| Widen          | widen                | factor              | top_k multiplied (capped)               |
| RelaxFilters   | relax_filters        | -                   | perceived status / doc_type filters go  |

To add one: a class here, its row in SUGGESTED, its handler in router/hints.py, the rule that
produces it in validation/hints.py (tests hold the four together).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields
from typing import Any, ClassVar


@dataclass(frozen=True, kw_only=True)
class Adjustment:
    """A change validation asks of the next attempt's plan.

    Attributes:
        reason: the issue kind that asked for it (core.vocab.ALL_ISSUE_KINDS).
        action: the adjustment's name in the router config's `retry` table (per class).
    """

    action: ClassVar[str] = ""
    reason: str

    def params(self) -> dict[str, Any]:
        """The adjustment's own fields, JSON-ready (dates as ISO strings, tuples as lists)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "reason":
                continue
            value = getattr(self, f.name)
            out[f.name] = value.isoformat() if isinstance(value, dt.date) else (
                list(value) if isinstance(value, tuple) else value)
        return out

    def to_dict(self) -> dict[str, Any]:
        """{"action", "reason", "params"}: how responses and traces show it."""
        return {"action": self.action, "reason": self.reason, "params": self.params()}


@dataclass(frozen=True, kw_only=True)
class AddEntityTask(Adjustment):
    """Search each KB again for one entity alone (a comparison side without evidence)."""

    action: ClassVar[str] = "add_entity_task"
    entity: str


@dataclass(frozen=True, kw_only=True)
class NarrowWindow(Adjustment):
    """Limit tasks to documents dated inside [start, end] (None: open side); only `kb`'s when set."""

    action: ClassVar[str] = "add_time_filter"
    start: dt.date | None = None
    end: dt.date | None = None
    kb: str | None = None


@dataclass(frozen=True, kw_only=True)
class ExcludeStatus(Adjustment):
    """Leave documents with these statuses out of every task."""

    action: ClassVar[str] = "exclude_status"
    values: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class ExcludeChunks(Adjustment):
    """Never return these chunks again (the executor drops them)."""

    action: ClassVar[str] = "exclude_chunk"
    chunk_ids: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class DropClaims(Adjustment):
    """Never compose these sentences again (claim texts without their [n] markers)."""

    action: ClassVar[str] = "drop_claim"
    claims: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Widen(Adjustment):
    """Multiply every task's top_k by `factor` (> 1; capped by the config's limits)."""

    action: ClassVar[str] = "widen"
    factor: float = 2.0


@dataclass(frozen=True, kw_only=True)
class RelaxFilters(Adjustment):
    """Drop the status and doc_type filters that came from the query."""

    action: ClassVar[str] = "relax_filters"


ADJUSTMENTS: tuple[type[Adjustment], ...] = (AddEntityTask, NarrowWindow, ExcludeStatus, ExcludeChunks,
                                             DropClaims, Widen, RelaxFilters)
ACTIONS = tuple(kind.action for kind in ADJUSTMENTS)

# issue kind -> the adjustments validation suggests for it: the one table of that relation.
# validation/hints.py produces these and no others (a test holds it to that); a router's
# `retry` table allows a subset per kind, and loading a config that allows an adjustment
# validation never suggests for that kind is refused (it would silently never happen).
_CLAIM_FIXES = ("drop_claim", "exclude_chunk")
SUGGESTED: dict[str, tuple[str, ...]] = {
    "missing_side": ("add_entity_task",),
    "outside_window": ("add_time_filter",),
    "too_old": ("add_time_filter",),
    "stale_status": ("exclude_status", "exclude_chunk"),
    "missing_citation": _CLAIM_FIXES,
    "invalid_citation": _CLAIM_FIXES,
    "unsupported_number": _CLAIM_FIXES,
    "unsupported_date": _CLAIM_FIXES,
    "unsupported_term": _CLAIM_FIXES,
    "wrong_direction": ("drop_claim",),
    "unit_mismatch": ("drop_claim",),
    "other_period": (),  # nothing to retry: the answer stands, its figure flagged (partial)
    "other_variant": (),
    "no_evidence": ("widen", "relax_filters"),
    "unanswered": ("widen", "relax_filters"),
    "conflicting_sources": (),  # nothing to retry: the answer states both sides (partial)
}
