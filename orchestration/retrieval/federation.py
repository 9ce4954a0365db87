"""Searching several knowledge bases as one corpus: shared BM25 statistics, one fused ranking.

A task the router emits for every knowledge base (`kb: "*"`) used to run once per KB, and each
run's top chunk entered the evidence at the same rank, however poor its match: an irrelevant
KB's best chunk took a slot from a relevant KB's second. Searched as one corpus instead, the
KBs share the evidence by relevance:

- BM25 scores become comparable: each KB's precomputed weights are rescaled per query term
  from its own IDF to the IDF of the union (`shared_idf`), so a term that is rare in one KB but
  common overall does not inflate that KB's scores.
- Dense scores are comparable already (cosine, unit vectors) when one embedder built every KB
  (the executor groups KBs by embedder).
- Each arm is ranked across all KBs by those scores, then the arms are fused (`fuse_across`) as
  within one KB, each KB's arm weights applying to its own chunks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .bm25 import BM25Index
from .bm25_visible import VisibleBM25
from .fusion import Fused, RankedList, RowList

KBRow = tuple[str, int]  # (knowledge base name, chunk row)


def shared_idf(indexes: Sequence[BM25Index | VisibleBM25], tokens: Sequence[str]) -> dict[str, float]:
    """The Okapi IDF each query token would have in one index over all the indexes' documents
    (over the rows each view shows, for views: one caller's documents).

    Uses the same formula and negative-IDF floor as the indexes themselves (the floor's mean
    IDF is the document-weighted mean of the indexes' own), so for a single index it returns
    that index's IDF.
    """
    total = sum(index.n_docs for index in indexes)
    mean_idf = sum(index.stats.get("mean_idf", 0.0) * index.n_docs for index in indexes) / max(total, 1)
    epsilon = indexes[0].params.epsilon if indexes else 0.25
    out: dict[str, float] = {}
    for token in dict.fromkeys(tokens):
        df = sum(index.document_frequency(token) for index in indexes)
        if df == 0:
            continue
        idf = math.log(total - df + 0.5) - math.log(df + 0.5)
        out[token] = epsilon * mean_idf if idf < 0 else idf
    return out


@dataclass
class KBArm:
    """One arm's ranked rows from one knowledge base, with that KB's weight for the arm."""

    kb: str
    arm: RankedList[int] | RowList  # a search builds RowLists; a RankedList reads the same


def fuse_across(arms: Sequence[KBArm], method: str, k: float, kb_order: Sequence[str]) -> list[Fused[KBRow]]:
    """One ranking of the rows of several KBs.

    Arms of the same name (`<task>:keyword`, `<task>:vector`) are merged into one list ordered
    by score (ties: KB order, then row), so a row's rank is its rank in the union. `rrf` sums
    weight / (k + rank) over the arms; `weighted_sum` sums weight x the score min-max normalised
    over the union. Each row's weight is its own KB's weight for the arm.

    Returns:
        Fused entries keyed by (kb, row), best first (ties: best single rank, then key), each
        with its rank and raw score per arm name.
    """
    position = {name: i for i, name in enumerate(kb_order)}
    merged: dict[str, list[tuple[float, str, int, float]]] = {}
    for part in arms:
        rows = merged.setdefault(part.arm.name, [])
        rows.extend((float(score), part.kb, row, part.arm.weight) for row, score in part.arm.items)
    entries: dict[KBRow, Fused[KBRow]] = {}
    weighted: set[KBRow] = set()  # rows some arm of weight > 0 found (as Fuser: the others drop out)
    for name, rows in merged.items():
        rows.sort(key=lambda r: (-r[0], position[r[1]], r[2]))
        low, high = (min(r[0] for r in rows), max(r[0] for r in rows)) if rows else (0.0, 0.0)
        for rank, (score, kb, row, weight) in enumerate(rows, start=1):
            entry = entries.setdefault((kb, row), Fused((kb, row), 0.0))
            if weight > 0:
                weighted.add((kb, row))
                if method == "rrf":
                    entry.score += weight / (k + rank)
                else:
                    entry.score += weight * ((score - low) / (high - low) if high > low else 1.0)
            entry.ranks[name] = rank
            entry.scores[name] = score
    scored = [entry for key, entry in entries.items() if key in weighted]
    return sorted(scored, key=lambda e: (-e.score, min(e.ranks.values(), default=0), position[e.key[0]], e.key[1]))
