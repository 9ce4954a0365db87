"""Numbers as text states them, with their units: "2,290 kg/h", "87%", "USD 62,300", "3.5 万元".

`stated_quantities` is the one reader: the composer states what it finds and validation checks
claims against chunks with it. Promises: a number that is part of a code or identifier
(LEAP-1A26, TR-2025-019, PO-2025-0688, 737-800, E4027) is no quantity, nor is a year ("2023",
"2023 年") or a part of a date; a unit followed by a hyphenated word is still the unit ("up to
7 km-wide" states 7 km).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .dates import date_spans
from .units import CURRENCY, UNIT, normalize_unit

# a number as written, its separators kept ("2,290", "3.12"): what a text names by its digits
NUMBER_RUN = re.compile(r"\d+(?:[.,]\d+)*")
_NUMBER = re.compile(
    rf"(?P<cur>{CURRENCY})?\s?(?P<num>(?<![A-Za-z0-9.,\-])-?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?(?![A-Za-z0-9\-])"
    rf"|(?<![A-Za-z0-9.,\-])-?\d+(?:\.\d+)?(?![A-Za-z0-9\-]))"
    rf"(?:\s?(?P<unit>{UNIT})(?![A-Za-z]))?")
# A number glued to letters or joined by hyphens is part of a code or an id (LEAP-1A26,
# PO-2025-0688, E4027), never a quantity; the lookarounds above skip those.
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")


@dataclass(frozen=True)
class Quantity:
    """A number as stated: its value, its unit (normalised, or None), the text and where it was."""

    value: float
    unit: str | None
    text: str
    span: tuple[int, int]


def _grammar_quantities(text: str) -> list[Quantity]:
    """What the number grammar finds, in order: numbers with their units; parts of dates and
    unitless years (1900-2099) are skipped; Chinese 万/亿 applied (3.5 万元 -> 35000 CNY).

    The raw grammar, private: `stated_quantities` is the reader (it also leaves out codes and Chinese years).
    """
    dates = date_spans(text)
    out: list[Quantity] = []
    for match in _NUMBER.finditer(text):
        start, _ = match.span("num")
        if any(ds <= start < de for ds, de in dates):
            continue
        raw = match.group("num")
        value = float(raw.replace(",", ""))
        unit = match.group("unit")
        currency = match.group("cur")
        if currency is None and unit in (None, "年") and re.fullmatch(r"(19|20)\d\d", raw):
            continue  # a year ("2023", "2023 年"), not a quantity
        if unit in ("万元", "亿元"):
            value *= 10_000 if unit == "万元" else 100_000_000
            unit = "CNY"
        unit = normalize_unit(currency or unit)
        span_start = match.start("cur") if currency else start
        out.append(Quantity(value, unit, text[span_start:match.end()].strip(), (span_start, match.end())))
    return out


def _inside_code(text: str, quantity: Quantity) -> bool:
    """True when the characters around the quantity make it part of a code (X-$5, 5 m2).

    A hyphen after a unit joins a compound word ("7 km-wide"), not a code; after a bare number it
    would (the grammar already skips those: 737-800).
    """
    start, end = quantity.span
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if before == "-" and start >= 2 and _ASCII_ALNUM.match(text[start - 2]):
        return True
    if _ASCII_ALNUM.match(after or " "):
        return True
    return (quantity.unit is None and after == "-" and end + 1 < len(text)
            and bool(_ASCII_ALNUM.match(text[end + 1])))


def _is_zh_year(quantity: Quantity) -> bool:
    """True for a Chinese year ("2100 年"), which the grammar reads as so many years."""
    return (quantity.unit == "years" and "年" in quantity.text and quantity.value.is_integer()
            and 1900 <= quantity.value <= 2100)


def stated_quantities(text: str) -> list[Quantity]:
    """The quantities a text states, in order (see the module docstring for what is left out)."""
    return list(_stated_quantities(text))


@functools.lru_cache(maxsize=8192)
def _stated_quantities(text: str) -> tuple[Quantity, ...]:
    """`stated_quantities`, memoised (a sentence is read by scoring, mentions, measures and checks)."""
    return tuple(q for q in _grammar_quantities(text) if not _inside_code(text, q) and not _is_zh_year(q))


def same_quantity(a: Quantity, b: Quantity, rel_tol: float = 1e-9) -> bool:
    """True when two quantities state the same value (units compared when both have one)."""
    if a.unit and b.unit and a.unit != b.unit:
        return False
    return abs(a.value - b.value) <= rel_tol * max(abs(a.value), abs(b.value), 1.0)
