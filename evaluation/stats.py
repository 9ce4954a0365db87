"""Small summaries shared by the set runners: latency percentiles per stage."""

from __future__ import annotations

import statistics
import subprocess
from collections.abc import Mapping, Sequence

from orchestration.paths import REPO_ROOT


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) by nearest rank on the sorted values (what the report calls p95)."""
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def latency_summary(timings: Mapping[str, Sequence[float]]) -> dict[str, dict[str, float]]:
    """stage -> {median_ms, p95_ms, p5/p25/p75/p99_ms, n}: enough to draw a box per stage."""
    out = {}
    for stage, values in timings.items():
        if not values:
            continue
        out[stage] = {"median_ms": round(statistics.median(values), 2), "p95_ms": round(percentile(values, 0.95), 2),
                      **{f"p{int(q * 100)}_ms": round(percentile(values, q), 2) for q in (0.05, 0.25, 0.75, 0.99)},
                      "n": len(values)}
    return out


def head_commit() -> str:
    """The short hash of the repository's HEAD, or "unknown" outside a git checkout."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
