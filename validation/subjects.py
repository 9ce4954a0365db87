"""Which subject a number is stated for: the named thing a sentence says it of.

Promises:
- Subjects are the question's named entities (Perception, labels in SUBJECT_LABELS) and the
  claims' own entities, matched with the shared matcher (core/reading/mentions.py: "A320" meets
  "A320neo", "B737" meets "737 MAX 8").
- A name right after a comparison word ("less than the 737 MAX 8", "versus", "compared with")
  is the object of a comparison, never a subject.
- In a sentence, a number's subject is the last subject named before it; with none before it,
  the sentence's subject (the first it names). A claim that names none and opens with a pronoun
  ("It", "Its", "They", "Their", "This aircraft") has the previous claim's subject.
- None when nothing names one: such a number is not aligned (the check judges it as before).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from core.reading.mentions import mention_start
from core.text import strip_markers
from core.vocab import SUBJECT_LABELS
from perception.types import Perception

_OBJECT_BEFORE = re.compile(r"(?:\bthan|\bversus|\bvs\.?|\bcompared (?:with|to)|\brelative to|\bover)\s+(?:the\s+)?$",
                            re.IGNORECASE)
_PRONOUN_START = re.compile(r"^\s*(?:it|its|it's|they|their|this (?:aircraft|model|type|one)|该|它|其)\b",
                            re.IGNORECASE)


def subject_names(perception: Perception | None, entities: Iterable[str | None] = ()) -> list[str]:
    """The names a number can be stated for: the question's named entities, then the claims' entities."""
    names = [e.text for e in perception.entities if e.label in SUBJECT_LABELS] if perception is not None else []
    names += [e for e in entities if e]
    return list(dict.fromkeys(n for n in names if n.strip()))


def _mentions(text: str, names: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """(position, name) of every subject mention of the text that is not a comparison's object, in order."""
    return _mentions_of(text, tuple(names))


@functools.lru_cache(maxsize=4096)
def _mentions_of(text: str, names: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """`_mentions`, memoised: the check asks it of the same cited sentence once per number in it."""
    found: list[tuple[int, str]] = []
    for name in names:
        position = 0
        while (start := mention_start(name, text[position:])) is not None:
            at = position + start
            if not _OBJECT_BEFORE.search(text[max(0, at - 30):at]):
                found.append((at, name))
            position = at + 1
    return tuple(sorted(found))


def sentence_subject(text: str, names: Sequence[str]) -> str | None:
    """The first subject the text names (not a comparison's object), or None."""
    mentions = _mentions(text, names)
    return mentions[0][1] if mentions else None


def subject_at(text: str, position: int, names: Sequence[str], default: str | None = None) -> str | None:
    """The subject of what is stated at `position`: the last one named before it, else `default`
    or the first one named after it."""
    mentions = _mentions(text, names)
    before = [name for at, name in mentions if at < position]
    if before:
        return before[-1]
    return default if default is not None else (mentions[0][1] if mentions else None)


def claim_subjects(texts: Sequence[str], names: Sequence[str]) -> list[str | None]:
    """Each claim's subject, in order; a claim opening with a pronoun takes the previous claim's."""
    out: list[str | None] = []
    previous: str | None = None
    for text in texts:
        plain = strip_markers(text)
        subject = sentence_subject(plain, names)
        if subject is None and _PRONOUN_START.match(plain):
            subject = previous
        out.append(subject)
        previous = subject if subject is not None else previous
    return out
