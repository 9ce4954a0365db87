"""Publications a question cites ("an article by Bloomberg", "as reported by The Verge") that no
knowledge base holds documents from.

A question built on a source the knowledge bases do not have cannot be answered from them,
however on-topic the retrieved text is; Validation refuses it (validation/checks/answerability.py)
and says which publication is missing. Promises: only names in a publication slot count (next to
article, report, piece, story, column, op-ed, editorial, or after "reported by", "according to");
a name that any known source (or its alias) covers is never listed; without known sources
nothing is listed (there is nothing to compare with). Deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.text import CALENDAR_WORD

_NAME = r"(?:[Tt]he\s+)?[A-Z0-9][\w.&'’-]*(?:\s+(?:of\s+|&\s+|and\s+)?[A-Z0-9][\w.&'’-]*){0,4}"
# the nouns of a published work; "feature", "review", "post", "release" also name other things
_WORK = r"(?:article|report|piece|story|column|op-ed|editorial)s?"
_SLOTS = (
    re.compile(rf"\b{_WORK}\s+(?:from|by|in)\s+(?P<name>{_NAME})"),  # "a report on X" is about X
    re.compile(rf"(?P<name>{_NAME})(?:['’]s)?\s+(?:{_WORK})\b"),
    re.compile(rf"\b(?i:reported|published|written|detailed|noted|covered)\s+(?:by|in)\s+(?P<name>{_NAME})"),
    re.compile(rf"\b(?i:according)\s+to\s+(?P<name>{_NAME})"),
)
# Capitalised words that open a name slot without being a name.
_NOT_NAMES = frozenset({"a", "an", "the", "this", "that", "these", "those", "both", "each", "another", "one",
                        "two", "separate", "recent", "latest", "same", "its", "their", "his", "her", "which",
                        "what", "considering", "based", "according", "did", "does", "do", "was", "is", "after",
                        "before", "between", "following", "in", "on", "from", "by"})


def cited_publications(query: str) -> list[str]:
    """The publication names in the query's publication slots, in order, without repeats."""
    out: list[str] = []
    for pattern in _SLOTS:
        for match in pattern.finditer(query):
            name = match.group("name").strip(" .,'’")
            words = name.split()
            while words and (words[0].lower() in _NOT_NAMES - {"the"} or words[0] == "the"):
                words = words[1:]  # "the Sporting News article": the article is not the name
            if not words or all(w.lower() in _NOT_NAMES for w in words):
                continue
            name = " ".join(words)
            if CALENDAR_WORD.match(name):
                continue  # "the November 27 article": a date, not an outlet
            if name[:1].isupper() and name not in out:
                out.append(name)
    return out


def unknown_publications(query: str, known: tuple[str, ...], covers: Callable[[str], bool]) -> list[str]:
    """The cited publications no known source covers (`covers(name)`: a source or alias matches it).

    Args:
        query: the question.
        known: the knowledge bases' source names (none: nothing can be judged, [] returned).
        covers: True when a known source or one of its aliases is found in the name.
    """
    if not known:
        return []
    out: list[str] = []
    for name in cited_publications(query):
        if covers(name):  # "The Independent - Life and Style" as a whole
            continue
        for part in re.split(r"\s+(?:and|&)\s+", name):  # "Bloomberg and The Verge": each outlet
            if part[:1].isupper() and part.lower() not in _NOT_NAMES and not covers(part) and part not in out:
                out.append(part)
    return out
