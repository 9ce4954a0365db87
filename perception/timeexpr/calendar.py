"""Calendar arithmetic on dates and inclusive windows, with no parsing.

Promises: months shift with the day clamped to the month's end; a week runs Monday to Sunday;
quarters start in January, April, July and October; every window is inclusive (lo, hi). A
relative rule of the config ("last week", "上个月") resolves against `now` as the package
conventions say (perception/timeexpr/__init__.py). Pure functions: nothing here reads a query.
"""

from __future__ import annotations

import calendar
from datetime import date, timedelta

from perception.config import RelativeRule


def add_months(day: date, months: int) -> date:
    """`day` shifted by whole months, the day of month clamped (31 March - 1 month = 28/29 Feb)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def month_end(year: int, month: int) -> date:
    """The last day of a month."""
    return date(year, month, calendar.monthrange(year, month)[1])


def period_bounds(day: date, unit: str) -> tuple[date, date]:
    """The calendar period (day, Monday-Sunday week, month, quarter, year) containing `day`."""
    if unit == "day":
        return day, day
    if unit == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=6)
    if unit == "month":
        return day.replace(day=1), month_end(day.year, day.month)
    if unit == "quarter":
        first = 3 * ((day.month - 1) // 3) + 1
        return date(day.year, first, 1), month_end(day.year, first + 2)
    return date(day.year, 1, 1), date(day.year, 12, 31)


def shift(day: date, unit: str, amount: int) -> date:
    """`day` moved by `amount` units (negative = back)."""
    if unit == "day":
        return day + timedelta(days=amount)
    if unit == "week":
        return day + timedelta(days=7 * amount)
    return add_months(day, amount * {"month": 1, "quarter": 3, "year": 12}[unit])


def resolve_relative(rule: RelativeRule, now: date) -> tuple[date, date]:
    """The window a fixed relative phrase means for `now` (see the package conventions)."""
    if rule.kind == "rolling":
        return shift(now, rule.unit, -rule.amount), now
    if rule.kind == "to_date":
        return period_bounds(now, rule.unit)[0], now
    return period_bounds(shift(now, rule.unit, rule.offset), rule.unit)


def part_of(lo: date, hi: date, kind: str) -> tuple[date, date]:
    """The first ("early"), middle ("mid") or last ("late") third of [lo, hi]; a window shorter
    than three days is returned whole."""
    total = (hi - lo).days + 1
    b1, b2 = total // 3, 2 * total // 3
    if total < 3:
        return lo, hi
    if kind == "early":
        return lo, lo + timedelta(days=b1 - 1)
    if kind == "mid":
        return lo + timedelta(days=b1), lo + timedelta(days=b2 - 1)
    return lo + timedelta(days=b2), hi


def open_side(kind: str, lo: date, hi: date) -> tuple[date | None, date | None]:
    """[lo, hi] with one side opened: "before" ends the day before lo, "after" starts the day
    after hi, "since" starts at lo, "until" ends at hi."""
    if kind == "before":
        return None, lo - timedelta(days=1)
    if kind == "after":
        return hi + timedelta(days=1), None
    if kind == "since":
        return lo, None
    return None, hi
