"""Reading text the same way in every layer: citation markers and Chinese characters.

The composer writes `[n]` markers, the validator reads them, the loop strips them from
dropped claims: all through `CITATION_MARKER`, which also knows the grouped forms
"[1, 2]" and "[1，2]" an LLM writes.
"""

from __future__ import annotations

import re

from core.vocab import MONTHS, WEEKDAYS

# CJK unified ideographs (extension A, the basic block) and the compatibility ideographs
HAN_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
HAN = re.compile(f"[{HAN_RANGES}]")
HAN_RUN = re.compile(f"[{HAN_RANGES}]+")
NON_HAN_WORD = re.compile(f"[^\\s{HAN_RANGES}]+")  # a run of anything but spaces and Han characters

CITATION_MARKER = re.compile(r"\s*\[\s*\d+(?:\s*[,，、]\s*\d+)*\s*\]")


def has_han(text: str) -> bool:
    """Whether the text holds at least one Chinese character."""
    return HAN.search(text) is not None


_ENDS_AS_QUESTION = re.compile(r"[?？]\s*[\"'”’)]*\s*$")


def is_question(text: str) -> bool:
    """True when a sentence is itself a question (an FAQ's "Will restic resume a backup?"): it
    asks, it does not state, so it never answers one."""
    return bool(_ENDS_AS_QUESTION.search(strip_markers(text)))


def strip_markers(text: str) -> str:
    """The text without its citation markers ("[1]", "[1, 2]"), trimmed."""
    return CITATION_MARKER.sub("", text).strip()

# A month as English text writes it, as a regex fragment: "jan", "january", "sept", "september".
MONTH_NAME = "(?:" + "|".join(f"{m[:3]}(?:{m[3:]})?" for m in MONTHS) + "|sept)"
# A whole word that names a month (or its abbreviation) or a weekday: a date, never a name.
CALENDAR_WORD = re.compile(rf"(?i:{MONTH_NAME}|{'|'.join(WEEKDAYS)})\b")
