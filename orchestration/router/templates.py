"""Query and reason templates: `{placeholder}` text checked at load, filled per task.

A template names only known placeholders; `{entity}` needs `for_each: entity` and `{source}`
needs `for_each: source` (checked at load, so a typo never reaches a request). Filling never
fails: an absent value is an empty string and runs of spaces collapse to one.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

from core import configfile as schema
from core.configfile import Where
from orchestration.focus import asks_author
from perception.types import Entity, Perception

from .conditions import join_names

# placeholder -> what it holds (the operator documentation repeats this table)
PLACEHOLDERS = {
    "query": "the query as the user wrote it",
    "keywords": "the perceived keywords, space-separated",
    "topic": "the keywords minus the compared entities (what is compared: 'fuel burn')",
    "entity": "the entity of this task (for_each: entity)",
    "entities": "the entities the for_each iterates over, joined ('A320 and B737')",
    "source": "the source of this task (for_each: source)",
    "sources": "the sources the query names, joined",
    "time": "the time phrase of the query ('2023', 'last week')",
    "status": "the statuses the query asks for",
    "doc_type": "the document types the query asks for",
    "kb": "the knowledge base this task searches",
    "action": "the perceived action (compare, lookup, ...)",
    "language": "the query language (en, zh)",
}
NEEDS_FOR_EACH = {"entity": "entity", "source": "source"}


@dataclass(frozen=True)
class Template:
    """A checked template.

    Attributes:
        text: the template as written.
        fields: the placeholders it uses.
    """

    text: str
    fields: frozenset[str]

    def fill(self, values: dict[str, str]) -> str:
        """The template with every placeholder replaced, whitespace collapsed and trimmed."""
        filled = self.text.format_map({name: values.get(name, "") for name in self.fields})
        return " ".join(filled.split())


def parse_template(where: Where, value: Any, for_each: str | None) -> Template:
    """A Template from config text.

    Args:
        where: the place in the config, for errors.
        value: the template text.
        for_each: the emit's for_each ("entity", "source" or None).

    Raises:
        ConfigError: not text, bad braces, an unknown placeholder, or `{entity}`/`{source}`
            without the matching for_each.
    """
    text = schema.text(where, value)
    try:
        parts = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise where.fail(f"bad braces in '{text}' ({exc}); write {{{{ and }}}} for literal braces") from exc
    fields = set()
    for _literal, name, spec, conversion in parts:
        if name is None:
            continue
        if name not in PLACEHOLDERS:
            raise where.fail(f"unknown placeholder '{{{name}}}'; known: "
                             f"{schema.known('{' + p + '}' for p in PLACEHOLDERS)}{schema.suggest(name, PLACEHOLDERS)}")
        if spec or conversion:
            raise where.fail(f"placeholder '{{{name}}}' takes no format spec or conversion")
        needed = NEEDS_FOR_EACH.get(name)
        if needed and for_each != needed:
            raise where.fail(f"placeholder '{{{name}}}' needs 'for_each: {needed}' on the same emit")
        fields.add(name)
    return Template(text, frozenset(fields))


def topic(perception: Perception, compared: list[Entity]) -> str:
    """The keywords that are not one of the compared entities (case-insensitive)."""
    names = {n.casefold() for e in compared for n in (e.text, e.normalized)}
    return " ".join(k for k in perception.keywords if k.casefold() not in names)


def keywords(perception: Perception) -> str:
    """The perceived keywords, space-separated, plus "author" when the question asks who wrote or
    proposed something: documents say so in an author field ("PEP 484 – Author: Guido van Rossum,
    ..."), which "wrote PEP 484" alone does not find by keyword."""
    words = list(perception.keywords)
    if perception.slot == "actor" and asks_author(perception.slot_head or "") and "author" not in words:
        words.append("author")
    return " ".join(words)


def values(perception: Perception, kb: str, compared: list[Entity], entity: Entity | None = None,
           source: str | None = None) -> dict[str, str]:
    """Every placeholder's value for one task.

    Args:
        perception: the query's perception.
        kb: the knowledge base of the task.
        compared: the entities a `for_each: entity` iterates over (for {topic}/{entities}).
        entity: this task's entity, if any.
        source: this task's source, if any.
    """
    c = perception.constraints
    return {
        "query": perception.query,
        "keywords": keywords(perception),
        "topic": topic(perception, compared),
        "entity": entity.text if entity else "",
        "entities": join_names([e.text for e in compared]),
        "source": source or "",
        "sources": join_names(list(c.source)),
        "time": c.time.text if c.time else "",
        "status": ", ".join(c.status),
        "doc_type": ", ".join(c.doc_type),
        "kb": kb,
        "action": perception.action,
        "language": perception.language,
    }
