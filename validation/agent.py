"""ValidationAgent: runs the checks on one answer and returns the Verdict with retry hints.

Contract (as every Sightline agent): a cheap constructor of plain values, checked there;
`warm_up()` for heavy state; `run()` returns the output. Checks are chosen by name through
`validation.checks.CHECKS` once, in the constructor.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping, Sequence

from core.errors import ConfigError
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer
from perception.types import Perception
from validation.checks import CHECKS, Check
from validation.context import STALE_STATUSES, CheckContext
from validation.hints import hints_for
from validation.types import Issue, Verdict

DEFAULT_CHECKS = ("citation", "freshness", "comparison", "evidence", "answerability", "conflict")


class ValidationAgent:
    """Validate an answer against the query and the evidence it was composed from.

    Args:
        checks: the checks to run, in order; names from `validation.checks.CHECKS`.
        stale_statuses: statuses the freshness check treats as stale.
        max_age_days: per KB, the maximum document age in days when the query has no time
            window ("*" for every KB; None = no limit).

    Raises:
        ConfigError: an unknown check name, a repeated one, or a negative maximum age
            (the message lists the valid values).
    """

    def __init__(self, checks: Sequence[str] = DEFAULT_CHECKS, stale_statuses: Sequence[str] = STALE_STATUSES,
                 max_age_days: Mapping[str, int | None] | None = None) -> None:
        unknown = [name for name in checks if name not in CHECKS]
        if unknown:
            raise ConfigError(f"unknown validation check(s) {', '.join(map(repr, unknown))}; "
                              f"known: {', '.join(CHECKS)}", field="checks")
        if len(set(checks)) != len(checks):
            raise ConfigError(f"validation checks listed twice: {list(checks)}", field="checks")
        self.checks: tuple[str, ...] = tuple(checks)
        self.stale_statuses: tuple[str, ...] = tuple(s.lower() for s in stale_statuses)
        self.max_age_days: dict[str, int | None] = _checked_ages(max_age_days or {})
        self._run_check: dict[str, Check] = {name: CHECKS[name] for name in self.checks}

    def warm_up(self) -> None:
        """Load the tokeniser's Chinese dictionary now rather than on the first request."""
        from orchestration.retrieval.tokenize import tokenize

        tokenize("预热")

    def run(self, perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
            now: dt.date, max_age_days: Mapping[str, int | None] | None = None,
            unwritten: Sequence[str] = ()) -> Verdict:
        """Run every configured check and build the verdict.

        Args:
            perception: the query as understood (time window, statuses asked for, sides).
            answer: the composed answer.
            evidence: the chunks the composer was given.
            now: the request's date (RequestContext.now): ages count from it.
            max_age_days: replaces the constructor's maximum ages for this call.
            unwritten: the question's specific words no knowledge base searched writes
                (orchestration/unwritten.py); the answerability check refuses on them.

        Returns:
            Verdict(ok = no issues, issues in check order, hints, checks_run).
        """
        return self.run_with_timing(perception, answer, evidence, now, max_age_days, unwritten)[0]

    def run_with_timing(self, perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
                        now: dt.date, max_age_days: Mapping[str, int | None] | None = None,
                        unwritten: Sequence[str] = ()) -> tuple[Verdict, dict[str, float]]:
        """`run()`, also returning how long each check took.

        Returns:
            (verdict, {check name: milliseconds}) with the checks in the order they ran.
        """
        context = self.context(now, max_age_days, unwritten)
        issues: list[Issue] = []
        timing: dict[str, float] = {}
        for name, check in self._run_check.items():
            started = time.perf_counter()
            issues.extend(check(perception, answer, evidence, context))
            timing[name] = round((time.perf_counter() - started) * 1000, 3)
        hints = hints_for(issues, perception, evidence, context, answer.claims)
        return Verdict(ok=not issues, issues=issues, hints=hints, checks_run=list(self.checks)), timing

    def context(self, now: dt.date, max_age_days: Mapping[str, int | None] | None = None,
                unwritten: Sequence[str] = ()) -> CheckContext:
        """The CheckContext a run uses: `now` is the request's date (a datetime's date)."""
        today = now.date() if isinstance(now, dt.datetime) else now
        ages = _checked_ages(max_age_days) if max_age_days is not None else self.max_age_days
        return CheckContext(now=today, max_age_days=ages, stale_statuses=self.stale_statuses,
                            unwritten=tuple(unwritten))


def _checked_ages(ages: Mapping[str, int | None]) -> dict[str, int | None]:
    """The maximum ages as a plain dict, each None or a non-negative int.

    Raises:
        ConfigError: a value that is not a non-negative integer or None.
    """
    out: dict[str, int | None] = {}
    for kb, days in ages.items():
        if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 0):
            raise ConfigError(f"max_age_days[{kb!r}] must be a whole number of days >= 0 or null, "
                              f"got {days!r}", field=f"max_age_days.{kb}")
        out[str(kb)] = days
    return out
