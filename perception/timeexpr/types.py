"""What the time rules report: the understood phrases of a query and the window they combine into.

Plain frozen values with no behaviour; `TimeRules.find` (recognise.py) builds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from perception.types import TimeWindow


@dataclass(frozen=True)
class TimePhrase:
    """One understood time phrase.

    Args:
        start, end: character span in the query.
        text: the phrase.
        lo, hi: the inclusive bounds it means (None = open).
        rule: the rule that read it ("time.month_day_year", "time.relative", ...).
    """

    start: int
    end: int
    text: str
    lo: date | None
    hi: date | None
    rule: str


@dataclass(frozen=True)
class TimeResult:
    """What the time rules found in a query.

    Args:
        window: the combined window, or None when no phrase was understood.
        phrases: the understood phrases in query order.
        not_understood: (start, end, text) of time-looking phrases no rule could read.
    """

    window: TimeWindow | None
    phrases: tuple[TimePhrase, ...]
    not_understood: tuple[tuple[int, int, str], ...]
