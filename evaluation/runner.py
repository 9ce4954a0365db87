"""`sightline eval`: build (or reuse) each set's knowledge base, run every mode, score it.

Retrieval runs through the same Retriever the service uses, and the answer-level modes
(`router` on MultiHop-RAG and HotpotQA, every RGB setting, the PEP questions of evaluation/peps/,
SQuAD 2.0 articles of evaluation/squad.py)
through `server.loop.AnswerLoop`, the code path of POST /rag. Each set's knowledge base is built
under var/eval/ by the normal ingest, which skips the build when the corpus, chunking, pipeline
code and embedder are unchanged, so a second run only queries.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml
from tqdm import tqdm

from core.errors import RequestError
from orchestration.kb.config import KBConfig, parse_kb_config
from orchestration.kb.registry import open_knowledge_bases
from orchestration.paths import REPO_ROOT, config_dir
from orchestration.retrieval.embedder import get_embedder
from orchestration.retrieval.search import Retriever, SearchRequest
from orchestration.trace import Trace

from .builds import build_eval_kb
from .datasets import DEFAULT_DATA, EvalQuery, load_queries, set_folder
from .metrics import mean_metrics, multihop_query_metrics, ndcg_at_k, recall_at_k
from .stats import latency_summary

SETS = ("scifact", "multihop", "rgb", "hotpotqa", "peps", "squad")
MODES = {"bm25": "keyword", "dense": "vector", "hybrid": "hybrid"}
ANCHORS = {
    "scifact": {"bm25 (BEIR paper)": {"ndcg@10": 0.665}, "bm25 (Anserini)": {"ndcg@10": 0.679},
                "BGE-base-en-v1.5": {"ndcg@10": 0.741}},
    "multihop": {"voyage-02 + bge-reranker-large (paper best)": {"hits@10": 0.7467, "hits@4": 0.6625,
                                                                  "mrr@10": 0.586}},
}
# Retrieval trace operations -> the stage names the report shows for retrieval-only modes.
RETRIEVAL_STAGES = {"embed": "embed", "retrieve.keyword": "keyword", "retrieve.vector": "vector",
                    "fuse.arms": "fuse"}
# Vector-arm weights (keyword fixed at 1.0) tried on hybrid retrieval to set the per-KB fusion
# weights of config/eval_knowledge_bases.yaml from evidence.
FUSION_SWEEP = (0.25, 0.5, 1.0, 2.0)
# retrieval-only runs turn credibility off, so no recency is measured: a fixed date, never read
RETRIEVAL_NOW = dt.date(2025, 7, 1)


def eval_kb_config(data_dir: Path, backend: str = "local") -> KBConfig:
    """config/eval_knowledge_bases.yaml with corpus paths under `data_dir`.

    `backend` "milvus": the same KBs on the milvus backend, built under `<data_dir of the
    config>/milvus` with one milvus-lite file there (`engine.db`), so both backends' builds
    stay cached side by side.
    """
    path = config_dir() / "eval_knowledge_bases.yaml"
    config = parse_kb_config(yaml.safe_load(path.read_text(encoding="utf-8")), source=str(path), base_dir=data_dir)
    if backend == "milvus":
        root = config.data_dir / "milvus"
        return config.on_milvus(root, str(root / "engine.db"), prefix="sightline_eval_")
    if backend != "local":
        raise RequestError(f"unknown backend {backend!r}; choose local or milvus", field="backend")
    return config


def prepare_retriever(name: str, data_dir: Path, progress: bool, kb_config: KBConfig | None = None
                      ) -> tuple[Retriever, dict]:
    """Build the set's knowledge base if needed; a retriever over it and the ingest report."""
    config = (kb_config or eval_kb_config(data_dir)).only(name)
    embedder = get_embedder(config.embedder)
    built = build_eval_kb(config, name, progress=progress, embedder=embedder)
    retriever = Retriever(open_knowledge_bases(config.only(name)), embedder)
    retriever.warm_up()
    return retriever, built


