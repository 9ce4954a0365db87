"""The credibility multiplier: capped recency decay x authority x status.

Old but strongly matching chunks must not vanish, so the recency factor never drops below
`recency_floor` (0.7 by default). Fused scores (reciprocal-rank sums) span a narrow range, so
the factors are kept gentle: they reorder near-ties and push down draft and superseded
documents, they do not override relevance. Recency is measured from the latest of
`updated_at` and `published_at`. All parameters come from the `credibility` section of
config/router.yaml.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..kb.metadata import parse_date


@dataclass(frozen=True)
class CredibilityParams:
    """Parameters of the multiplier.

    Attributes:
        half_life_days: age at which the recency factor halves (before the floor).
        recency_floor: the smallest recency factor (the cap on the penalty).
        authority_weight: how far authority 1..5 moves the score around 1.0 (3 is neutral):
            factor = 1 + authority_weight * (authority - 3) / 2.
        status: multiplier per status value; unlisted statuses get 1.0.
    """

    half_life_days: float = 1095.0
    recency_floor: float = 0.7
    authority_weight: float = 0.1
    status: dict[str, float] = field(default_factory=lambda: {
        "effective": 1.0, "closed": 1.0, "open": 1.0,
        "draft": 0.6, "superseded": 0.5, "expired": 0.5})

    def __post_init__(self) -> None:
        if self.half_life_days <= 0:
            raise ValueError("half_life_days must be positive")
        if not 0 <= self.recency_floor <= 1:
            raise ValueError("recency_floor must be between 0 and 1")
        if not 0 <= self.authority_weight < 1:
            raise ValueError("authority_weight must be in [0, 1)")


def freshness_date(metadata: dict[str, Any]) -> dt.date | None:
    """The date a document was last known current: the latest of updated_at and published_at."""
    dates = [_day(metadata[k]) for k in ("updated_at", "published_at") if metadata.get(k)]
    return max(dates) if dates else None


def _day(value: str) -> dt.date:
    """The day of a stored (ISO, normalised at ingest) timestamp; other formats parsed slowly."""
    try:
        return dt.date.fromisoformat(value[:10])
    except (TypeError, ValueError):
        return parse_date(value).date()


def credibility(metadata: dict[str, Any], now: dt.date, params: CredibilityParams
                ) -> tuple[float, dict[str, float]]:
    """The multiplier for a chunk and its factors (for the trace).

    Returns:
        (multiplier, {"recency": r, "authority": a, "status": s}) where multiplier = r * a * s.
    """
    recency = 1.0
    date = freshness_date(metadata)
    if date is not None:
        age = max((now - date).days, 0)
        recency = max(params.recency_floor, 0.5 ** (age / params.half_life_days))
    authority = 1.0
    if "authority" in metadata:
        authority = 1.0 + params.authority_weight * (int(metadata["authority"]) - 3) / 2
    status = params.status.get(str(metadata.get("status", "")).lower(), 1.0)
    factors = {"recency": round(recency, 6), "authority": round(authority, 6), "status": status}
    return recency * authority * status, factors
