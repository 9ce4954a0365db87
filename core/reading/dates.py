"""Calendar dates as text writes them: "2023-03-15", "March 15, 2023", "Sept. 5 2023", "2023年3月15日"."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass

from core.vocab import MONTHS

MONTH_NUMBER = {m: i for i, m in enumerate(MONTHS, start=1)}
MONTH_NUMBER.update({m[:3]: i for m, i in list(MONTH_NUMBER.items())})
MONTH_NUMBER["sept"] = 9

# a year written alone ("in 2019", "the 2021 US Open"), not part of a longer number or a decimal
YEAR = re.compile(r"(?<![\d.,])(?:1[6-9]|20)\d\d(?![\d]|[.,]\d)")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_ZH_DATE = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")


class _MonthDates:
    """English dates ("March 15, 2023", "Sept. 5 2023"): `finditer` yields the matches whose
    first group is a month name or abbreviation (any case).

    One plain word pattern whose word is then looked up: a regex alternation of the 25
    spellings, tried at every word start of every chunk, took twice as long for the same
    matches (checked on 46k chunks of the evaluation KBs).
    """

    _pattern = re.compile(r"\b([A-Za-z]{3,9})\.?\s+(\d{1,2}),?\s+(\d{4})\b")

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return (m for m in self._pattern.finditer(text) if m.group(1).lower() in MONTH_NUMBER)


_EN_DATE = _MonthDates()


@dataclass(frozen=True)
class StatedDate:
    """A calendar date written in a text: its value, its text and where it was."""

    value: dt.date
    text: str
    span: tuple[int, int]


def _written_dates(text: str) -> Iterator[tuple[re.Match[str], dt.date | None]]:
    """Every date-shaped match with its value (None when it is no calendar day: "2023-02-30")."""
    for m in _ISO_DATE.finditer(text):
        yield m, safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    for m in _EN_DATE.finditer(text):
        yield m, safe_date(int(m.group(3)), MONTH_NUMBER[m.group(1).lower()], int(m.group(2)))
    for m in _ZH_DATE.finditer(text):
        yield m, safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)))


def stated_dates(text: str) -> list[StatedDate]:
    """The calendar dates a text states, in order of position.

    Promises: ISO, English month-name and Chinese dates; a date-shaped text that is no calendar
    day ("2023-02-30") is not a date (its digits are not quantities either: `date_spans`).
    """
    found = [StatedDate(value, m.group(0), m.span()) for m, value in _written_dates(text) if value is not None]
    return sorted(found, key=lambda d: d.span)


def date_values(text: str) -> list[dt.date]:
    """The values of `stated_dates(text)`, in order."""
    return [d.value for d in stated_dates(text)]


def date_spans(text: str) -> list[tuple[int, int]]:
    """Where the text writes something date-shaped, calendar day or not (its digits are no quantities)."""
    return [m.span() for m, _ in _written_dates(text)]


def safe_date(year: int, month: int, day: int) -> dt.date | None:
    """The date, or None when the three numbers make no calendar day."""
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None
