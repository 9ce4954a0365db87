"""Plan adjustments a validation result may ask the router for: the contract between the two.

Validation reports issues and, for each, the adjustments that could fix it (a `Hint`:
action, the issue kind it answers, its parameters); the router carries out those its retry
table allows for that kind (router/hints.py). The router owns this vocabulary because it is
the one that must be able to carry each action out; validation imports it (the allowed
direction: validation sits above orchestration).

| action           | params                                   | effect on the next attempt                |
|------------------|------------------------------------------|-------------------------------------------|
| add_entity_task  | entity                                   | a task per KB for that entity alone       |
| add_time_filter  | start, end (ISO or null), kb (optional)  | tasks restricted to the window            |
| exclude_status   | values                                   | documents with those statuses left out    |
| exclude_chunk    | chunk_id                                 | that chunk never comes back               |
| drop_claim       | claim (index)                            | the claim's sentence is not composed again|
| widen            | factor                                   | top_k multiplied (capped)                 |
| relax_filters    | -                                        | perceived status / doc_type filters go    |
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ACTIONS = ("add_entity_task", "add_time_filter", "exclude_status", "exclude_chunk", "drop_claim",
           "widen", "relax_filters")

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
    "no_evidence": ("widen", "relax_filters"),
}


@dataclass
class Hint:
    """A suggestion to the router for the next attempt.

    Attributes:
        action: one of ACTIONS.
        reason: the issue kind that produced it (core.vocab.ALL_ISSUE_KINDS).
        params: the action's parameters (the table above).
    """

    action: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "reason": self.reason, "params": dict(self.params)}
