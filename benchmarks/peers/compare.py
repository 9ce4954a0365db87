"""The race, the paired bootstrap and the report of `bench peers`; nothing here knows a system's internals.

Promises:
- `race` runs every query on every system, interleaved query by query with the first system
  rotating, after one untimed warm-up query each; GC is off during each timed call and a
  collection runs between queries (untimed), so no system pays for another's garbage.
- `paired_bootstrap` resamples queries with replacement (the same resample for both systems)
  and gives the mean difference with its percentile interval; seeded, so reruns agree.
- `report` gives `{"systems": {name: {"median_ms", "p95_ms", <metric>...}}, ...}`: the headline
  figures of each system at the top level of its entry, the comparisons beside.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from tqdm import tqdm

from benchmarks.retrieval.harness import sig3, stats

from .systems import System

SIGHTLINE = "sightline"
# The issue's targets: Sightline with query embedding this many times faster (median) than each peer.
SPEED_TARGETS = {"txtai": 3.0, "haystack": 30.0}


def race(systems: Sequence[System], n_queries: int, progress: bool = False) -> dict[str, np.ndarray]:
    """Milliseconds per system, one per query, the systems interleaved with the first rotating."""
    times = {s.name: np.full(n_queries, np.nan) for s in systems}
    if not n_queries:
        return times
    for system in systems:  # first-call costs (lazy imports, page faults, ONNX session) untimed
        system.search(0)
        system.results.clear()
    gc.collect()
    for q in tqdm(range(n_queries), desc="queries", disable=not progress, file=sys.stderr):
        shift = q % len(systems)
        for system in list(systems[shift:]) + list(systems[:shift]):
            gc.disable()
            try:
                t0 = time.perf_counter_ns()
                system.search(q)
                times[system.name][q] = (time.perf_counter_ns() - t0) / 1e6
            finally:
                gc.enable()
        gc.collect()
    return times


def paired_bootstrap(ours: Sequence[float], theirs: Sequence[float], resamples: int = 10_000, seed: int = 0,
                     confidence: float = 0.95) -> dict[str, float]:
    """Mean of ours - theirs over queries and its bootstrap percentile interval (queries resampled, paired).

    Returns:
        {"diff", "low", "high"}, rounded to 4 places.
    """
    diff = np.asarray(ours, dtype=np.float64) - np.asarray(theirs, dtype=np.float64)
    if diff.size == 0:
        raise ValueError("paired_bootstrap needs at least one query")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    step = max(1, 2_000_000 // diff.size)  # bound the index matrix to ~16 MB
    for start in range(0, resamples, step):
        stop = min(start + step, resamples)
        means[start:stop] = diff[rng.integers(0, diff.size, size=(stop - start, diff.size))].mean(axis=1)
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return {"diff": round(float(diff.mean()), 4), "low": round(float(low), 4), "high": round(float(high), 4)}


def mean_of(rows: Sequence[Mapping[str, float]], metric: str) -> float:
    return round(float(np.mean([r[metric] for r in rows])), 4) if rows else float("nan")


def report(times: Mapping[str, np.ndarray], scores: Mapping[str, Sequence[Mapping[str, float]]],
           metrics: Sequence[str], resamples: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """Per-system figures, peer speed ratios and the quality differences against the best peer.

    Args:
        times: ms per query per system (the race's output).
        scores: per-query metric rows per system, in query order.
        metrics: the quality metrics to report and compare (each row has them).
    """
    systems: dict[str, dict[str, Any]] = {}
    for name, ms in times.items():
        figures = stats(ms)
        systems[name] = {"median_ms": figures["median"], "p95_ms": figures["p95"], "mean_ms": figures["mean"],
                         **{m: mean_of(scores[name], m) for m in metrics}, "queries": figures["n"]}
    out: dict[str, Any] = {"systems": systems}
    peers = [n for n in times if n != SIGHTLINE]
    if SIGHTLINE not in times or not peers:
        return out
    ours = systems[SIGHTLINE]["median_ms"]
    for peer in peers:
        systems[peer]["x_sightline_median"] = sig3(systems[peer]["median_ms"] / ours) if ours else None
    quality: dict[str, Any] = {}
    for metric in metrics:
        ours_rows = [r[metric] for r in scores[SIGHTLINE]]
        versus = {peer: paired_bootstrap(ours_rows, [r[metric] for r in scores[peer]], resamples, seed)
                  for peer in peers}
        best = max(peers, key=lambda p: (systems[p][metric], p))
        quality[metric] = {"best_peer": best, **versus[best],
                           "significantly_below": versus[best]["high"] < 0, "vs": versus}
    out["quality_vs_best_peer"] = quality
    out["targets"] = {
        **{f"{peer}_speedup": {"x": systems[peer]["x_sightline_median"], "target": SPEED_TARGETS[peer],
                               "met": (systems[peer]["x_sightline_median"] or 0) >= SPEED_TARGETS[peer]}
           for peer in peers if peer in SPEED_TARGETS},
        "quality_not_significantly_below_best_peer": not any(q["significantly_below"] for q in quality.values()),
    }
    return out


def markdown(result: Mapping[str, Any], metrics: Sequence[str]) -> str:
    """The table docs/BENCHMARKS.md shows: one row per system, then the intervals."""
    head = ["system", "version", *metrics, "median ms", "p95 ms", "x Sightline median"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, figures in result["systems"].items():
        cells = [name, str(result.get("versions", {}).get(name, ""))]
        cells += [f"{figures[m]:.4f}" for m in metrics]
        cells += [f"{figures['median_ms']:g}", f"{figures['p95_ms']:g}",
                  "1.00" if name == SIGHTLINE else f"{figures.get('x_sightline_median', float('nan')):g}x"]
        lines.append("| " + " | ".join(cells) + " |")
    for metric, q in result.get("quality_vs_best_peer", {}).items():
        parts = [f"{peer} {v['diff']:+.4f} [{v['low']:+.4f}, {v['high']:+.4f}]" for peer, v in q["vs"].items()]
        lines.append(f"\n{metric}, Sightline minus peer, mean and 95% paired bootstrap interval: "
                     + "; ".join(parts) + f" (best peer: {q['best_peer']}"
                     + (", significantly below it)" if q["significantly_below"] else ", not significantly below)"))
    for message in result.get("skipped", {}).values():
        lines.append(f"\n{message}")
    return "\n".join(lines)
