"""Fusing ranked lists: weighted reciprocal-rank fusion (default) or weighted score sum.

Used twice: to merge the keyword and vector arms of one task, and to merge the tasks of a
plan. Both methods accept empty lists and lists whose weight is zero; an item's fused entry
keeps the rank and raw score it had in every list, so the trace can show why it ranked.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from core.errors import ConfigError

K = TypeVar("K", bound=Hashable)  # what identifies an item: a row number, a (kb, chunk_id) pair


@dataclass
class RankedList(Generic[K]):
    """One list to fuse: (key, score) pairs best first, with the list's name and weight."""

    name: str
    weight: float
    items: Sequence[tuple[K, float]]

    @property
    def size(self) -> int:
        return len(self.items)


@dataclass
class RowList:
    """A ranked list of row numbers held as arrays (one search arm): `rows` best first, with
    their float64 `scores`. `Fuser.fuse_rows` fuses them on the arrays, with the very same
    arithmetic, order and ties as `fuse_top` gives the (key, score) pairs of a RankedList."""

    name: str
    weight: float
    rows: np.ndarray
    scores: np.ndarray

    def __post_init__(self) -> None:
        self.rows = np.asarray(self.rows, dtype=np.int64)
        self.scores = np.asarray(self.scores, dtype=np.float64)

    @property
    def size(self) -> int:
        return int(self.rows.shape[0])

    @property
    def items(self) -> list[tuple[int, float]]:
        """The (row, score) pairs, for readers of a RankedList."""
        return list(zip(self.rows.tolist(), self.scores.tolist(), strict=True))


@dataclass
class Fused(Generic[K]):
    """An item after fusion: its fused score and where it stood in each input list."""

    key: K
    score: float
    ranks: dict[str, int] = field(default_factory=dict)    # list name -> 1-based rank
    scores: dict[str, float] = field(default_factory=dict)  # list name -> raw score


def _rrf(lists: Sequence[RankedList[K]], k: float) -> dict[K, float]:
    """sum over lists of weight / (k + rank)."""
    fused: dict[K, float] = {}
    for ranked in lists:
        for rank, (key, _score) in enumerate(ranked.items, start=1):
            fused[key] = fused.get(key, 0.0) + ranked.weight / (k + rank)
    return fused


def _weighted_sum(lists: Sequence[RankedList[K]], k: float) -> dict[K, float]:
    """sum over lists of weight x min-max normalised score (a lone item normalises to 1)."""
    fused: dict[K, float] = {}
    for ranked in lists:
        if not ranked.items:
            continue
        values = [s for _, s in ranked.items]
        low, high = min(values), max(values)
        span = high - low
        for key, score in ranked.items:
            norm = (score - low) / span if span > 0 else 1.0
            fused[key] = fused.get(key, 0.0) + ranked.weight * norm
    return fused


METHODS = {"rrf": _rrf, "weighted_sum": _weighted_sum}


