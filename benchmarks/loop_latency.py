"""The agents loop's latency per stage over MultiHop-RAG dev queries, with a results check.

    python -m benchmarks.loop_latency [--data DIR] [--every 4] [--passes 3] [--cold] [--history N] [--json]
                                      [--save RUN.json] [--compare RUN.json] [--out FIGURES.json]

Runs `AnswerLoop.run` (the code path of POST /rag, retries included) with the MultiHop-RAG
router config over a deterministic subset of the dev queries (every `--every`-th, file order)
and prints the median and p95 milliseconds of each stage (perceive, route, retrieve, compose,
validate) and of the whole run. The eval knowledge base is built once through the normal
ingest (evaluation/builds.py, var/eval/kb/multihop) and reused while nothing changed.

Every pass after the first untimed warm-up pass is timed; a query's figure is its median
over the passes, and the table's median and p95 are over queries. The machine may be shared:
the load average before and after is printed; compare runs interleaved and read ratios.
The timed passes reuse the query vectors the warm-up pass embedded (the retriever's cache, as
for a repeated question); `--cold` empties that cache before every query to time embedding too.

Every timed pass starts with the text memos empty (`forget_text_caches`: the product's
memoised text functions and the chunk stores' row caches), then, untimed, answers the
history: as many *other* dev queries (the ones halfway between the subset's, never a timed
one) as the subset holds. So a timed pass finds in the memos what serving other questions on
the same corpus left there, as a worker that has been up a while does, and never the very
sentences the warm-up pass read for the same question. `--history 0` times a fresh worker
(text memos empty at the start of each pass).

`--save` stores what each query produced (status, answer, each attempt's evidence ids);
`--compare` checks a run against a stored one and exits 1 on any difference, so a speed
change that alters results is caught by the benchmark itself.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

STAGES = ("perceive", "route", "retrieve", "compose", "validate", "total")
# the run's CPU time in this thread: less sensitive than wall time to other jobs on the machine
COLUMNS = (*STAGES, "total_cpu")


def _load() -> str:
    """The 1/5/15-minute load averages as text."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _fingerprint(body: dict[str, Any]) -> dict[str, Any]:
    """What a run must reproduce: status, answer, citations and each attempt's evidence."""
    return {"status": body["status"], "answer": body["answer"],
            "citations": [c["chunk_id"] for c in body["citations"]],
            "attempts": [a["evidence"] for a in body["attempts"]]}


TEXT_MEMO_MIN_SIZE = 1024  # smaller lru caches hold loaded models and compiled config, not texts
PRODUCT_PACKAGES = ("core", "orchestration", "perception", "validation", "server")
# memos keyed by one word: bounded by the vocabulary, so a serving worker has them warm
WORD_MEMOS = {"orchestration.retrieval.tokenize._english_word_tokens", "orchestration.retrieval.tokenize.is_code",
              "orchestration.focus._term_kind"}