def retrieve(retriever: Retriever, kb: str, query: EvalQuery, mode: str, k: int,
             weights: dict[str, float] | None = None):
    """(chunks, total ms, {stage: ms}) of one retrieval-only query in one mode."""
    request = SearchRequest(id="q", kb=kb, query=query.text, search=MODES[mode], top_k=k, candidates=max(k, 200),
                            weights=weights)
    trace = Trace()
    started = time.perf_counter()
    results = retriever.run([request], trace, RETRIEVAL_NOW, apply_credibility=False)[0]
    total = (time.perf_counter() - started) * 1000
    stages: dict[str, float] = {}
    for op in trace.operations:
        stage = RETRIEVAL_STAGES.get(op.op)
        if stage:
            stages[stage] = stages.get(stage, 0.0) + op.ms
    return results, total, stages


def doc_ranking(chunks) -> list[str]:
    """Documents in the order their best chunk ranks."""
    seen: dict[str, None] = {}
    for chunk in chunks:
        seen.setdefault(chunk.doc_id, None)
    return list(seen)


def score_scifact(chunks, query: EvalQuery) -> dict[str, float]:
    ranking = doc_ranking(chunks)
    return {"ndcg@10": ndcg_at_k(ranking, query.relevance, 10),
            "recall@100": recall_at_k(ranking, query.relevance, 100)}


def score_multihop(chunks, query: EvalQuery) -> dict[str, float]:
    return multihop_query_metrics([c.text for c in chunks], query.facts)


def score_hotpotqa(chunks, query: EvalQuery) -> dict[str, float]:
    ranking = doc_ranking(chunks)
    gold = set(query.relevance)
    return {"r@2": float(gold <= set(ranking[:2])), "r@5": float(gold <= set(ranking[:5]))}


SCORERS: dict[str, tuple[Callable, int, Callable[[EvalQuery], bool]]] = {
    # set: (scorer, chunks to retrieve, which queries count)
    "scifact": (score_scifact, 300, lambda q: True),
    "multihop": (score_multihop, 10, lambda q: q.type != "null_query"),
    "hotpotqa": (score_hotpotqa, 20, lambda q: bool(q.relevance)),
}
RETRIEVAL_SETS = tuple(SCORERS)  # scored on the chunks retrieved; the others through the answers


def require_backend_for(sets: Sequence[str], backend: str) -> None:
    """Return when every set can be evaluated on `backend`; RequestError naming those that cannot
    (an engine backend serves the retrieval sets only, RETRIEVAL_SETS)."""
    refused = [name for name in sets if backend != "local" and name not in RETRIEVAL_SETS]
    if refused:
        raise RequestError(f"--backend {backend} applies to the retrieval sets ({', '.join(RETRIEVAL_SETS)}); "
                           f"evaluate {', '.join(refused)} on the local backend", field="backend")


def run_retrieval_modes(name: str, kb: str, retriever: Retriever, items: list[EvalQuery], progress: bool
                        ) -> tuple[dict, dict, dict]:
    """metrics, latency (per mode: total and per stage) and by_type for bm25 / dense / hybrid."""
    scorer, k, _ = SCORERS[name]
    metrics: dict[str, dict] = {}
    latency: dict[str, dict] = {}
    by_type: dict[str, dict] = {}
    for mode in MODES:
        rows: list[dict[str, float]] = []
        typed: dict[str, list[dict[str, float]]] = {}
        timings: dict[str, list[float]] = {"total": []}
        for query in tqdm(items, desc=f"{name} {mode}", disable=not progress, file=sys.stderr):
            chunks, ms, stages = retrieve(retriever, kb, query, mode, k)
            row = scorer(chunks, query)
            rows.append(row)
            timings["total"].append(ms)
            for stage, value in stages.items():
                timings.setdefault(stage, []).append(value)
            typed.setdefault(query.type or "all", []).append(row)
        metrics[mode] = mean_metrics(rows)
        latency[mode] = latency_summary(timings)
        if len(typed) > 1:
            by_type[mode] = {t: mean_metrics(r) | {"queries": len(r)} for t, r in sorted(typed.items())}
    return metrics, latency, by_type


def fusion_sweep(name: str, kb: str, retriever: Retriever, items: list[EvalQuery], progress: bool
                 ) -> dict[str, dict[str, float]]:
    """Hybrid metrics with the keyword arm at 1.0 and each vector weight of FUSION_SWEEP."""
    scorer, k, _ = SCORERS[name]
    out = {}
    for weight in FUSION_SWEEP:
        rows = [scorer(retrieve(retriever, kb, q, "hybrid", k, {"keyword": 1.0, "vector": weight})[0], q)
                for q in tqdm(items, desc=f"{name} fusion vector={weight}", disable=not progress, file=sys.stderr)]
        out[f"vector={weight:g}"] = mean_metrics(rows)
    return out


