"""Contracts the Validation agent produces (DESIGN.md section 3): issues, hints, the verdict.

Findings are data, never exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# check -> the issue kinds it can report
ISSUE_KINDS = {
    "citation": ("missing_citation", "invalid_citation", "unsupported_number", "unsupported_date",
                 "unsupported_term"),
    "freshness": ("outside_window", "stale_status", "too_old"),
    "comparison": ("missing_side", "wrong_direction", "unit_mismatch"),
    "evidence": ("no_evidence",),
}


@dataclass
class Issue:
    """One validation finding.

    Attributes:
        check: "citation", "freshness", "comparison" or "evidence".
        kind: one of ISSUE_KINDS[check].
        claim: index of the claim in Answer.claims, or None when not about one claim.
        chunk_id: the cited chunk concerned, if any.
        entity: the comparison entity concerned, if any.
        detail: a sentence a person can read (what was expected, what was found).
    """

    check: str
    kind: str
    detail: str
    claim: int | None = None
    chunk_id: str | None = None
    entity: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Hint:
    """A suggestion to the router for the next attempt.

    Attributes:
        action: "add_entity_task" (entity), "add_time_filter" (start/end ISO dates),
            "exclude_status" (values), "exclude_chunk" (chunk_id), "drop_claim" (claim),
            "widen" (factor), "relax_filters".
        reason: the issue kind that produced it.
        params: the action's parameters.
    """

    action: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "reason": self.reason, "params": dict(self.params)}


@dataclass
class Verdict:
    """The outcome of validating one answer."""

    ok: bool
    issues: list[Issue] = field(default_factory=list)
    hints: list[Hint] = field(default_factory=list)
    checks_run: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "issues": [i.to_dict() for i in self.issues],
                "hints": [h.to_dict() for h in self.hints], "checks_run": list(self.checks_run)}
