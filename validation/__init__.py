"""Validation agent: one module per check, the verdict and retry hints.

    from validation import ValidationAgent
    verdict = ValidationAgent().run(perception, answer, evidence, now=date(2025, 7, 10))
"""

from validation.agent import DEFAULT_CHECKS, ValidationAgent
from validation.context import STALE_STATUSES, CheckContext
from validation.hints import HINT_RULES, hints_for
from validation.types import ISSUE_KINDS, Adjustment, Issue, Verdict

__all__ = ["ValidationAgent", "DEFAULT_CHECKS", "CheckContext", "STALE_STATUSES", "HINT_RULES", "hints_for",
           "ISSUE_KINDS", "Issue", "Adjustment", "Verdict"]