def forget_text_caches(loop: Any) -> int:
    """Empty the product's text memos and the chunk stores' row caches; how many memos were emptied.

    A text memo is an lru cache of TEXT_MEMO_MIN_SIZE+ entries on a function of the product's
    packages; the smaller ones (the spaCy pipeline, jieba, compiled lexicons) stay loaded, and
    so do the WORD_MEMOS (one word -> its tokens or kind), warm in any worker that has served.
    """
    memos = {}
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in PRODUCT_PACKAGES:
            continue
        for value in list(vars(module).values()):
            info = getattr(value, "cache_info", None)
            named = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
            if callable(info) and (info().maxsize or 0) >= TEXT_MEMO_MIN_SIZE and named not in WORD_MEMOS:
                memos[id(value)] = value
    for memo in memos.values():
        memo.cache_clear()
    for kb in loop.retriever.knowledge_bases.values():
        forget = getattr(kb.store, "forget", None)  # absent before the store kept rows (side-by-side runs)
        if forget is not None:
            forget()
    return len(memos)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank q-quantile (as evaluation.stats.percentile)."""
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def run(data: Path | None, every: int, passes: int, limit: int | None, progress: bool, build: bool = True,
        cold: bool = False, history: int | None = None) -> dict[str, Any]:
    """Build or reuse the KB, run the subset `passes` times (+1 warm-up); figures and results.

    `history` other dev queries are answered untimed before each timed pass, after the text
    memos are emptied (None: as many as the subset holds; 0: none, a fresh worker).

    `build=False` opens the KB's current build as it is (no checksum of inputs and pipeline
    code), so code versions compared side by side serve the very same build. `cold` empties the
    query-vector cache before every query, so each run embeds its task queries (without it the
    timed passes reuse the vectors the warm-up pass embedded, as a service does for repeats).
    """
    from evaluation.builds import build_eval_kb
    from evaluation.datasets import load_queries, set_folder
    from evaluation.multihop_loop import _query_date, build_loop
    from evaluation.runner import eval_kb_config
    from server.context import RequestContext
    from server.loop import AskRequest

    folder = set_folder("multihop", data)
    config = eval_kb_config(folder.parent).only("multihop")
    built = build_eval_kb(config, "multihop", progress=progress) if build else {"chunks": None}
    everything = load_queries("multihop", folder)
    queries = everything[::every][:limit]
    others = everything[max(every // 2, 1)::every] if every > 1 else []
    others = [q for q in others if q.id not in {t.id for t in queries}][:len(queries) if history is None else history]
    started = time.perf_counter()
    loop = build_loop(config, "multihop")
    load_s = time.perf_counter() - started
    requests = [AskRequest(query=q.text, context=RequestContext.create(_query_date(q), trace_level="summary"))
                for q in queries]
    served_before = [AskRequest(query=q.text, context=RequestContext.create(_query_date(q), trace_level="none"))
                     for q in others]
    per_query: list[dict[str, list[float]]] = [{s: [] for s in COLUMNS} for _ in queries]
    results: dict[str, Any] = {}
    load_before = _load()
    for number in range(passes + 1):
        if number:
            forget_text_caches(loop)
            for request in served_before:
                loop.run(request)
        gc.collect()
        for i, (query, request) in enumerate(zip(queries, requests, strict=True)):
            if cold:
                loop.retriever.forget_vectors()
            cpu = time.thread_time()
            body = loop.run(request)
            cpu = (time.thread_time() - cpu) * 1000
            if number == 0:
                results[query.id] = _fingerprint(body)
                continue
            for stage in STAGES:
                per_query[i][stage].append(body["timing"][stage])
            per_query[i]["total_cpu"].append(cpu)
        if progress:
            print(f"pass {number}{' (warm-up)' if number == 0 else ''} done, load {_load()}", file=sys.stderr)
    medians = {s: [statistics.median(q[s]) for q in per_query] for s in COLUMNS}
    figures = {s: {"median_ms": round(statistics.median(v), 2), "p95_ms": round(percentile(v, 0.95), 2),
                   "mean_ms": round(statistics.fmean(v), 2)} for s, v in medians.items()}
    return {"queries": len(queries), "every": every, "passes": passes, "cold_vectors": cold,
            "history": len(served_before), "load_before": load_before,
            "load_after": _load(), "loop_load_s": round(load_s, 2), "kb_chunks": built["chunks"],
            "stages": figures, "results": results}


def compare(results: dict[str, Any], stored: dict[str, Any]) -> list[str]:
    """Query ids whose results differ from the stored run's (or are missing from either)."""
    return sorted(q for q in set(results) | set(stored) if results.get(q) != stored.get(q))


def table(figures: dict[str, Any]) -> str:
    """The per-stage figures as a Markdown table."""
    lines = ["| stage | median ms | p95 ms | mean ms |", "|---|---:|---:|---:|"]
    for stage, f in figures["stages"].items():
        lines.append(f"| {stage} | {f['median_ms']} | {f['p95_ms']} | {f['mean_ms']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.loop_latency", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="the folder holding multihop_rag/ (../shared/eval)")
    parser.add_argument("--every", type=int, default=4, help="take every N-th dev query (file order)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many queries of the subset")
    parser.add_argument("--passes", type=int, default=3, help="timed passes after one warm-up pass")
    parser.add_argument("--no-build", action="store_true",
                        help="serve the KB's current build as it is (no ingest check); it must exist")
    parser.add_argument("--cold", action="store_true",
                        help="empty the query-vector cache before each query (time the query embedding too)")
    parser.add_argument("--history", type=int, default=None,
                        help="other dev queries answered untimed before each timed pass, after the text memos "
                             "are emptied (default: as many as the subset; 0: time a fresh worker)")
    parser.add_argument("--save", type=Path, help="store each query's results here")
    parser.add_argument("--compare", type=Path, help="fail when results differ from this stored run")
    parser.add_argument("--out", type=Path, help="write the figures (without results) as JSON here")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    figures = run(args.data, args.every, args.passes, args.limit, not args.quiet, build=not args.no_build,
                  cold=args.cold, history=args.history)
    results = figures.pop("results")
    status = 0
    if args.save:
        args.save.write_text(json.dumps(results, ensure_ascii=False, indent=0), encoding="utf-8")
    if args.compare:
        differ = compare(results, json.loads(args.compare.read_text(encoding="utf-8")))
        figures["results_differ"] = differ
        if differ:
            print(f"results differ from {args.compare} on {len(differ)} queries: {differ[:10]}", file=sys.stderr)
            status = 1
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"{figures['queries']} queries (every {args.every}th dev query), {args.passes} passes, "
              f"{figures['history']} other queries answered before each; "
              f"load {figures['load_before']} -> {figures['load_after']}")
        print(table(figures))
    return status


if __name__ == "__main__":
    sys.exit(main())
