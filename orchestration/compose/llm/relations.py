"""Comparison relations read from a generated sentence, so the comparison check can judge them.

An extractive relation claim carries its values and direction as data; a generated sentence
("The A320neo burns 2,290 kg per hour, more than the 737 MAX 8 at 2,360 kg [1].") carries them
as words. `read_relation` recovers them when the sentence names two compared sides, gives each
one value of the same kind (the first quantity or date after the side's mention, before the
next side's), and uses one comparative word. Otherwise it returns None and the sentence stays
a plain fact (its numbers are still checked against the cited chunks). Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.reading.dates import stated_dates
from core.reading.quantities import stated_quantities

from ..comparison import Side

# (pattern, relation of the subject, the first side named, to the other)
_WORDS: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"\b(?:more|higher|greater|larger|bigger|heavier|longer|exceeds?|above)\b|高于|多于|大于"), "higher"),
    (re.compile(r"\b(?:less|lower|fewer|smaller|lighter|shorter|below)\b|低于|少于|小于"), "lower"),
    (re.compile(r"\b(?:earlier|before|sooner)\b|早于"), "earlier"),
    (re.compile(r"\b(?:later|after)\b|晚于"), "later"),
    (re.compile(r"\b(?:the same as|equal to|as much as)\b|等于|相同"), "same"),
)
_MARKER = re.compile(r"\s*\[\s*(\d+)(?:\s*[,，、]\s*\d+)*\s*\]")


@dataclass(frozen=True)
class Relation:
    """What a sentence says about two sides: values {side: {"value", "unit", "n"}} and the relation."""

    values: dict[str, dict[str, Any]]
    relation: str


def read_relation(sentence: str, sides: Sequence[Side], default_n: int | None) -> Relation | None:
    """The relation a sentence states between two sides, or None (see the module docstring).

    Args:
        sentence: the claim text with its (already renumbered) [n] markers.
        sides: the comparison's sides, as the composer matches them.
        default_n: the citation of a value that has no marker of its own after it.
    """
    named = sorted(((at, side) for side in sides if (at := side.mention_at(sentence)) is not None),
                   key=lambda pair: pair[0])
    if len(named) < 2:
        return None
    relation = _relation_word(sentence, named[0][0])
    if relation is None:
        return None
    values: dict[str, dict[str, Any]] = {}
    for k, (at, side) in enumerate(named[:2]):
        end = named[k + 1][0] if k + 1 < len(named) else len(sentence)
        value = _first_value(sentence, at, end, relation in ("earlier", "later"))
        if value is None:
            return None
        value["n"] = _marker_after(sentence, value.pop("end"), default_n)
        values[side.name] = value
    return Relation(values, relation)


def _relation_word(sentence: str, after: int) -> str | None:
    """The relation of the first comparative word after the first side's mention."""
    found = [(m.start(), relation) for pattern, relation in _WORDS for m in pattern.finditer(sentence.lower(), after)]
    return min(found)[1] if found else None


def _first_value(sentence: str, start: int, end: int, dated: bool) -> dict[str, Any] | None:
    """The first date (dated) or quantity with a unit in sentence[start:end], with where it ends."""
    window = sentence[start:end]
    if dated:
        days = stated_dates(window)
        if not days:
            return None
        return {"value": days[0].value.isoformat(), "unit": None, "end": start + days[0].span[1]}
    quantities = [q for q in stated_quantities(window) if q.unit]
    if not quantities:
        return None
    first = quantities[0]
    return {"value": first.value, "unit": first.unit, "end": start + first.span[1]}


def _marker_after(sentence: str, at: int, default_n: int | None) -> int | None:
    """The first citation number of the marker right after a value (before the next word), else default_n."""
    match = _MARKER.match(sentence, at)
    return int(match.group(1)) if match else default_n
