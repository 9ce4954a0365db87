"""Which year a figure is stated for: read from its own unit first, then from the headings above it.

"In 2023, the 737 MAX 8 burns 2,360 kg of fuel per block hour." states 2,360 for 2023; "The
737-800 burns 2,600 kg of fuel per block hour." under the heading "Fuel Efficiency Comparison
2023" is dated by that heading only, and the same sentence with no year above it is undated.
Promises: `figure_dating` reads the year the unit writes nearest the figure (a year inside a
quantity with a unit, "2000 mAh", is no year, nor is the figure itself); only when the unit
writes none, the innermost heading of `path` that writes years; else nothing. A dating says
where it came from, so a reader can prefer a unit's own year to a heading's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from .dates import YEAR
from .quantities import stated_quantities

UNIT, HEADING = "unit", "heading"  # where a dating was read


@dataclass(frozen=True)
class Dating:
    """The years a figure is stated for and where they were read ("" and no years: undated)."""

    years: frozenset[int] = frozenset()
    where: str = ""

    def within(self, start: dt.date | None, end: dt.date | None) -> bool | None:
        """True when one of the years overlaps the window (an open side accepts any year), False
        when none does, None when the figure is undated."""
        if not self.years:
            return None
        return any((start is None or year >= start.year) and (end is None or year <= end.year)
                   for year in self.years)

    def shown(self) -> str:
        """The years as a person reads them ("2019", "2019, 2022"; "undated")."""
        return ", ".join(str(y) for y in sorted(self.years)) or "undated"


def written_years(text: str, skip: tuple[int, int] | None = None) -> list[tuple[int, int]]:
    """(year, offset) of each year the text writes (1600-2099, also inside dates), in order;
    numbers of quantities with a unit and the span `skip` are no years."""
    taken = [q.span for q in stated_quantities(text) if q.unit] + ([skip] if skip else [])
    return [(int(m.group()), m.start()) for m in YEAR.finditer(text)
            if not any(s < m.end() and m.start() < e for s, e in taken)]


def figure_dating(text: str, figure: tuple[int, int], path: Sequence[str] = ()) -> Dating:
    """The year the figure at `figure` (its span in `text`, one unit) is stated for.

    Args:
        text: the unit stating the figure (a sentence, a table row with its header).
        figure: the figure's (start, end) in `text`.
        path: the headings the unit stands under, outermost first.

    Returns:
        The unit's year nearest the figure (where=UNIT); else the years of the innermost heading
        that writes any (where=HEADING); else an undated Dating.
    """
    own = written_years(text, figure)
    if own:
        nearest = min(own, key=lambda yo: (abs(yo[1] - figure[0]), yo[1] > figure[0]))
        return Dating(frozenset({nearest[0]}), UNIT)
    for heading in reversed(path):
        years = written_years(heading)
        if years:
            return Dating(frozenset(y for y, _ in years), HEADING)
    return Dating()
