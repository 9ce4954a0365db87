"""Which model of a named thing a text writes: "737 MAX 8" or "737-800" where a question says "B737".

A text names a thing by one of its spellings (`mentions`: "B737" also meets "737") and often
writes more of the model's designation right after it. `named_variant` reads that designation
as written: letters run on the name ("A320" -> "A320neo"), hyphenated parts ("737" ->
"737-800"), and following words in capitals with an optional small number after them ("737" ->
"737 MAX 8"). It returns a designation only when it says more than the spellings themselves;
a text that names the thing plainly ("the B737", "the 737") names no variant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .mentions import mention_spans, number_alias

_RUN_ON = re.compile(r"[A-Za-z0-9]*")
# one more part of a designation: "-800", " MAX", " MAX 8" (the number only after a word in capitals)
_PART = re.compile(r"-[A-Za-z0-9]+(?![\w-])|[ \u00a0][A-Z]{2,}\d*(?![\w-])(?:[ \u00a0]\d{1,2}(?![\w-]|[.,]\d))?")
_SEPARATORS = re.compile(r"[\s\-_]+")


def compact(name: str) -> str:
    """A name as it is compared: lower case, spaces, hyphens and underscores dropped."""
    return _SEPARATORS.sub("", name.lower())


def designation_at(text: str, span: tuple[int, int]) -> str:
    """The designation written from a mention at `span` on: the mention, letters run on it, and
    hyphenated or capitalised parts after it, as the text writes them."""
    end = span[1] + len(_RUN_ON.match(text, span[1]).group(0))  # type: ignore[union-attr]
    while part := _PART.match(text, end):
        end = part.end()
    return text[span[0]:end]


def named_variant(spellings: Iterable[str], text: str, at: int | None = None) -> str | None:
    """The variant `text` names for the thing spelled `spellings`, or None.

    The mention read is the last one starting before `at` (the figure the variant is wanted for),
    else the first one; None when the text does not name the thing, or names it by nothing more
    than one of its spellings or their bare numbers ("B737", "737").

    Args:
        spellings: the names the thing goes by ("B737"); matched as `mentions` matches.
        text: one unit of text (a sentence, a table row).
        at: a character offset in `text`, usually where the figure starts.
    """
    names = [s for s in dict.fromkeys(spellings) if s and s.strip()]
    spans = sorted({span for name in names for span in mention_spans(name, text)})
    if not spans:
        return None
    before = [s for s in spans if at is not None and s[0] < at]
    designation = designation_at(text, before[-1] if before else spans[0])
    plain = {compact(n) for n in names} | {a for n in names if (a := number_alias(n))}
    return None if compact(designation) in plain else designation
