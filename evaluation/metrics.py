"""Retrieval metrics, each with the definition of the paper that reports it."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def ndcg_at_k(ranking: Sequence[str], relevance: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k with graded gains (BEIR / trec_eval: gain = rel, discount log2(rank + 1))."""
    dcg = sum(relevance.get(doc, 0) / math.log2(rank + 1) for rank, doc in enumerate(ranking[:k], start=1))
    ideal = sorted((r for r in relevance.values() if r > 0), reverse=True)[:k]
    idcg = sum(rel / math.log2(rank + 1) for rank, rel in enumerate(ideal, start=1))
    return dcg / idcg if idcg else 0.0


def recall_at_k(ranking: Sequence[str], relevance: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant documents found in the top k."""
    relevant = {doc for doc, rel in relevance.items() if rel > 0}
    return len(relevant.intersection(ranking[:k])) / len(relevant) if relevant else 0.0


def _squash(text: str) -> str:
    return text.replace(" ", "").replace("\n", "")


def multihop_query_metrics(retrieved: Sequence[str], facts: Sequence[str]) -> dict[str, float]:
    """MultiHop-RAG's chunk-level metrics for one query (upstream `calculate_metrics`).

    A retrieved chunk is a hit when an evidence fact is a substring of it once spaces and
    newlines are removed. AP@10 adds count/rank at each hit, where count is the number of
    facts first found in that chunk, divided by min(#facts, 10). all_evidence@10 (ours, stricter)
    is 1 when every fact is found in the top 10.
    """
    gold = [_squash(f) for f in facts]
    chunks = [_squash(c) for c in retrieved[:10]]
    found: list[str] = []
    first_hit = None
    hit4 = False
    ap_sum = 0.0
    for rank, chunk in enumerate(chunks, start=1):
        if any(g in chunk for g in gold):
            first_hit = first_hit or rank
            hit4 = hit4 or rank <= 4
            count = 0
            for g in gold:
                if g in chunk and g not in found:
                    found.append(g)
                    count += 1
            ap_sum += count / rank
    every = all(any(g in c for c in chunks) for g in gold)
    return {"hits@4": float(hit4), "hits@10": float(first_hit is not None),
            "map@10": ap_sum / min(len(gold), 10) if gold else 0.0,
            "mrr@10": 1.0 / first_hit if first_hit else 0.0, "all_evidence@10": float(every)}


def mean_metrics(rows: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """Per-metric means of per-query metric rows, rounded to 4 places."""
    rows = list(rows)
    if not rows:
        return {}
    return {key: round(sum(r[key] for r in rows) / len(rows), 4) for key in rows[0]}


def status_counts(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """{"answerable" / "unanswerable": {status: count}}."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        group = out.setdefault("answerable" if r["answerable"] else "unanswerable", {})
        group[r["status"]] = group.get(r["status"], 0) + 1
    return out
