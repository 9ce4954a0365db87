"""Top-k selection over score arrays, shared by the keyword and dense arms."""

from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The k best positions of `scores`, best first, ties broken by lower position.

    Args:
        scores: one score per row (documents or chunks).
        k: how many to return at most.
        allowed: optional boolean mask; rows where it is False are never returned.

    Returns:
        (rows, scores) as int64 and float32 arrays, sorted by descending score.
    """
    if k <= 0 or scores.size == 0:
        return np.empty(0, np.int64), np.empty(0, np.float32)
    work = scores
    if allowed is not None:
        work = np.array(scores, dtype=np.float32, copy=True)
        work[~allowed] = -np.inf
    if k < work.size:
        # argpartition picks arbitrarily among rows tied with the k-th score; take all of them
        # so that the lowest rows win the tie, whatever the array's layout.
        kth = -np.partition(-work, k - 1)[k - 1]
        part = np.flatnonzero(work >= kth) if np.isfinite(kth) else np.flatnonzero(np.isfinite(work))
    else:
        part = np.arange(work.size)
    # lexsort: primary key descending score, secondary ascending row, for determinism.
    order = np.lexsort((part, -work[part]))
    rows = part[order][:k]
    rows = rows[np.isfinite(work[rows])]
    return rows.astype(np.int64), np.asarray(scores[rows], dtype=np.float32)
