"""Units as text writes them, and their one canonical spelling ("公斤" -> "kg", "percent" -> "%")."""

from __future__ import annotations

import re

# The grammar's vocabularies (read by `quantities`): a currency written before the number, a unit after it.
CURRENCY = r"(?:USD|EUR|GBP|CNY|RMB|US\$|\$|€|£|¥)"
UNIT = (r"(?:%|percent|per\s*cent|kg/seat/h|kg/h|kg|t/h|tonnes?|tons?|km|nm|NM|nmi|ft|m|mm|cm|lbf|lb|kN|"
        r"kt|knots?|seats?|hours?|hrs?|h|minutes?|min|seconds?|s|days?|years?|psi|kPa|MPa|bar|°C|C|"
        r"L|litres?|liters?|gallons?|USD|EUR|CNY|RMB|元|万元|亿元|公斤|千克|吨|公里|千米|小时|分钟|秒|天|年|个|次|座|项|%)")

_ALIASES: dict[str, str | None] = {
    "percent": "%", "per cent": "%", "percentage": "%", "nm": "nmi", "NM": "nmi",
    "kt": "knots", "knot": "knots", "hrs": "h", "hr": "h", "hour": "h", "hours": "h",
    "tonne": "t", "tonnes": "t", "ton": "t", "tons": "t", "seat": "seats", "minute": "min",
    "minutes": "min", "second": "s", "seconds": "s", "day": "days", "year": "years",
    "公斤": "kg", "千克": "kg", "吨": "t", "公里": "km", "千米": "km", "小时": "h", "分钟": "min",
    "秒": "s", "天": "days", "年": "years", "座": "seats", "次": "times", "项": "items",
    "个": None,  # a Chinese counter word ("2 个工作日"): the number counts the noun after it, it has no unit
    "RMB": "CNY", "¥": "CNY", "元": "CNY", "$": "USD",
    "US$": "USD", "€": "EUR", "£": "GBP", "liter": "L", "liters": "L", "litre": "L", "litres": "L"}


# A unit that measures (time, length, mass, money, a share, data size) written right after a
# number: the number is a measurement, not a count of some other noun ("Talks are 25 minutes
# long" counts no talks). Count nouns ("seats", "items") are not among them.
MEASURE_AFTER = re.compile(
    r"\s*(?:%|(?:percent|per\s*cent|kg|tonnes?|tons?|km|nmi|miles?|mi|yards?|feet|foot|ft|inch(?:es)?|acres?|"
    r"hectares?|m|mm|cm|lbs?|pounds?|kN|knots?|psi|kPa|MPa|bar|°C|litres?|"
    r"liters?|gallons?|hours?|hrs?|h|minutes?|mins?|seconds?|secs?|s|ms|days?|weeks?|months?|years?|"
    r"[KMGTP]i?B|bytes?|USD|EUR|CNY|GBP|dollars?|euros?)\b)", re.I)


def is_measure(word: str) -> bool:
    """True when `word` is a unit of measure ("miles", "minutes", "GB"), not a count noun."""
    match = MEASURE_AFTER.match(word.strip())
    return match is not None and match.end() == len(word.strip())


def measure_after(text: str, end: int) -> str:
    """The unit of measure written right after position `end` (a number's end) in `text`, as
    written ("minutes", "%"), or "" when none is."""
    match = MEASURE_AFTER.match(text, end)
    return match.group(0).strip() if match else ""


def normalize_unit(unit: str | None) -> str | None:
    """The canonical spelling of a unit ("percent" -> "%", "公斤" -> "kg", "项" -> "items").

    Promises: None for no unit and for a counter word that is no unit ("个"); a unit not in the
    table comes back as written, spaces collapsed.
    """
    if not unit:
        return None
    unit = re.sub(r"\s+", " ", unit.strip())
    for key in (unit, unit.lower()):
        if key in _ALIASES:
            return _ALIASES[key]
    return unit


def unit_base(unit: str | None) -> str | None:
    """The unit before any "/": "kg/h" and "kg/seat/h" read as "kg" (a chunk's "kg per hour" does)."""
    return unit.split("/", 1)[0] if unit else None


def units_compatible(a: str | None, b: str | None) -> bool:
    """True when two units can state the same value: equal bases, or one side unitless."""
    return a is None or b is None or unit_base(a) == unit_base(b)
