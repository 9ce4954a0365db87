"""The short answer: the value a question asks for, as the answer's lead unit writes it.

"How long are snapshots kept?" is answered by the unit "Snapshots are kept for 30 days unless
--keep-within says otherwise."; a reader wants "30 days" first. For a question whose asked-for
slot is a value (a number, a version, an amount, a duration, a date: `VALUE_SLOTS`), the short
answer is that value's span in the lead unit, cited as the lead is; None when the lead writes
no such value (or only numbers the question itself writes: "PEP 8", "in 2019"), and for every
other slot (a name, a definition, a procedure is the unit itself). The span is quoted verbatim
from the lead, so validation's citation check holds for it as for the lead.
"""

from __future__ import annotations

import re

from core.reading.quantities import NUMBER_RUN, Quantity
from core.reading.units import measure_after
from core.text import MONTH_NAME
from orchestration.focus import NUMBER_WORD, UNIT_OF_TIME_EN, Focus, fills_slot
from orchestration.retrieval.tokenize import STOPWORDS_EN

from .sentences import Candidate

VALUE_SLOTS = ("number", "amount", "duration", "date")
# a value written in words ("five seconds", "two weeks"): stated_quantities reads digits only
_WORDED_DURATION = re.compile(rf"\b{NUMBER_WORD}(?:[\s-]+{NUMBER_WORD})?[\s-]+{UNIT_OF_TIME_EN}\b", re.I)
_DATE = {
    "en": re.compile(rf"\b\d{{1,2}}\s+{MONTH_NAME}\.?,?\s+\d{{4}}\b|\b{MONTH_NAME}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+"
                     rf"\d{{4}}\b|\b{MONTH_NAME}\.?\s+\d{{4}}\b|\b\d{{4}}-\d{{2}}(?:-\d{{2}})?\b|\b(?:1[6-9]|20)\d\d\b",
                     re.I),
    "zh": re.compile(r"\d{4}\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?)?|\d{1,2}\s*月\s*\d{1,2}\s*日|"
                     r"\d{4}-\d{2}(?:-\d{2})?"),
}
# words that link a number to what follows it, never part of what it counts
_LINKS = frozenset({"before", "after", "per", "each", "every", "within", "until", "than", "whichever", "since",
                    "during", "unless", "except", "about", "around", "over", "under"})
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?:[a-z]+\d*)?(?![\w.]*\d)", re.I)


def short_answer(focus: Focus, lead: Candidate) -> str | None:
    """The asked-for value as `lead` writes it (module docstring), or None.

    Promises: the result is a substring of `lead.text`; never a number the question writes.
    """
    if focus.slot not in VALUE_SLOTS or lead.notes.get("code"):
        return None
    text = lead.text
    asked = focus.question
    written = set(asked.numbers)
    language = "zh" if focus.language == "zh" else "en"
    if focus.slot == "date":
        return next((m.group(0) for m in _DATE[language].finditer(text)
                     if not set(NUMBER_RUN.findall(m.group(0))) <= written), None)
    if focus.slot == "number" and any(w in ("version", "release") for w in asked.words):
        version = next((m.group(0) for m in _VERSION.finditer(text) if m.group(0).lstrip("vV") not in written), None)
        if version is not None:
            return version
    for quantity in lead.quantities:
        if set(NUMBER_RUN.findall(quantity.text)) <= written or _inside_expression(text, quantity):
            continue
        stated = _with_following_noun(text, quantity, language) if focus.slot == "number" else quantity.text
        if fills_slot(focus.slot, stated, language, asked):
            return _with_range_start(text, quantity.span[0], stated)
    if focus.slot == "duration" and language == "en":
        worded = _WORDED_DURATION.search(text)
        return worded.group(0) if worded else None
    return None


def _inside_expression(text: str, quantity: Quantity) -> bool:
    """The number is part of code or a formula ("`number_of_cores + 4`"): not a value on its own."""
    before = text[:quantity.span[0]]
    return before.count("`") % 2 == 1 or bool(re.search(r"[+*/=<>^%-]\s*$", before))


def _with_range_start(text: str, start: int, stated: str) -> str:
    """A value that ends a range ("between 2 and 3 elements", "5-10 seconds") with the range's start."""
    lower = re.search(r"(?:\bbetween\s+)?\d[\d.,]*\s*(?:and|to|or|-|–)\s*$", text[:start])
    return text[lower.start():start] + stated if lower else stated


def _with_following_noun(text: str, quantity: Quantity, language: str) -> str:
    """A unitless number with its unit ("16 MiB") or the words that say what it counts ("800 flight
    hours", "3 retries"): up to two lowercase words after it, stopping at a function word or
    punctuation."""
    if quantity.unit or language == "zh":
        return quantity.text
    unit = measure_after(text, quantity.span[1])
    if unit:
        return text[quantity.span[0]:text.index(unit, quantity.span[1]) + len(unit)]
    end = quantity.span[1]
    for _ in range(2):
        word = re.match(r" ([a-z][a-z-]*)\b", text[end:])
        if word is None or word.group(1) in STOPWORDS_EN or word.group(1) in _LINKS:
            break
        end += word.end()
    return text[quantity.span[0]:end]
