"""The timing harness: the interleaved race, the figures drawn from it, thread pinning and progress.

Promises:
- `race` times every lane on one (repeat, query) grid, interleaved query by query with the order
  rotated per cell, so drift hits all lanes alike; one untimed warm-up call per lane; GC off while
  timing; a cell a lane does not run (beyond its queries or repeats) stays NaN.
- `stats` and `ratio` read only the cells that ran; figures are rounded to three significant digits.
- `timed_build` reports seconds and this process's RSS growth for one build.
- `set_threads` pins FAISS OpenMP and BLAS (torch is set where the embedder runs).

Nothing here knows which systems are raced: a lane only needs a name and `search(query_index)`.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import psutil

K = 10  # top-k of every search
MB = 1024 * 1024


class Searcher(Protocol):
    """What the race needs of a system: its report key and one search by query index."""

    name: str

    def search(self, i: int) -> Any:
        """Top-K for query `i`."""
        ...


@dataclass
class Lane:
    """One contender in a race: a system, and how much of the grid it runs."""

    system: Searcher
    n_queries: int
    repeats: int


def race(lanes: list[Lane], repeats: int) -> dict[str, np.ndarray]:
    """Time every lane on every query, interleaved, rotating who goes first.

    Returns:
        Milliseconds per system name, shape (repeats, queries); NaN where a lane did not run.
    """
    n_queries = max(lane.n_queries for lane in lanes)
    times = {lane.system.name: np.full((repeats, n_queries), np.nan) for lane in lanes}
    for lane in lanes:  # warm-up: first-call costs (page faults, lazy imports) are not timed
        lane.system.search(0)
    gc.collect()
    gc.disable()
    try:
        for r in range(repeats):
            for q in range(n_queries):
                shift = (r + q) % len(lanes)
                for lane in lanes[shift:] + lanes[:shift]:
                    if q < lane.n_queries and r < lane.repeats:
                        search = lane.system.search
                        t0 = time.perf_counter_ns()
                        search(q)
                        times[lane.system.name][r, q] = (time.perf_counter_ns() - t0) / 1e6
    finally:
        gc.enable()
    return times


def stats(ms: np.ndarray) -> dict[str, float]:
    """Median, p95 and mean of the timings that ran."""
    ran = ms[np.isfinite(ms)]
    return {"median": sig3(np.median(ran)), "p95": sig3(np.percentile(ran, 95)),
            "mean": sig3(ran.mean()), "n": int(ran.size)}


def ratio(peer: np.ndarray, ours: np.ndarray) -> float:
    """Median peer time over our median time, on the (repeat, query) cells both ran."""
    both = np.isfinite(peer) & np.isfinite(ours)
    return sig3(np.median(peer[both]) / np.median(ours[both]))


def sig3(x: float) -> float:
    """Three significant digits, enough for a table."""
    return float(f"{float(x):.3g}")


def timed_build(build: Callable[[], Any]) -> tuple[Any, float, float]:
    """Run `build`; return its result, the seconds it took and the growth of this process's RSS in MB."""
    gc.collect()
    before = psutil.Process().memory_info().rss
    t0 = time.perf_counter()
    built = build()
    elapsed = time.perf_counter() - t0
    return built, elapsed, round((psutil.Process().memory_info().rss - before) / MB, 1)


def pin_threads(n: int) -> dict[str, Any]:
    """Pin FAISS (OpenMP), BLAS and torch to `n` threads; return what was set."""
    out: dict[str, Any] = {"query": n}
    out.update(set_threads(n))
    return out


def set_threads(n: int) -> dict[str, Any]:
    """Set FAISS OpenMP and BLAS thread counts to `n` (torch is set where the embedder runs)."""
    import faiss

    faiss.omp_set_num_threads(n)
    info: dict[str, Any] = {"faiss_omp": faiss.omp_get_max_threads()}
    try:
        from threadpoolctl import threadpool_info, threadpool_limits
    except ImportError:
        info["blas"] = "not pinned (threadpoolctl missing): set OPENBLAS_NUM_THREADS before starting"
        return info
    threadpool_limits(limits=n)
    info["blas"] = sorted({f"{p['internal_api']}={p['num_threads']}" for p in threadpool_info()})
    return info


def log(message: str) -> None:
    """One progress line on stderr (stdout carries the Markdown report)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
