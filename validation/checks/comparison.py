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
  - for each side whose value is a number, the units of its cited chunk that state it for that
    side (validation/figures.py) are read for their period and variant; when none of them fits,
    the first one decides: a figure dated outside the question's time window (its unit's own
    year, else its heading's; an undated figure is no finding) -> `other_period`; a figure of a
    variant the claim does not name for the side ("737-800" where it says "B737" or "B737 (737
    MAX 8)") -> `other_variant`. Both carry the side as entity and the cited chunk.
Pure and deterministic; issues in the order: sides (query order), then relation claims (each
claim's unit_mismatch / wrong_direction, then its sides' other_period / other_variant).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from core.reading.units import normalize_unit
from core.reading.variants import compact
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer, Claim
from perception.comparison import comparison_sides as perceived_sides
from perception.types import Entity, Perception, TimeWindow
from validation import text as tx
from validation.context import CheckContext
from validation.figures import Statement, figure_statements, named_variants
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
        missing_side issues, then per relation claim wrong_direction / unit_mismatch and
        other_period / other_variant issues.
    """
    issues: list[Issue] = []
    sides = comparison_sides(perception)
    if len(sides) >= 2:
        issues.extend(_missing_sides(sides, answer, evidence))
    by_id = {chunk.chunk_id: chunk for chunk in evidence}
    for index, claim in enumerate(answer.claims):
        if claim.kind == "relation":
            issue = _relation_issue(index, claim)
            if issue is not None:
                issues.append(issue)
            issues.extend(_figure_issues(index, claim, answer, by_id, perception))
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


def _figure_issues(index: int, claim: Claim, answer: Answer, by_id: dict[str, ScoredChunk],
                   perception: Perception | None) -> list[Issue]:
    """other_period / other_variant for each side of a relation claim whose figure, as its cited
    chunk states it, is of another period than the question asks or another variant than the
    claim names (see the module docstring)."""
    if claim.relation not in _HOLDS or len(claim.values) < 2:
        return []
    window = perception.constraints.time if perception is not None else None
    issues: list[Issue] = []
    for name, spec in list(claim.values.items())[:2]:
        value = spec.get("value") if isinstance(spec, dict) else None
        n = spec.get("n") if isinstance(spec, dict) else None
        citation = answer.citation(n) if isinstance(n, int) else None
        chunk = by_id.get(citation.chunk_id) if citation is not None else None
        if chunk is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        spellings = _spellings(name, perception)
        named = named_variants(spellings, tx.strip_markers(claim.text))
        statements = figure_statements(chunk, spellings, float(value), spec.get("unit"))
        misfits = [_misfits(s, window, named) for s in statements]
        if not statements or not all(misfits):
            continue
        statement, shown = statements[0], _shown(spec)
        if "period" in misfits[0] and window is not None:
            issues.append(Issue(CHECK, "other_period", f"claim {index + 1} gives {name}'s figure {shown}, which "
                                f"the evidence states for {statement.dating.shown()}, but the question asks "
                                f"about {_window_text(window)}", claim=index, chunk_id=chunk.chunk_id, entity=name))
        if "variant" in misfits[0]:
            issues.append(Issue(CHECK, "other_variant", f"claim {index + 1} gives {shown} as the {name} figure, "
                                f"but the evidence states it for the {statement.variant}, a variant the "
                                f"claim does not name", claim=index, chunk_id=chunk.chunk_id, entity=name))
    return issues


def _misfits(statement: Statement, window: TimeWindow | None, named: set[str]) -> set[str]:
    """What does not fit in one statement of a figure: "period" (dated outside the window) and
    "variant" (of a variant the claim does not name)."""
    out = set()
    if window is not None and statement.dating.within(window.start, window.end) is False:
        out.add("period")
    if statement.variant is not None and compact(statement.variant) not in named:
        out.add("variant")
    return out


def _spellings(name: str, perception: Perception | None) -> list[str]:
    """The spellings of the side a relation value is keyed by: its key, and the perceived side's
    surface and normalised forms when the key is one of them."""
    forms = [name]
    for side in comparison_sides(perception):
        if name in (side.text, side.normalized):
            forms += [side.text, side.normalized or side.text]
    return list(dict.fromkeys(forms))


def _window_text(window: TimeWindow) -> str:
    """The question's time window as a person reads it ("2023 (2023-01-01 to 2023-12-31)")."""
    bounds = f"{window.start or '…'} to {window.end or '…'}"
    return f"{window.text} ({bounds})" if window.text else bounds


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
