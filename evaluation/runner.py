"""`sightline eval`: build (or reuse) each set's knowledge base, run every mode, score it.

Retrieval runs through the same Retriever the service uses. Each set's knowledge base is
built under var/eval/ by the normal ingest, which skips the build when the corpus, chunking
and embedder are unchanged, so a second run only queries.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import yaml
from tqdm import tqdm

from orchestration.kb.config import KBConfig, parse_kb_config
from orchestration.kb.ingest import ingest
from orchestration.kb.knowledge_base import KnowledgeBase
from orchestration.paths import config_dir
from orchestration.retrieval.embedder import get_embedder
from orchestration.retrieval.search import Retriever, SearchRequest
from orchestration.trace import Trace

from .datasets import DEFAULT_DATA, EvalQuery, load_queries, set_folder
from .metrics import mean_metrics, multihop_query_metrics, ndcg_at_k, recall_at_k

MODES = {"bm25": "keyword", "dense": "vector", "hybrid": "hybrid"}
ANCHORS = {
    "scifact": {"bm25 (BEIR paper)": {"ndcg@10": 0.665}, "bm25 (Anserini)": {"ndcg@10": 0.679},
                "BGE-base-en-v1.5": {"ndcg@10": 0.741}},
    "multihop": {"voyage-02 + bge-reranker-large (paper best)": {"hits@10": 0.7467, "hits@4": 0.6625,
                                                                  "mrr@10": 0.586}},
}


def eval_kb_config(data_dir: Path) -> KBConfig:
    """config/eval_knowledge_bases.yaml with corpus paths under `data_dir`."""
    path = config_dir() / "eval_knowledge_bases.yaml"
    return parse_kb_config(yaml.safe_load(path.read_text(encoding="utf-8")), source=str(path), base_dir=data_dir)


def prepare_retriever(name: str, data_dir: Path, progress: bool) -> tuple[Retriever, dict]:
    """Build the set's knowledge base if needed; a retriever over it and the ingest report."""
    config = eval_kb_config(data_dir).only(name)
    settings = config.get(name)
    embedder = get_embedder(config.embedder)
    report = ingest(settings, config.kb_dir(name), embedder, progress=progress)
    if progress:
        print(report.summary().splitlines()[0], file=sys.stderr)
    kb = KnowledgeBase(settings, config.kb_dir(name), embedder.name)
    retriever = Retriever({name: kb}, embedder)
    retriever.warm_up()
    return retriever, {"documents": report.documents, "chunks": report.chunks, "skipped": len(report.skipped),
                       "build_seconds": round(report.seconds, 1), "reused_build": report.unchanged}


def _retrieve(retriever: Retriever, kb: str, query: EvalQuery, mode: str, k: int):
    request = SearchRequest(id="q", kb=kb, query=query.text, search=MODES[mode], top_k=k, candidates=max(k, 200))
    started = time.perf_counter()
    results = retriever.run([request], Trace(), apply_credibility=False)[0]
    return results, (time.perf_counter() - started) * 1000


def _doc_ranking(chunks) -> list[str]:
    """Documents in the order their best chunk ranks."""
    seen: dict[str, None] = {}
    for chunk in chunks:
        seen.setdefault(chunk.doc_id, None)
    return list(seen)


def _score_scifact(chunks, query: EvalQuery) -> dict[str, float]:
    ranking = _doc_ranking(chunks)
    return {"ndcg@10": ndcg_at_k(ranking, query.relevance, 10), "recall@100": recall_at_k(ranking, query.relevance, 100)}


def _score_multihop(chunks, query: EvalQuery) -> dict[str, float]:
    return multihop_query_metrics([c.text for c in chunks], query.facts)


def _score_hotpotqa(chunks, query: EvalQuery) -> dict[str, float]:
    ranking = _doc_ranking(chunks)
    gold = set(query.relevance)
    return {"r@2": float(gold <= set(ranking[:2])), "r@5": float(gold <= set(ranking[:5]))}


