"""Options and the whole run of `sightline bench peers` (see the package docstring for what is compared)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.retrieval.harness import log, set_threads, stats
from core.errors import IndexUnavailable

from .compare import markdown, race, report
from .systems import PEERS, Corpus, QueryEmbeddingOnly, SightlineSystem, System, load_peers, package_version

# set: (chunks each system returns, quality metrics reported; the first ones are the headline)
SET_SPECS: dict[str, tuple[int, tuple[str, ...]]] = {
    # MultiHop-RAG scores the top 10 chunks (hits and MRR on evidence facts, upstream's metrics)
    "multihop": (10, ("mrr@10", "hits@10", "hits@4", "map@10")),
    # SciFact scores documents; 30 chunks give at least 10 distinct abstracts (an abstract is 1-3 chunks)
    "scifact": (30, ("ndcg@10",)),
}
# Each peer arm's depth: what `sightline eval` gives Sightline's arms (evaluation.runner.retrieve).
CANDIDATES = 200
VERSIONED = ("numpy", "faiss-cpu", "onnxruntime", "tokenizers", "txtai", "haystack-ai")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="sightline bench peers",
        description="Sightline's hybrid retrieval side by side with txtai and Haystack on an eval set: same "
                    "chunks, same stored vectors, the query embedding in every system's time, interleaved "
                    "query by query. Prints a Markdown table (or --json).")
    parser.add_argument("--set", dest="set_name", choices=sorted(SET_SPECS), default="multihop")
    parser.add_argument("--data", type=Path, help="folder holding the sets (default ../shared/eval)")
    parser.add_argument("--limit", type=int, help="only the first N scored queries of the set")
    parser.add_argument("--peers", nargs="*", choices=PEERS, default=list(PEERS), help="peers to race (default: all)")
    parser.add_argument("--candidates", type=int, default=CANDIDATES,
                        help=f"Haystack's depth per arm (default {CANDIDATES}, Sightline's)")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--out", type=Path, help="also write the JSON result to this file")
    parser.add_argument("--json", action="store_true", help="print the JSON result on stdout (progress on stderr)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    result = run(args.set_name, data_dir=args.data, limit=args.limit, peers=args.peers,
                 candidates=args.candidates, resamples=args.resamples, seed=args.seed, progress=not args.quiet)
    if args.out:
        args.out.write_text(json.dumps(result, indent=2), encoding="utf-8")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(summary(result))
    return 0


def run(set_name: str, data_dir: Path | None = None, limit: int | None = None, peers: Sequence[str] = PEERS,
        candidates: int = CANDIDATES, resamples: int = 10_000, seed: int = 0, progress: bool = True) -> dict[str, Any]:
    """Load the set and its knowledge base, build the peers, race, score; the JSON result."""
    from evaluation.datasets import DEFAULT_DATA, load_queries, set_folder
    from evaluation.report import commit_state
    from evaluation.runner import SCORERS, prepare_retriever

    started = time.perf_counter()
    load_start = os.getloadavg()
    k, metrics = SET_SPECS[set_name]
    data_dir = data_dir or DEFAULT_DATA
    scorer, _, counts = SCORERS[set_name]
    queries = [q for q in load_queries(set_name, set_folder(set_name, data_dir)) if counts(q)]
    queries = queries[:limit] if limit else queries
    threads = set_threads(1)  # one worker per core: FAISS and BLAS single-threaded, as in serving
    if progress:
        log(f"{set_name}: {len(queries)} queries; opening the eval knowledge base (built if missing)")
    retriever, build = prepare_retriever(set_name, data_dir, progress)
    kb = retriever.kb(set_name)
    if kb.store is None or kb.dense is None or kb.dense.kind != "flat":
        raise IndexUnavailable(f"bench peers compares exact indexes: knowledge base '{set_name}' has a "
                               f"{kb.dense.kind if kb.dense else 'missing'} dense index", field=set_name)
    chunks = list(kb.store.iter_all())
    embedder = retriever.embedder_for(kb)
    corpus = Corpus(texts=[c.indexed_text for c in chunks], vectors=kb.dense.reconstruct(np.arange(len(chunks))),
                    queries=[q.text for q in queries], embed=lambda text: embedder.queries([text])[0])
    sightline = SightlineSystem(retriever, set_name, queries, k, {c.chunk_id: c.row for c in chunks})
    if progress:
        log(f"{len(chunks)} chunks; building the peers: {', '.join(peers) or 'none'}")
    loaded = load_peers(peers, corpus, k, candidates)
    for message in loaded.skipped.values():
        print(f"bench peers: {message}", file=sys.stderr)
    systems: list[System] = [sightline, *loaded.systems]
    result = {"set": set_name, "k": k, "limit": limit,
              **measure(systems, queries, chunks, scorer, metrics, resamples, seed, progress,
                        reference=[QueryEmbeddingOnly(corpus)])}
    if set_name == "scifact":  # nDCG@10 ranks documents: say how often k chunks held fewer than 10
        for s in systems:
            short = sum(len({chunks[r].doc_id for r in rows}) < 10 for rows in s.results.values())
            result["systems"][s.name]["rankings_under_10_documents"] = short
    result.update({
        "skipped": loaded.skipped,
        "embedding": f"every system embeds each query with Sightline's embedder ({embedder.name}, one thread), "
                     "inside its timed call; the corpus vectors are the eval build's stored vectors",
        "corpus": {"chunks": len(chunks), "kb_build": build, "peer_build_seconds": loaded.build_seconds},
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "threads": threads,
                    "load_average_start": [round(x, 2) for x in load_start],
                    "load_average_end": [round(x, 2) for x in os.getloadavg()],
                    "packages": {p: package_version(p) for p in VERSIONED}},
        "commit": commit_state(),
        "wall_seconds": round(time.perf_counter() - started, 1),
    })
    return result


def measure(systems: Sequence[System], queries: Sequence[Any], chunks: Sequence[Any], scorer: Callable,
            metrics: Sequence[str], resamples: int = 10_000, seed: int = 0, progress: bool = False,
            reference: Sequence[System] = ()) -> dict[str, Any]:
    """Race the systems over the queries and score each one's chunk rows with `scorer(chunks, query)`.

    `reference` lanes (the query embedding alone) run in the same race, timed only.

    Returns:
        report()'s figures with "queries", each system's version and settings, and "reference" timings.
    """
    times = race([*systems, *reference], len(queries), progress)
    lanes = {lane.name: stats(times.pop(lane.name)) for lane in reference}
    scores = {s.name: [scorer([chunks[r] for r in s.results[i]], q) for i, q in enumerate(queries)]
              for s in systems}
    out = {"queries": len(queries), **report(times, scores, metrics, resamples, seed),
           "versions": {s.name: s.version for s in systems}, "settings": {s.name: s.settings for s in systems}}
    if lanes:
        out["reference"] = {name: {"median_ms": f["median"], "p95_ms": f["p95"], "mean_ms": f["mean"]}
                            for name, f in lanes.items()}
    return out


def summary(result: dict[str, Any]) -> str:
    """The Markdown table with what it was measured on."""
    _, metrics = SET_SPECS[result["set"]]
    machine = result["machine"]
    lines = [f"{result['set']}: {result['queries']} queries, top {result['k']} chunks, "
             f"{result['corpus']['chunks']} chunks; {result['embedding']}",
             f"load average {machine['load_average_start']} -> {machine['load_average_end']} on {machine['cpus']} "
             f"cores; wall {result['wall_seconds']} s; commit {result['commit']}", "",
             markdown(result, metrics)]
    for name, figures in result.get("reference", {}).items():
        lines.append(f"\n{name} alone (in every system's time above): median {figures['median_ms']:g} ms, "
                     f"p95 {figures['p95_ms']:g} ms")
    targets = result.get("targets", {})
    if targets:
        shown = [f"{name} {t['x']}x (target >= {t['target']}x: {'met' if t['met'] else 'not met'})"
                 if isinstance(t, dict) else f"{name}: {t}" for name, t in targets.items()]
        lines.append("\ntargets: " + "; ".join(shown))
    return "\n".join(lines)