def distinct_rows(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The distinct values of the arrays, ascending: `np.unique` of their concatenation.

    By a sort and a comparison with the neighbour: on a search's few hundred rows `np.unique`
    (a hash pass, then a sort) took ~22 us, this ~3 us.
    """
    values = np.sort(np.concatenate(arrays)) if len(arrays) else np.zeros(0, np.int64)
    if values.size < 2:
        return values
    return values[np.concatenate(([True], values[1:] != values[:-1]))]


class Fuser:
    """Fuses ranked lists with one method chosen at construction.

    Args:
        method: "rrf" (default) or "weighted_sum".
        k: the RRF constant (60 in the original paper); unused by weighted_sum.
    """

    def __init__(self, method: str = "rrf", k: float = 60.0) -> None:
        if method not in METHODS:
            raise ConfigError(f"unknown fusion method '{method}'; known: {', '.join(sorted(METHODS))}",
                              field="fusion.method")
        if k <= 0:
            raise ConfigError(f"fusion k must be positive, got {k}", field="fusion.k")
        self.method = method
        self.k = k
        self._combine = METHODS[method]

    def fuse(self, lists: Sequence[RankedList[K]]) -> list[Fused[K]]:
        """Fused items best first; ties broken by best single rank, then by key, for determinism."""
        return self.fuse_top(lists)[0]

    def fuse_top(self, lists: Sequence[RankedList[K]], limit: int | None = None) -> tuple[list[Fused[K]], int]:
        """The best `limit` fused items (all when None), as `fuse` orders them, and how many there are.

        Only the items returned get a `Fused` with their ranks and raw scores: a search keeps
        its top_k of some hundred fused rows, and building the rest cost more than fusing.
        """
        active = [ranked for ranked in lists if ranked.weight > 0]
        totals = self._combine(active, self.k)
        best: dict[K, int] = {}  # the item's best rank in any list (the first tie-break)
        for ranked in lists:
            for rank, (key, _score) in enumerate(ranked.items, start=1):
                if key in totals and rank < best.get(key, rank + 1):
                    best[key] = rank
        ranked_keys = [(-total, best[key], str(key), key) for key, total in totals.items()]  # keys are unique
        chosen = sorted(ranked_keys) if limit is None else heapq.nsmallest(limit, ranked_keys)
        order = [key for *_, key in chosen]
        entries: dict[K, Fused[K]] = {key: Fused(key, totals[key]) for key in order}
        for ranked in lists:
            for rank, (key, score) in enumerate(ranked.items, start=1):
                entry = entries.get(key)
                if entry is not None and ranked.name not in entry.ranks:
                    entry.ranks[ranked.name] = rank
                    entry.scores[ranked.name] = float(score)
        return [entries[key] for key in order], len(totals)

    def fuse_rows(self, lists: Sequence[RowList], limit: int | None = None) -> tuple[list[Fused[int]], int]:
        """`fuse_top` on RowLists (a search's arms): the same totals (each list's contribution
        added in list order, in float64, as for pairs), the same order (-total, best rank,
        str(row)) and the same Fused entries, without a Python loop over every candidate."""
        keys = distinct_rows([ranked.rows for ranked in lists])
        if keys.size == 0:
            return [], 0
        total = np.zeros(keys.size)
        present = np.zeros(keys.size, dtype=bool)
        best = np.full(keys.size, np.iinfo(np.int64).max, dtype=np.int64)
        places = []  # per list: each key's position in it, -1 when absent
        for ranked in lists:
            where = np.searchsorted(keys, ranked.rows)
            ranks = np.arange(1, ranked.size + 1, dtype=np.int64)
            place = np.full(keys.size, -1, dtype=np.int64)
            place[where] = ranks - 1
            places.append(place)
            best[where] = np.minimum(best[where], ranks)  # a row is once in a list (a search's arm)
            if ranked.weight <= 0 or ranked.size == 0:
                continue
            if self.method == "rrf":
                total[where] += ranked.weight / (self.k + ranks.astype(np.float64))
            else:
                low, high = ranked.scores.min(), ranked.scores.max()
                span = high - low
                norm = (ranked.scores - low) / span if span > 0 else np.ones(ranked.size)
                total[where] += ranked.weight * norm
            present[where] = True
        index = np.flatnonzero(present)
        negative, first = -total[index], best[index]
        order = np.lexsort((first, negative))
        if limit is not None and limit < order.size:
            # rows tied with the last one taken on (total, best rank) are ordered by str(row) below
            last = order[limit - 1]
            tied = np.flatnonzero((negative == negative[last]) & (first == first[last]))
            order = distinct_rows([order[:limit], tied])
        # (-total, best rank, str(row), the row's position in keys)
        chosen = sorted((negative[i], first[i], str(keys[index[i]]), int(index[i])) for i in order.tolist())
        if limit is not None:
            chosen = chosen[:limit]
        fused = []
        for neg, _best, _text, at in chosen:
            entry = Fused(int(keys[at]), float(-neg))
            for ranked, place in zip(lists, places, strict=True):
                i = int(place[at])
                if i >= 0 and ranked.name not in entry.ranks:
                    entry.ranks[ranked.name] = i + 1
                    entry.scores[ranked.name] = float(ranked.scores[i])
            fused.append(entry)
        return fused, int(index.size)