SCORERS: dict[str, tuple[Callable, int, Callable[[EvalQuery], bool]]] = {
    # set: (scorer, chunks to retrieve, which queries count)
    "scifact": (_score_scifact, 300, lambda q: True),
    "multihop": (_score_multihop, 10, lambda q: q.type != "null_query"),
    "hotpotqa": (_score_hotpotqa, 20, lambda q: bool(q.relevance)),
}


def run_set(name: str, data_dir: Path | None = None, queries: Path | None = None, limit: int | None = None,
            progress: bool = True) -> dict[str, Any]:
    """Evaluate one set in every retrieval mode; the JSON document `eval --json` prints."""
    if name not in SCORERS:
        raise ValueError(f"unknown set {name}")
    data_dir = data_dir or DEFAULT_DATA
    folder = set_folder(name, data_dir)
    scorer, k, counts = SCORERS[name]
    items = [q for q in load_queries(name, folder, queries) if counts(q)]
    if limit:
        items = items[:limit]
    retriever, build = prepare_retriever(name, data_dir, progress)
    metrics: dict[str, dict] = {}
    latency: dict[str, dict] = {}
    by_type: dict[str, dict] = {}
    for mode in MODES:
        rows, times, typed = [], [], {}
        for query in tqdm(items, desc=f"{name} {mode}", disable=not progress, file=sys.stderr):
            chunks, ms = _retrieve(retriever, name, query, mode, k)
            row = scorer(chunks, query)
            rows.append(row)
            times.append(ms)
            typed.setdefault(query.type or "all", []).append(row)
        metrics[mode] = mean_metrics(rows)
        latency[mode] = {"median_ms": round(statistics.median(times), 2),
                         "p95_ms": round(sorted(times)[int(0.95 * (len(times) - 1))], 2)}
        if len(typed) > 1:
            by_type[mode] = {t: mean_metrics(r) | {"queries": len(r)} for t, r in sorted(typed.items())}
    if name == "multihop":
        from .multihop_loop import build_loop, run_loop_eval

        everything = load_queries(name, folder, queries)[:limit] if limit else load_queries(name, folder, queries)
        loop = build_loop(eval_kb_config(data_dir).only(name), name)
        routed = run_loop_eval(loop, name, everything, progress)
        metrics["router"] = routed["metrics"]
        latency["router"] = routed["latency"]["total"]
        by_type["router"] = routed["by_type"]
        latency["router_stages"] = routed["latency"]
        metrics["topk"] = metrics["hybrid"]
    result = {"set": name, "queries": len(items), "metrics": metrics, "latency": latency, "kb": build,
              "anchors": ANCHORS.get(name, {})}
    if by_type:
        result["by_type"] = by_type
    return result


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table of a set's metrics per mode, with the published anchors."""
    modes = list(result["metrics"])
    names = list(result["metrics"]["bm25"].keys())
    lines = [f"{result['set']}: {result['queries']} queries",
             f"{'mode':<10}" + "".join(f"{n:>16}" for n in names) + f"{'median ms':>12}"]
    for mode in modes:
        values = result["metrics"][mode]
        lines.append(f"{mode:<10}" + "".join(f"{values[n]:>16.4f}" if values.get(n) is not None else f"{'-':>16}"
                                             for n in names)
                     + f"{result['latency'].get(mode, {}).get('median_ms', float('nan')):>12.2f}")
        extra = {k: v for k, v in values.items() if k not in names}
        if extra:
            lines.append(" " * 10 + ", ".join(f"{k} {v}" for k, v in extra.items()))
    for anchor, values in result.get("anchors", {}).items():
        lines.append(f"  anchor {anchor}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    return "\n".join(lines)


def run_sets(sets: list[str], data_dir: Path | None = None, queries: Path | None = None, limit: int | None = None,
             out_dir: Path | None = None, progress: bool = True) -> list[dict[str, Any]]:
    """Evaluate each set; print a table per set when `progress`; write report.json to out_dir."""
    results = []
    for name in sets:
        result = run_set(name, data_dir, queries, limit, progress)
        results.append(result)
        if progress:
            print(format_table(result))
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "report.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    return results
