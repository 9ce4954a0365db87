"""Rule conditions (`when:` and `unless:`): parsed once at load, evaluated per Perception.

A condition is a mapping of tests that must all hold. Each test, when it holds, returns a
short phrase saying why ("the action is compare"), so a task's reason can quote the
conditions that produced it. Tests:

    always: true                      always holds
    action: compare | [compare, list] the perceived action is one of these
    language: en | [en, zh]           the query language is one of these
    has: [time, source, ...]          every listed constraint is present
    lacks: [time, ...]                none of the listed constraints is present
    entities_min: 2                   at least this many distinct entities ...
    entity_labels: [CODE, PRODUCT]    ... with these labels (alone: at least one)
    status: [draft, superseded]       the query asks for one of these statuses
    doc_type: [test_report, order]    the query asks for one of these document types
    text_matches: '\\bpublished\\b'   the query matches this regular expression (any case)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core import configfile as schema
from core.configfile import Where
from core.vocab import ACTIONS, DOC_TYPE_VALUES, ENTITY_LABELS, LANGUAGES, STATUS_VALUES
from perception.types import Entity, Perception

HAS_VALUES = ("time", "status", "doc_type", "source", "entities", "quantitative")
CONDITION_KEYS = ("always", "action", "language", "has", "lacks", "entities_min", "entity_labels",
                  "status", "doc_type", "text_matches")


def distinct_entities(perception: Perception, labels: tuple[str, ...] | None) -> list[Entity]:
    """Entities with one of `labels` (None: any label), one per normalized form, in query order."""
    seen: dict[str, Entity] = {}
    for entity in perception.entities:
        if labels is None or entity.label in labels:
            seen.setdefault(entity.normalized.casefold(), entity)
    return list(seen.values())


def join_names(names: list[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""


# --- what each `has` item means -------------------------------------------------------------

def _has_time(p: Perception) -> str | None:
    time = p.constraints.time
    return f"a time window ('{time.text}')" if time else None


def _has_list(name: str, label: str) -> Callable[[Perception], str | None]:
    def test(p: Perception) -> str | None:
        values = getattr(p.constraints, name)
        return f"{label} {', '.join(values)}" if values else None
    return test


def _has_entities(p: Perception) -> str | None:
    return f"entities {join_names([e.text for e in distinct_entities(p, None)])}" if p.entities else None


def _has_quantitative(p: Perception) -> str | None:
    return "a question for a number" if p.constraints.quantitative else None


_PRESENT: dict[str, Callable[[Perception], str | None]] = {
    "time": _has_time,
    "status": _has_list("status", "status"),
    "doc_type": _has_list("doc_type", "document type"),
    "source": _has_list("source", "source"),
    "entities": _has_entities,
    "quantitative": _has_quantitative,
}


# --- the tests: (parse the YAML value, evaluate against a perception) ------------------------

def _t_always(p: Perception, value: bool) -> str | None:
    return "it always applies" if value else None


def _t_action(p: Perception, value: tuple[str, ...]) -> str | None:
    return f"the action is {p.action}" if p.action in value else None


def _t_language(p: Perception, value: tuple[str, ...]) -> str | None:
    return f"the query is in {p.language}" if p.language in value else None


def _t_has(p: Perception, value: tuple[str, ...]) -> str | None:
    found = [_PRESENT[name](p) for name in value]
    return None if None in found else "the query has " + join_names([f for f in found if f])


def _t_lacks(p: Perception, value: tuple[str, ...]) -> str | None:
    if any(_PRESENT[name](p) for name in value):
        return None
    return "the query has no " + join_names([n.replace("_", " ") for n in value])


def _t_entities(p: Perception, value: tuple[int, tuple[str, ...] | None]) -> str | None:
    minimum, labels = value
    found = distinct_entities(p, labels)
    if len(found) < minimum:
        return None
    noun = "entity" if len(found) == 1 else "entities"
    return f"the query names {len(found)} {noun} ({join_names([e.text for e in found])})"


def _t_status(p: Perception, value: tuple[str, ...]) -> str | None:
    hit = [s for s in p.constraints.status if s in value]
    return f"the query asks for status {', '.join(hit)}" if hit else None


def _t_doc_type(p: Perception, value: tuple[str, ...]) -> str | None:
    hit = [d for d in p.constraints.doc_type if d in value]
    return f"the query asks for document type {', '.join(hit)}" if hit else None


def _t_text(p: Perception, value: re.Pattern) -> str | None:
    hit = value.search(p.query)
    return f"the query says '{hit.group(0)}'" if hit else None


def _p_always(where: Where, value: Any) -> bool:
    if value is not True:
        raise where.fail("must be true (to switch a rule off, use 'enabled: false')")
    return True


_PARSERS: dict[str, Callable[[Where, Any], Any]] = {
    "always": _p_always,
    "action": lambda w, v: schema.choices(w, v, ACTIONS, "action"),
    "language": lambda w, v: schema.choices(w, v, LANGUAGES, "language"),
    "has": lambda w, v: schema.choices(w, v, HAS_VALUES, "constraint"),
    "lacks": lambda w, v: schema.choices(w, v, HAS_VALUES, "constraint"),
    "status": lambda w, v: schema.choices(w, v, STATUS_VALUES, "status"),
    "doc_type": lambda w, v: schema.choices(w, v, DOC_TYPE_VALUES, "doc_type"),
    "text_matches": schema.regex,
}

_TESTS: dict[str, Callable[[Perception, Any], str | None]] = {
    "always": _t_always, "action": _t_action, "language": _t_language, "has": _t_has,
    "lacks": _t_lacks, "entities": _t_entities, "status": _t_status, "doc_type": _t_doc_type,
    "text_matches": _t_text,
}


@dataclass(frozen=True)
class Condition:
    """All tests of one `when:` (or `unless:`) mapping.

    Attributes:
        tests: (test name, parsed value) pairs, in the order written.
    """

    tests: tuple[tuple[str, Any], ...]

    def match(self, perception: Perception) -> list[str] | None:
        """Why the condition holds (one phrase per test), or None when any test fails."""
        reasons = []
        for name, value in self.tests:
            reason = _TESTS[name](perception, value)
            if reason is None:
                return None
            reasons.append(reason)
        return reasons


def parse_condition(where: Where, data: Any) -> Condition:
    """A Condition from a `when:`/`unless:` mapping.

    Raises:
        ConfigError: an unknown test (listing the known ones), a bad value, an empty mapping.
    """
    data = schema.mapping(where, data, CONDITION_KEYS)
    if not data:
        raise where.fail("is empty; give at least one test (e.g. 'always: true'); "
                         f"known tests: {schema.known(CONDITION_KEYS)}")
    tests: list[tuple[str, Any]] = []
    for key, value in data.items():
        if key in ("entities_min", "entity_labels"):
            continue
        tests.append((key, _PARSERS[key](where.at(key), value)))
    if "entities_min" in data or "entity_labels" in data:
        minimum = schema.integer(where.at("entities_min"), data.get("entities_min", 1), minimum=1)
        labels = (schema.choices(where.at("entity_labels"), data["entity_labels"], ENTITY_LABELS, "entity label")
                  if "entity_labels" in data else None)
        tests.append(("entities", (minimum, labels)))
    return Condition(tuple(tests))
