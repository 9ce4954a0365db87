"""CheckContext: the settings every check reads besides the perception, answer and evidence."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.vocab import STALE_STATUSES

ANY_KB = "*"  # key of max_age_days that applies to every KB without its own entry


@dataclass(frozen=True)
class CheckContext:
    """What a check needs to know about the request that is not in its other inputs.

    Attributes:
        now: the request's date (RequestContext.now, never a default); ages count from it.
        max_age_days: per KB, the oldest a cited document may be when the query states no time
            window (None or a missing KB = no limit). The key "*" applies to KBs not listed.
        stale_statuses: document statuses that make a cited chunk stale unless the query asked
            for that status.
        unwritten: the question's specific words that no knowledge base searched writes
            (orchestration/unwritten.py), as the question wrote them.
    """

    now: dt.date
    max_age_days: Mapping[str, int | None] = field(default_factory=dict)
    stale_statuses: tuple[str, ...] = STALE_STATUSES
    unwritten: tuple[str, ...] = ()

    def max_age_for(self, kb: str) -> int | None:
        """The maximum age in days for documents of `kb`, or None for no limit."""
        if kb in self.max_age_days:
            return self.max_age_days[kb]
        return self.max_age_days.get(ANY_KB)
