"""Contracts the Validation agent produces (DESIGN.md section 3): issues, hints, the verdict.

Issue kinds are core.vocab's; the verdict's hints are the router's typed adjustments
(router/adjust.py): validation asks for them, the router carries them out.

Findings are data, never exceptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.vocab import ISSUE_KINDS  # noqa: F401 - re-exported: check -> issue kinds
from orchestration.router.adjust import Adjustment  # noqa: F401 - re-exported: what validation asks the router
from validation.reasons import Reason


@dataclass
class Issue:
    """One validation finding.

    Attributes:
        check: "citation", "freshness", "comparison" or "evidence".
        kind: one of ISSUE_KINDS[check].
        claim: index of the claim in Answer.claims, or None when not about one claim.
        chunk_id: the cited chunk concerned, if any.
        entity: the comparison entity concerned, if any.
        detail: a sentence a person can read (what was expected, what was found), in English.
        reason: for a refusing finding, the reason as data (validation/reasons.py), which the
            service writes in the question's language.
    """

    check: str
    kind: str
    detail: str
    claim: int | None = None
    chunk_id: str | None = None
    entity: str | None = None
    reason: Reason | None = None

    @classmethod
    def of(cls, check: str, kind: str, reason: Reason, **where: Any) -> Issue:
        """A finding that carries its reason; its `detail` is the reason's English text."""
        return cls(check, kind, reason.text("en"), reason=reason, **where)

    def text(self, language: str = "en") -> str:
        """What was found, in `language` when the finding carries a reason (else its English detail)."""
        return self.reason.text(language) if self.reason is not None else self.detail

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__, reason=self.reason.to_dict() if self.reason is not None else None)


@dataclass
class Verdict:
    """The outcome of validating one answer."""

    ok: bool
    issues: list[Issue] = field(default_factory=list)
    hints: list[Adjustment] = field(default_factory=list)
    checks_run: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "issues": [i.to_dict() for i in self.issues],
                "hints": [h.to_dict() for h in self.hints], "checks_run": list(self.checks_run)}