def run_set(name: str, data_dir: Path | None = None, queries: Path | None = None, limit: int | None = None,
            progress: bool = True, sweep: bool | None = None, split: str = "dev", backend: str = "local"
            ) -> dict[str, Any]:
    """Evaluate one set in every mode; the JSON document `eval --json` prints.

    `split` chooses the articles of `squad` (train, dev or test; evaluation/answers/splits.py).

    `sweep` (default: on for full local runs, off with `limit` or on milvus) adds hybrid metrics
    at several vector-arm weights under "fusion_sweep", the evidence for the per-KB weights.

    `backend` "milvus" searches the retrieval sets (RETRIEVAL_SETS) on the milvus backend
    (milvus-lite, docs/SCALE.md); the answer sets refuse it.
    """
    if name not in SETS:
        raise ValueError(f"unknown set {name}")
    require_backend_for([name], backend)
    started = time.perf_counter()
    from .report import commit_state

    commit = commit_state()  # the code the figures come from: HEAD when the run started (+ "dirty")
    data_dir = data_dir or DEFAULT_DATA
    if name == "peps":  # real documentation, read from ../shared/docs-corpora/peps (evaluation/peps/)
        from .peps.run import run_peps_set

        peps = run_peps_set(data_dir, eval_kb_config(data_dir), queries, limit, progress)
        peps["wall_seconds"] = round(time.perf_counter() - started, 1)
        peps["commit"] = commit
        return peps
    if name == "squad":  # SQuAD 2.0 articles of one split, through the whole loop (evaluation/squad.py)
        from .squad import run_squad_set

        if queries is not None:
            raise RequestError("--queries does not apply to squad: its questions come with the articles; "
                               "choose them with --split (train, dev or test)", field="queries")
        squad = run_squad_set(data_dir, eval_kb_config(data_dir), split, limit, progress)
        squad["wall_seconds"] = round(time.perf_counter() - started, 1)
        squad["commit"] = commit
        return squad
    folder = set_folder(name, data_dir)
    if name == "rgb":
        rgb = _run_rgb(folder, data_dir, queries, limit, progress)
        rgb["wall_seconds"] = round(time.perf_counter() - started, 1)
        rgb["commit"] = commit
        return rgb
    _, _, counts = SCORERS[name]
    everything = load_queries(name, folder, queries)
    items = [q for q in everything if counts(q)]
    if limit:
        items = items[:limit]
    kb_config = eval_kb_config(data_dir, backend)
    retriever, build = prepare_retriever(name, data_dir, progress, kb_config)
    metrics, latency, by_type = run_retrieval_modes(name, name, retriever, items, progress)
    result: dict[str, Any] = {"set": name, "backend": backend, "queries": len(items), "metrics": metrics,
                              "latency": latency, "kb": build, "anchors": ANCHORS.get(name, {}),
                              "fusion_weights": dict(kb_config.get(name).fusion.weights)}
    if name == "multihop":
        from .multihop_loop import build_loop, run_loop_eval

        routed_queries = everything[:limit] if limit else everything
        loop = build_loop(kb_config.only(name), name)
        routed = run_loop_eval(loop, name, routed_queries, progress)
        metrics["topk"] = dict(metrics["hybrid"])
        metrics["router"] = routed["metrics"]
        latency["topk"] = latency["hybrid"]
        latency["router"] = routed["latency"]
        by_type["topk"] = by_type["hybrid"]
        by_type["router"] = routed["by_type"]
        result["router_queries"] = len(routed_queries)
        result["statuses"] = routed.get("statuses", {})
    if name == "hotpotqa":
        from .hotpotqa_loop import run_hotpotqa_loop

        routed = run_hotpotqa_loop(kb_config.only(name), name, items, progress)
        metrics["router"] = routed["metrics"]
        latency["router"] = routed["latency"]
        by_type["router"] = routed["by_type"]
    if sweep if sweep is not None else not limit and backend == "local":
        result["fusion_sweep"] = fusion_sweep(name, name, retriever, items, progress)
    if by_type:
        result["by_type"] = by_type
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    result["commit"] = commit
    return result


