"""The sides of a comparison, read once from the query: the one implementation every agent uses.

The composer writes one paragraph per side and the validator checks every side is
evidenced; both call `comparison_sides(perception)` here, so they cannot disagree about what is
compared (they once did: for `Compare "Project Falcon" and "Project Eagle" budgets` the
composer found no side and the validator two, so validation asked for retries the composer
could never satisfy).

Rules, in order:
1. When two or more different publications (SOURCE) are named, they are the sides ("Did
   TechCrunch and The Verge agree on ..."): outlets are what is compared.
2. Otherwise every entity that names what a question is about (core.vocab.SUBJECT_LABELS:
   named things and quoted phrases) or a source, in query order, one per spelling (an entity
   whose text or normal form equals an earlier side's is the same side).
3. When that gives exactly one side, the name across a connector from it ("A320 vs the
   B737", "发票和合同") is the other side, marked `origin="inferred"`, when it looks like a name
   (holds a capital letter or a digit).
Pure and deterministic.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.vocab import SUBJECT_LABELS

from .types import Entity, Perception

SIDE_LABELS = SUBJECT_LABELS | {"SOURCE"}
INFERRED = "inferred"  # Entity.origin of a side read across a connector, not extracted

_CONNECTOR = re.compile(r"\s+(?:vs\.?|versus|and|or|against|compared\s+(?:to|with))\s+"
                        r"|\s*(?:和|与|跟|同|还是|对比|、)\s*", re.I)
_NAME_AFTER = re.compile(r"^(?:the\s+)?([A-Za-z0-9][A-Za-z0-9\-]*(?:\s+[A-Za-z0-9][A-Za-z0-9\-]*){0,3})")
_NAME_BEFORE = re.compile(r"([A-Za-z0-9][A-Za-z0-9\-]*(?:\s+[A-Za-z0-9][A-Za-z0-9\-]*){0,3})$")
_NAME_STOP = {"in", "for", "on", "during", "at", "with", "by", "of", "the", "a", "an", "from", "to",
              "fuel", "compare", "which", "is", "are", "and", "or", "per", "what", "how"}


def _forms(entity: Entity) -> set[str]:
    return {form.lower().strip() for form in (entity.text, entity.normalized) if form and form.strip()}


def comparison_sides(perception: Perception) -> list[Entity]:
    """The entities a comparison of this query compares, in query order (see the module rules).

    Computed whatever the action; whether the query compares is `perception.action`'s to say.
    """
    entities = sorted(perception.entities, key=lambda e: e.span)
    outlets = [e for e in entities if e.label == "SOURCE"]
    if len({(e.normalized or e.text).lower() for e in outlets}) >= 2:
        entities = outlets
    sides: list[Entity] = []
    for entity in entities:
        if entity.label not in SIDE_LABELS or any(_forms(entity) & _forms(side) for side in sides):
            continue
        sides.append(entity)
    if len(sides) == 1:
        found = sides[0]
        name = _infer_name(perception.query, *found.span)
        if name and name.lower() not in _forms(found) and re.search(r"[A-Z0-9]", name):
            start = perception.query.find(name)
            other = replace(found, text=name, normalized=name, span=(start, start + len(name)), origin=INFERRED)
            sides = sorted([found, other], key=lambda e: e.span)
    return sides


def _infer_name(query: str, start: int, end: int) -> str | None:
    """The name on the other side of a connector next to the span (start, end), if any."""
    after = _CONNECTOR.match(query, end)
    if after:
        match = _NAME_AFTER.match(query[after.end():])
        if match:
            words = match.group(1).split()
            cut = next((i for i, w in enumerate(words) if not _name_word(w)), len(words))
            return " ".join(words[:cut]) or None
    before = [m for m in _CONNECTOR.finditer(query, 0, start) if m.end() == start]
    if before:
        match = _NAME_BEFORE.search(query[:before[-1].start()])
        if match:
            words = match.group(1).split()
            cut = max((i + 1 for i, w in enumerate(words) if not _name_word(w)), default=0)
            return " ".join(words[cut:]) or None
    return None


def _name_word(word: str) -> bool:
    """True for a word that can be part of a name: capitalised or holding a digit, not a stopword."""
    return word.lower() not in _NAME_STOP and (word[0].isupper() or any(ch.isdigit() for ch in word))
