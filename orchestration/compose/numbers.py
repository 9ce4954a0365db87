"""Numbers, units and dates in text: what composers state and validation checks.

One parser for both sides, so a claim and the chunk it cites are read the same way:
"2,290 kg/h", "87%", "12.7 kg/seat/h", "USD 62,300", "6,300 km", "2,290公斤", "3.5 万元";
dates as ISO days ("2023-03-15", "March 15, 2023", "2023年3月15日").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass

from core.vocab import MONTHS

_MONTHS = {m: i for i, m in enumerate(MONTHS, start=1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9

_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")


class _MonthDates:
    """English dates ("March 15, 2023", "Sept. 5 2023"): `finditer` yields the matches whose
    first group is a month name or abbreviation (any case).

    One plain word pattern whose word is then looked up: a regex alternation of the 25
    spellings, tried at every word start of every chunk, took twice as long for the same
    matches (checked on 46k chunks of the evaluation KBs).
    """

    _pattern = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})\b")

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return (m for m in self._pattern.finditer(text) if m.group(1).lower() in _MONTHS)


_EN_DATE = _MonthDates()
_ZH_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")

_CURRENCY = r"(?:USD|EUR|GBP|CNY|RMB|US\$|\$|€|£|¥)"
_UNIT = (r"(?:%|percent|per\s*cent|kg/seat/h|kg/h|kg|t/h|tonnes?|tons?|km|nm|NM|nmi|ft|m|mm|cm|lbf|lb|kN|"
         r"kt|knots?|seats?|hours?|hrs?|h|minutes?|min|seconds?|s|days?|years?|psi|kPa|MPa|bar|°C|C|"
         r"L|litres?|liters?|gallons?|USD|EUR|CNY|RMB|元|万元|亿元|公斤|千克|吨|公里|千米|小时|分钟|秒|天|年|个|次|座|项|%)")
_NUMBER = re.compile(
    rf"(?P<cur>{_CURRENCY})?\s?(?P<num>(?<![A-Za-z0-9.,\-])-?\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?(?![A-Za-z0-9\-])"
    rf"|(?<![A-Za-z0-9.,\-])-?\d+(?:\.\d+)?(?![A-Za-z0-9\-]))"
    rf"(?:\s?(?P<unit>{_UNIT})(?![A-Za-z]))?")
# A number glued to letters or joined by hyphens is part of a code or an id (LEAP-1A26,
# PO-2025-0688, E4027), never a quantity; the lookarounds above skip those.


@dataclass(frozen=True)
class Quantity:
    """A number as stated: its value, its unit (normalised, or None), the text and where it was."""

    value: float
    unit: str | None
    text: str
    span: tuple[int, int]


_UNIT_ALIASES = {"percent": "%", "per cent": "%", "percentage": "%", "nm": "nmi", "NM": "nmi",
                 "kt": "knots", "knot": "knots", "hrs": "h", "hr": "h", "hour": "h", "hours": "h",
                 "tonne": "t", "tonnes": "t", "ton": "t", "tons": "t", "seat": "seats", "minute": "min",
                 "minutes": "min", "second": "s", "seconds": "s", "day": "days", "year": "years",
                 "公斤": "kg", "千克": "kg", "吨": "t", "公里": "km", "千米": "km", "小时": "h", "分钟": "min",
                 "秒": "s", "天": "days", "年": "years", "座": "seats", "次": "times",
                 "RMB": "CNY", "¥": "CNY", "元": "CNY", "$": "USD",
                 "US$": "USD", "€": "EUR", "£": "GBP", "liter": "L", "liters": "L", "litre": "L", "litres": "L"}


def normalize_unit(unit: str | None) -> str | None:
    """The canonical spelling of a unit ("percent" -> "%", "公斤" -> "kg"), or None."""
    if not unit:
        return None
    unit = re.sub(r"\s+", " ", unit.strip())
    for key in (unit, unit.lower()):
        if key in _UNIT_ALIASES:
            return _UNIT_ALIASES[key]
    return unit


def _date_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for pattern in (_ISO_DATE, _EN_DATE, _ZH_DATE) for m in pattern.finditer(text)]


def extract_quantities(text: str) -> list[Quantity]:
    """Numbers in the text with their units, in order; parts of dates are not quantities.

    A four-digit number with no unit between 1900 and 2100 is treated as a year and skipped.
    Chinese 万/亿 multipliers are applied (3.5 万元 -> 35000 CNY).
    """
    dates = _date_spans(text)
    out: list[Quantity] = []
    for match in _NUMBER.finditer(text):
        start, end = match.span("num")
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


def extract_dates(text: str) -> list[dt.date]:
    """Calendar dates written in the text (ISO, English month names, Chinese), in order."""
    found: list[tuple[int, dt.date | None]] = []  # None: not a calendar date (dropped below)
    for m in _ISO_DATE.finditer(text):
        found.append((m.start(), _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    for m in _EN_DATE.finditer(text):
        found.append((m.start(), _safe_date(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))))
    for m in _ZH_DATE.finditer(text):
        found.append((m.start(), _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    return [d for _, d in sorted(found, key=lambda x: x[0]) if d is not None]


def _safe_date(year: int, month: int, day: int) -> dt.date | None:
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def same_quantity(a: Quantity, b: Quantity, rel_tol: float = 1e-9) -> bool:
    """True when two quantities state the same value (units compared when both have one)."""
    if a.unit and b.unit and a.unit != b.unit:
        return False
    return abs(a.value - b.value) <= rel_tol * max(abs(a.value), abs(b.value), 1.0)