def _run_rgb(folder: Path, data_dir: Path, queries: Path | None, limit: int | None, progress: bool) -> dict[str, Any]:
    from .rgb import build_rgb_kb, build_rgb_loop, load_rgb, rgb_queries, run_rgb_lang

    kb_config = eval_kb_config(data_dir)
    metrics, latency, builds, statuses, examples, rows = {}, {}, {}, {}, {}, {}
    total = 0
    for lang, (path, records) in load_rgb(folder, queries).items():
        corpus = REPO_ROOT / "var" / "eval" / "rgb" / lang / f"{path.stem}.corpus.jsonl"
        builds[lang] = build_rgb_kb(kb_config, lang, records, corpus, progress)  # every passage, even with --limit
        items = rgb_queries(records, lang)[:limit] if limit else rgb_queries(records, lang)
        loop = build_rgb_loop(kb_config, lang)
        scored = run_rgb_lang(loop, lang, items, progress)
        metrics[lang] = scored["metrics"]
        latency[lang] = scored["latency"]
        statuses[lang] = scored["statuses"]
        examples[lang] = scored["examples"]
        rows[lang] = scored["rows"]
        total += len(items)
    return {"set": "rgb", "queries": total, "metrics": metrics, "latency": latency, "kb": builds,
            "statuses": statuses, "examples": examples, "rows": rows, "anchors": {}}


def format_table(result: dict[str, Any]) -> str:
    """A plain-text table of a set's metrics per mode, with the published anchors."""
    modes = list(result["metrics"])
    names: list[str] = []
    for mode in modes:
        names += [n for n in result["metrics"][mode] if n not in names]
    width = max([len(n) for n in names] + [8]) + 2
    backend = f" on the {result['backend']} backend" if result.get("backend", "local") != "local" else ""
    lines = [f"{result['set']}{backend}: {result['queries']} queries, {result.get('wall_seconds', 0):.0f} s wall",
             f"{'mode':<10}" + "".join(f"{n:>{width}}" for n in names) + f"{'median ms':>12}{'p95 ms':>10}"]
    for mode in modes:
        values = result["metrics"][mode]
        total = result["latency"].get(mode, {}).get("total", {})
        cells = "".join(f"{values[n]:>{width}.4f}" if values.get(n) is not None else f"{'-':>{width}}"
                        for n in names)
        lines.append(f"{mode:<10}" + cells
                     + f"{total.get('median_ms', float('nan')):>12.2f}{total.get('p95_ms', float('nan')):>10.2f}")
    for mode, types in result.get("by_type", {}).items():
        for qtype, values in types.items():
            shown = ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in values.items())
            lines.append(f"  {mode:<8} {qtype:<18} {shown}")
    for weights, values in result.get("fusion_sweep", {}).items():
        lines.append(f"  fusion {weights}: " + ", ".join(f"{k} {v:.4f}" for k, v in values.items()))
    for anchor, values in result.get("anchors", {}).items():
        lines.append(f"  anchor {anchor}: " + ", ".join(f"{k} {v}" for k, v in values.items()))
    return "\n".join(lines)


def run_sets(sets: list[str], data_dir: Path | None = None, queries: Path | None = None, limit: int | None = None,
             out_dir: Path | None = None, progress: bool = True, split: str = "dev", backend: str = "local"
             ) -> list[dict[str, Any]]:
    """Evaluate each set; print a table per set when `progress`; write report.json, report.md
    and the plots to out_dir (merged with the sets an earlier run there already wrote)."""
    results = []
    for name in sets:
        result = run_set(name, data_dir, queries, limit, progress, split=split, backend=backend)
        results.append(result)
        if progress:
            print(format_table(result), flush=True)
        if out_dir:
            _write(out_dir, result, limit)
    return results


def _write(out_dir: Path, result: dict[str, Any], limit: int | None) -> None:
    from .report import write_report

    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "report.json"
    previous = []
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
            previous = previous if isinstance(previous, list) else [previous]
        except json.JSONDecodeError:
            previous = []
    result = dict(result, limit=limit)
    merged = [r for r in previous if r.get("set") != result["set"]] + [result]
    merged.sort(key=lambda r: SETS.index(r["set"]) if r.get("set") in SETS else len(SETS))
    path.write_text(json.dumps(merged, indent=2, ensure_ascii=False), encoding="utf-8")
    write_report(merged, out_dir)
