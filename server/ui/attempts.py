"""One attempt, for a person: each check's verdict on each claim, the answer scorer's reading,
and what a retry changed and how the evidence moved."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CheckRow:
    """One claim (or the answer as a whole) across the checks.

    Attributes:
        claim: the claim's index (None: findings about the whole answer).
        text: the claim as shown (None when withheld or unknown).
        cells: (check, its findings on this claim) for every check that ran; [] means it passed.
    """

    claim: int | None
    text: str | None
    cells: list[tuple[str, list[dict[str, Any]]]]


def check_rows(verdict: dict[str, Any], claims: list[dict[str, Any]] | None) -> list[CheckRow]:
    """Each check's verdict per claim.

    Promises: with `claims` (the final answer's) one row per claim, in order; without them (an
    earlier attempt, whose claims the body does not list) one row per claim some check found
    something about. Findings about no claim get a last row with `claim` None.
    """
    checks = list(verdict.get("checks_run") or [])
    issues = verdict.get("issues") or []
    for issue in issues:
        if issue.get("check") not in checks:
            checks.append(issue.get("check"))
    rows: list[tuple[int | None, str | None]]
    if claims is not None:
        rows = [(index, claim.get("text")) for index, claim in enumerate(claims)]
    else:
        rows = [(index, None) for index in sorted({i["claim"] for i in issues if i.get("claim") is not None})]
    if any(issue.get("claim") is None for issue in issues):
        rows.append((None, None))

    def findings(claim: int | None, check: str) -> list[dict[str, Any]]:
        return [i for i in issues if i.get("claim") == claim and i.get("check") == check]

    return [CheckRow(claim, text, [(check, findings(claim, check)) for check in checks]) for claim, text in rows]


@dataclass
class Moved:
    """Where a chunk stood in the evidence before and after a retry (None: not there)."""

    chunk_id: str
    before: int | None
    after: int | None

    @property
    def change(self) -> str:
        """"new", "dropped", "same", "up 2" or "down 1"."""
        if self.before is None:
            return "new"
        if self.after is None:
            return "dropped"
        if self.before == self.after:
            return "same"
        return f"up {self.before - self.after}" if self.after < self.before else f"down {self.after - self.before}"


@dataclass
class Retry:
    """What an attempt changed against the one before it.

    Attributes:
        hints: the adjustments validation asked for that the previous attempt did not have, each as
            (action, the issue kind it answers, its parameters as JSON text).
        added, removed: tasks of the plan (kb: query, search, filters) that appeared or went.
        excluded, dropped_claims: chunks and claims newly left out.
        evidence: every chunk of either attempt's evidence, where it stood before and after.
    """

    hints: list[tuple[str, str, str]]
    added: list[str]
    removed: list[str]
    excluded: list[str]
    dropped_claims: list[str]
    evidence: list[Moved] = field(default_factory=list)


def _task_key(task: dict[str, Any]) -> str:
    filters = ", ".join(f"{k}={v}" for k, v in sorted((task.get("filters") or {}).items()))
    return f"{task.get('kb')}: {task.get('search')} \"{task.get('query')}\"" + (f" ({filters})" if filters else "")


def _new(before: list[str] | None, after: list[str] | None) -> list[str]:
    """The items of `after` that `before` does not hold, in order."""
    return [item for item in after or [] if item not in (before or [])]


def retry(previous: dict[str, Any], attempt: dict[str, Any]) -> Retry:
    """The changes from `previous` to `attempt` (two items of a body's `attempts`)."""
    before_plan, after_plan = previous.get("plan") or {}, attempt.get("plan") or {}
    before_tasks = {_task_key(t) for t in before_plan.get("tasks") or []}
    after_tasks = [_task_key(t) for t in after_plan.get("tasks") or []]
    new_hints = [h for h in attempt.get("hints_in") or [] if h not in (previous.get("hints_in") or [])]
    before = {cid: k for k, cid in enumerate(previous.get("evidence") or [], start=1)}
    after = {cid: k for k, cid in enumerate(attempt.get("evidence") or [], start=1)}
    moved = [Moved(cid, before.get(cid), after.get(cid)) for cid in dict.fromkeys([*after, *before])]
    return Retry(
        hints=[(h.get("action", ""), h.get("reason", ""), json.dumps(h.get("params") or {}, ensure_ascii=False))
               for h in new_hints],
        added=[t for t in after_tasks if t not in before_tasks],
        removed=sorted(before_tasks - set(after_tasks)),
        excluded=_new(before_plan.get("excluded_chunks"), after_plan.get("excluded_chunks")),
        dropped_claims=_new(before_plan.get("dropped_claims"), after_plan.get("dropped_claims")),
        evidence=moved)


@dataclass
class Scoring:
    """How the composer ranked the evidence's units in one attempt.

    Attributes:
        model: the answer model's reading when it ranked them (threshold, refusal, best units with
            their probability `p` and the features that moved it most, `why`); None otherwise.
        term_weights: the question's terms and the weight the ranking gave each.
        units: (unit key `chunk@offset`, chosen, why) for every unit the composer explains.
    """

    model: dict[str, Any] | None
    term_weights: dict[str, float]
    units: list[tuple[str, bool, str]]


def scoring(attempt: dict[str, Any], compose: dict[str, Any] | None) -> Scoring:
    """The scorer's reading of an attempt from its `scoring` and its `compose` operation."""
    compose = compose or {}
    params = compose.get("params") or {}
    chosen = [(key, True, "chosen") for key in compose.get("kept") or []]
    others = [(key, False, why) for key, why in (compose.get("rejected") or {}).items()]
    return Scoring(attempt.get("scoring"), dict(params.get("term_weights") or {}), chosen + others)
