"""Time expressions in English and Chinese, resolved against `now` into one inclusive window.

Conventions (docs/PERCEPTION.md says them to users):
- "last week" / "最近一周" = the 7 days before `now` plus `now`: [now - 7 days, now].
- "last/past N units", "最近N天" = [now - N units, now]. "last month" / "上个月" = the previous
  calendar month; "this year" / "今年" = 1 January to `now`.
- A date without a year takes the year of the nearest date in the query that has one, else the
  most recent such period that has started by `now` ("in October" on 2025-07-10 = October 2024).
- "before X" ends the day before X starts; "after X" starts the day after X ends; "since X"
  starts when X starts; "until X" ends when X ends.
- Several phrases combine into the smallest window covering all of them (an open side wins),
  except that "after X ... before Y" alone intersects.
- A phrase no rule understood leaves the window open and is reported, never raised.

The package by concept: calendar.py (date arithmetic), numerals.py (Chinese numerals and number
words), patterns.py (the regexes built from the config), recognise.py (finding phrases in a query
and combining them: `TimeRules`), types.py (`TimePhrase`, `TimeResult`). The names below are
the package's public ones, importable from here; the modules' other names serve the package.
"""

from perception.timeexpr.calendar import add_months, month_end, period_bounds, resolve_relative, shift
from perception.timeexpr.numerals import cn_number
from perception.timeexpr.recognise import TimeRules
from perception.timeexpr.types import TimePhrase, TimeResult

__all__ = ["TimePhrase", "TimeResult", "TimeRules", "add_months", "cn_number", "month_end", "period_bounds",
           "resolve_relative", "shift"]
