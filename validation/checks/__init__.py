"""The validation checks, one module each; every one is a pure function

    check(perception, answer, evidence, context) -> list[Issue]

that reports findings as data and never raises for one. CHECKS maps a check's name (as in
ISSUE_KINDS) to its function, in the order the agent runs them by default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer
from perception.types import Perception
from validation.checks import answerability, citation, comparison, conflict, evidence, freshness
from validation.context import CheckContext
from validation.types import Issue

Check = Callable[[Perception | None, Answer, Sequence[ScoredChunk], CheckContext], list[Issue]]

CHECKS: dict[str, Check] = {
    "citation": citation.check,
    "freshness": freshness.check,
    "comparison": comparison.check,
    "evidence": evidence.check,
    "answerability": answerability.check,
    "conflict": conflict.check,
}

__all__ = ["CHECKS", "Check", "answerability", "citation", "comparison", "conflict", "evidence", "freshness"]
