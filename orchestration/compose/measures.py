"""What a sentence measures: stated quantities, their full unit ("kg per seat per hour"), dates.

Built on `numbers.py` (one parser for composer and validation). Promises: a quantity whose
digits belong to a code or identifier (LEAP-1A26, TR-2025-019, PO-2025-0688, 737-800) is not
a stated quantity; `read_measure` widens a unit only from words written next to the number
("2,290 kg per block hour" -> kg/h, "每座每小时油耗为 12.7 公斤" -> kg/seat/h), never guesses one.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass

from .numbers import (  # one date grammar
    _EN_DATE,
    _ISO_DATE,
    _MONTHS,
    _ZH_DATE,
    Quantity,
    _safe_date,
    extract_quantities,
)

_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
_PER_EN = re.compile(r"^\s*(?:of\s+[a-z]+\s+)?(?:per|/)\s*(?:(?:block|flight|flying|calendar|working)\s+)?"
                     r"(hour|hr|h|seat|day|night|year|month|week|passenger|person|km|flight)s?\b", re.I)
_PER_EN_UNITS = {"hour": "h", "hr": "h", "h": "h", "seat": "seat", "day": "day", "night": "night",
                 "year": "year", "month": "month", "week": "week", "passenger": "passenger",
                 "person": "person", "km": "km", "flight": "flight"}
_PER_ZH = (("每座", "seat"), ("每人", "person"), (r"每[^，。；,;]{0,3}小时", "h"), ("每天|每日", "day"),
           ("每晚", "night"), ("每月", "month"), ("每年", "year"))
_ZH_PREFIX = {"seat": "每座", "person": "每人", "h": "每小时", "day": "每天", "night": "每晚",
              "month": "每月", "year": "每年"}
_UNIT_FIXES = {"座": "seats", "个": None, "次": "times", "项": "items"}
_CLAUSE_BREAK = re.compile(r"[，,。；;：:！？!?]")


@dataclass(frozen=True)
class Measure:
    """A quantity as the composer states it.

    Attributes:
        value: the number (Chinese 万/亿 applied).
        unit: the full unit: `numbers.normalize_unit`'s unit plus "/<per>" parts read next to it.
        text: how to write it in an answer; its number and base unit parse back to `value`.
        quantity: the underlying `numbers.Quantity`.
    """

    value: float
    unit: str | None
    text: str
    quantity: Quantity


@dataclass(frozen=True)
class StatedDate:
    """A calendar date written in a sentence: its value, its text and where it was."""

    value: dt.date
    text: str
    span: tuple[int, int]


def _inside_code(text: str, span: tuple[int, int]) -> bool:
    """True when the characters around `span` make it part of a code (LEAP-1A26, TR-2025-019)."""
    start, end = span
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if before == "-" and start >= 2 and _ASCII_ALNUM.match(text[start - 2]):
        return True
    if _ASCII_ALNUM.match(after or " "):
        return True
    return after == "-" and end + 1 < len(text) and bool(_ASCII_ALNUM.match(text[end + 1]))


def _is_zh_year(quantity: Quantity) -> bool:
    """True for a Chinese year ("2023 年"), which `extract_quantities` reads as 2023 years."""
    return (quantity.unit == "years" and "年" in quantity.text and quantity.value.is_integer()
            and 1900 <= quantity.value <= 2100)


def stated_quantities(text: str) -> list[Quantity]:
    """`extract_quantities(text)` without numbers that are parts of codes or identifiers and
    without Chinese years ("2023 年"); units `numbers.py` leaves unnormalised ("座") normalised."""
    return list(_stated_quantities(text))


@functools.lru_cache(maxsize=8192)
def _stated_quantities(text: str) -> tuple[Quantity, ...]:
    """`stated_quantities`, memoised (a sentence is read by scoring, mentions and measures)."""
    out: list[Quantity] = []
    for q in extract_quantities(text):
        if _inside_code(text, q.span) or _is_zh_year(q):
            continue
        if q.unit in _UNIT_FIXES:
            q = Quantity(q.value, _UNIT_FIXES[q.unit], q.text, q.span)
        out.append(q)
    return tuple(out)


def stated_dates(text: str) -> list[StatedDate]:
    """Calendar dates written in the text (ISO, English month names, Chinese), in order."""
    found: list[StatedDate] = []
    for pattern, order in ((_ISO_DATE, "ymd"), (_EN_DATE, "mdy"), (_ZH_DATE, "ymd")):
        for m in pattern.finditer(text):
            if order == "ymd":
                value = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            else:
                value = _safe_date(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
            if value is not None:
                found.append(StatedDate(value, m.group(0), m.span()))
    return sorted(found, key=lambda d: d.span)


def read_measure(text: str, quantity: Quantity) -> Measure:
    """The quantity with its full unit, read from the words next to it in `text`.

    English "per ..." phrases after the number are appended to the unit and kept in the
    written form ("2,290 kg per block hour"); Chinese "每…" words earlier in the same clause
    are appended too and written before the number ("每小时 2,290 公斤").
    """
    unit = quantity.unit
    written = quantity.text
    if unit is None:
        return Measure(quantity.value, None, written, quantity)
    pers: list[str] = []
    end = quantity.span[1]
    while True:
        match = _PER_EN.match(text[end:])
        if not match:
            break
        pers.append(_PER_EN_UNITS[match.group(1).lower()])
        end += match.end()
    if pers:
        written = text[quantity.span[0]:end]
    else:
        clause_start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, quantity.span[0])), default=0)
        clause = text[clause_start:quantity.span[0]]
        pers = [per for pattern, per in _PER_ZH if re.search(pattern, clause)]
        if pers:
            written = "".join(_ZH_PREFIX[p] for p in pers) + " " + quantity.text
    full = "/".join([unit] + [p for p in pers if f"/{p}" not in unit])
    return Measure(quantity.value, full, written, quantity)


def sentence_measures(text: str) -> list[Measure]:
    """Every stated quantity of a sentence that has a unit, read as a `Measure`."""
    return [read_measure(text, q) for q in stated_quantities(text) if q.unit]
