"""Comparison check: a comparison covers every side, and its stated relations hold.

Promises:
- Sides: when perception.action is "compare", `perception.comparison.comparison_sides` (the sides the
  composer wrote about too: perception/comparison.py). With two or
  more sides, a side that no cited claim mentions (its text, its `entity`, or a key of its
  `values`) and no cited chunk mentions (title or text) -> `missing_side` with the entity; the
  detail says whether some uncited evidence mentions it.
- Relations: every relation claim with a `relation` and two `values` ({"value", "unit", "n"};
  the first key is the subject, the second the object), whatever the action:
  - units that are both given and differ after normalisation (kg/h vs kg/seat/h) ->
    `unit_mismatch` (no direction is judged then);
  - a relation the two values contradict (higher/later: a > b; lower/earlier: a < b; same:
    a == b) -> `wrong_direction`. Values may be numbers, numeric strings or ISO dates.
Pure and deterministic; issues in the order: sides (query order), then relation claims.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from core.reading.units import normalize_unit
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer, Claim
from perception.comparison import comparison_sides as perceived_sides
from perception.types import Entity, Perception
from validation import text as tx
from validation.context import CheckContext
from validation.reasons import Reason
from validation.types import Issue

CHECK = "comparison"
_HOLDS = {"higher": lambda a, b: a > b, "later": lambda a, b: a > b,
          "lower": lambda a, b: a < b, "earlier": lambda a, b: a < b,
          "same": lambda a, b: tx.same_value(a, b)}


def check(perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
          context: CheckContext) -> list[Issue]:
    """Comparison issues of the answer (see the module docstring).

    Args:
        perception: the action and the entities (sides); None skips the side check.
        answer: the composed answer.
        evidence: the chunks the composer was given.
        context: unused.

    Returns:
        missing_side issues, then wrong_direction / unit_mismatch issues.
    """
    issues: list[Issue] = []
    sides = comparison_sides(perception)
    if len(sides) >= 2:
        issues.extend(_missing_sides(sides, answer, evidence))
    for index, claim in enumerate(answer.claims):
        if claim.kind == "relation":
            issue = _relation_issue(index, claim)
            if issue is not None:
                issues.append(issue)
    return issues


def comparison_sides(perception: Perception | None) -> list[Entity]:
    """The sides a comparison query compares: Perception's (perception/comparison.py), the
    same ones the composer wrote about."""
    if perception is None or perception.action != "compare":
        return []
    return perceived_sides(perception)


def _mentioned(entity: Entity, text: str) -> bool:
    """True when the text mentions the entity by its surface or normalised form."""
    return any(tx.mentions(form, text) for form in dict.fromkeys((entity.text, entity.normalized)) if form)


def _from_source(side: Entity, chunk: ScoredChunk) -> bool:
    """True when the chunk comes from the publication the side names."""
    names = {form.lower() for form in (side.text, side.normalized) if form}
    return str(chunk.metadata.get("source", "")).lower() in names


def _missing_sides(sides: list[Entity], answer: Answer, evidence: Sequence[ScoredChunk]) -> list[Issue]:
    """A missing_side issue for each side the answer's cited material does not cover."""
    by_id = {chunk.chunk_id: chunk for chunk in evidence}
    claims = [c for c in answer.claims if c.kind != "notice" and c.citations]
    claim_texts = [" ".join([tx.strip_markers(c.text), c.entity or "", *c.values.keys()]) for c in claims]
    cited = {cit.chunk_id for c in claims for n in c.citations if (cit := answer.citation(n)) is not None}
    cited_texts = [f"{by_id[i].title}\n{by_id[i].text}" for i in sorted(cited) if i in by_id]
    issues: list[Issue] = []
    for side in sides:
        if side.label == "SOURCE":
            # A publication is covered by citing one of its articles (articles rarely name their outlet).
            if any(_from_source(side, by_id[i]) for i in cited if i in by_id):
                continue
            elsewhere = [c.chunk_id for c in evidence if _from_source(side, c)]
        elif any(_mentioned(side, t) for t in claim_texts + cited_texts):
            continue
        else:
            elsewhere = [c.chunk_id for c in evidence if _mentioned(side, f"{c.title}\n{c.text}")]
        reason = Reason("missing_side", {"side": side.text, "elsewhere": elsewhere})
        issues.append(Issue.of(CHECK, "missing_side", reason, entity=side.normalized or side.text))
    return issues


def _relation_issue(index: int, claim: Claim) -> Issue | None:
    """unit_mismatch or wrong_direction for a relation claim, or None when it holds (or cannot be judged)."""
    if claim.relation not in _HOLDS or len(claim.values) < 2:
        return None
    (name_a, spec_a), (name_b, spec_b) = list(claim.values.items())[:2]
    unit_a, unit_b = _unit(spec_a), _unit(spec_b)
    if unit_a and unit_b and unit_a != unit_b:
        return Issue(CHECK, "unit_mismatch", f"claim {index + 1} compares {name_a} in {unit_a} with "
                     f"{name_b} in {unit_b}", claim=index)
    a, b = _number(spec_a), _number(spec_b)
    if a is None or b is None or _HOLDS[claim.relation](a, b):
        return None
    return Issue(CHECK, "wrong_direction", f"claim {index + 1} says {name_a} is {claim.relation} than "
                 f"{name_b}, but the values are {_shown(spec_a)} and {_shown(spec_b)}",
                 claim=index, entity=name_a)


def _unit(spec: Any) -> str | None:
    """The normalised unit of a relation value, or None."""
    return normalize_unit(spec.get("unit")) if isinstance(spec, dict) else None


def _number(spec: Any) -> float | None:
    """A relation value as a number (dates as day ordinals), or None when it is not one."""
    value = spec.get("value") if isinstance(spec, dict) else spec
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dt.date):
        return float(value.toordinal())
    if isinstance(value, str):
        try:
            return float(dt.date.fromisoformat(value.strip()[:10]).toordinal())
        except ValueError:
            pass
        try:
            return float(value.replace(",", "").strip())
        except ValueError:
            return None
    return None


def _shown(spec: Any) -> str:
    """A relation value as a person reads it ("2290 kg/h")."""
    if not isinstance(spec, dict):
        return str(spec)
    value = spec.get("value")
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{shown} {spec.get('unit') or ''}".strip()
