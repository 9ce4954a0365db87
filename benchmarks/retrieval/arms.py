"""Run control for one corpus size: which systems run, on how much of the grid, and what each reports.

Promises: `bench_size` generates the seeded corpus, queries and vectors for `n` chunks, runs the BM25
arm, then the dense arm, then the memory probes, and returns that size's section of the JSON report
(`corpus`, `bm25`, `dense`, `rss`). Within an arm every system is built with `--build-threads`, then
all are raced at `--threads`; above `--few-peer-queries-above` the slow peers run on less of the grid
(rank_bm25: `--peer-queries` queries once; bm25s: not at all; exact dense scans: at most 2 repeats),
above `--skip-peers-above` rank_bm25 is left out. A skipped system's entry says why (`skipped`).
"""

from __future__ import annotations

import argparse
import gc
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.retrieval.harness import K, Lane, log, race, ratio, set_threads, stats
from benchmarks.retrieval.memory import probe_rss, save_queries
from benchmarks.retrieval.systems import (
    WORKER_EMBEDDER,
    Bm25s,
    NumpyScan,
    OursBM25,
    OursDense,
    RankBM25,
    System,
    bm25_parity,
)
from benchmarks.synthetic import Corpus, CorpusSpec, clustered_vectors, generate_corpus, query_vectors, sample_queries

FAST_EF_CONSTRUCTION = 40  # faiss's own default; used above --fast-hnsw-above


def build_entry(system: System, **grid: int) -> dict[str, Any]:
    """Build `system`; its report entry: build figures, then the grid it runs (if given), then details."""
    return {**system.build(), **grid, **system.details()}


def bench_size(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """Generate a corpus of `n` chunks and benchmark both arms on it."""
    t0 = time.perf_counter()
    corpus = generate_corpus(CorpusSpec(n_chunks=n, seed=args.seed))
    query_ids, query_rows = sample_queries(corpus, args.queries, seed=args.seed)
    gen_s = time.perf_counter() - t0
    query_tokens = [[corpus.words[t] for t in q.tolist()] for q in query_ids]
    out: dict[str, Any] = {
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "corpus": {"chunks": n, "tokens": corpus.n_tokens, "mean_chunk_tokens": round(corpus.n_tokens / n, 1),
                   "distinct_terms": int(np.unique(corpus.term_ids).size), "generate_s": round(gen_s, 2),
                   "query_terms_mean": round(float(np.mean([len(q) for q in query_ids])), 2)},
    }
    few = n > args.few_peer_queries_above
    log(f"  bm25 ({n:,} chunks, {corpus.n_tokens:,} tokens)")
    out["bm25"] = bench_bm25(corpus, query_tokens, args, work / "bm25", few)
    t0 = time.perf_counter()
    vectors, _ = clustered_vectors(n, labels=corpus.topics, seed=args.seed)
    queries = query_vectors(vectors, query_rows, seed=args.seed)
    out["corpus"]["vectors_generate_s"] = round(time.perf_counter() - t0, 2)
    del corpus
    gc.collect()
    log("  dense")
    out["dense"] = bench_dense(vectors, queries, args, work, few)
    del vectors
    gc.collect()
    log("  resident memory (fresh subprocesses)")
    save_queries(work, query_tokens, queries)
    probes: dict[str, dict[str, Any]] = {"bm25": {"bm25": work / "bm25"}, "dense_flat": {"dense": work / "flat"},
              "dense_hnsw": {"dense": work / "hnsw"}}
    if n in args.worker_rss_at:
        # The worker as deployed: the dense index kind the project's threshold picks at this size.
        from orchestration.retrieval.dense import DenseParams

        kind = "hnsw" if n >= DenseParams().hnsw_threshold else "flat"
        probes["worker"] = {"bm25": work / "bm25", "dense": work / kind, "embedder": WORKER_EMBEDDER}
    out["rss"] = {name: probe_rss(spec, work, args.threads) for name, spec in probes.items()}
    return out


def bench_bm25(corpus: Corpus, queries: list[list[str]], args: argparse.Namespace, directory: Path,
               few: bool) -> dict[str, Any]:
    """Build, save, load and time our BM25 index; build and time the peers on the same tokens."""
    set_threads(args.build_threads)
    arrays = corpus.chunk_arrays()
    vocab = corpus.vocab
    ours = OursBM25(arrays, vocab, queries, directory)
    result: dict[str, Any] = {"ours": build_entry(ours)}
    lanes = [Lane(ours, len(queries), args.repeats)]

    n = corpus.n_chunks
    okapi = None
    if n <= args.skip_peers_above:
        okapi = RankBM25(corpus, queries)
        peer_n = min(args.peer_queries, len(queries)) if few else len(queries)
        peer_repeats = 1 if few else args.repeats
        result["rank_bm25"] = build_entry(okapi, queries=peer_n, repeats=peer_repeats)
        lanes.append(Lane(okapi, peer_n, peer_repeats))
    else:
        result["rank_bm25"] = {"skipped": f"more than --skip-peers-above {args.skip_peers_above} chunks"}
    if args.no_bm25s:
        result["bm25s"] = {"skipped": "--no-bm25s"}
    elif few or n > args.skip_peers_above:
        result["bm25s"] = {"skipped": f"its index build loops over documents in Python; "
                                      f"run only up to {args.few_peer_queries_above} chunks"}
    else:
        peer = Bm25s(arrays, vocab, queries, directory.parent / "bm25s")
        result["bm25s"] = build_entry(peer, queries=len(queries), repeats=args.repeats)
        lanes.append(Lane(peer, len(queries), args.repeats))
    del arrays
    set_threads(args.threads)
    timings = race(lanes, args.repeats)
    for name, ms in timings.items():
        result[name]["latency_ms"] = stats(ms)
        if name != "ours":
            result[name]["speedup_ours"] = ratio(ms, timings["ours"])
    if okapi is not None:
        result["parity"] = bm25_parity(ours, okapi, queries[:result["rank_bm25"]["queries"]])
    return result


def bench_dense(vectors: np.ndarray, queries: np.ndarray, args: argparse.Namespace, work: Path,
                few: bool) -> dict[str, Any]:
    """Build, save, load and time our flat and HNSW indexes against a numpy scan."""
    from orchestration.retrieval.dense import DenseParams

    n = vectors.shape[0]
    ef_c = args.ef_construction or DenseParams().ef_construction
    if n > args.fast_hnsw_above:
        ef_c = min(ef_c, FAST_EF_CONSTRUCTION)
    ours = {"flat": OursDense("flat", DenseParams(hnsw_threshold=n + 1), vectors, queries, work / "flat"),
            "hnsw": OursDense("hnsw", DenseParams(hnsw_threshold=0, ef_construction=ef_c), vectors, queries,
                              work / "hnsw")}
    result: dict[str, Any] = {}
    set_threads(args.build_threads)
    for kind, system in ours.items():
        log(f"    build {kind}")
        result[system.name] = build_entry(system)
    scan = NumpyScan(vectors, queries)
    result[scan.name] = build_entry(scan)

    exact_repeats = min(args.repeats, 2) if few else args.repeats
    nq = queries.shape[0]
    lanes = [Lane(ours["hnsw"], nq, args.repeats), Lane(ours["flat"], nq, exact_repeats),
             Lane(scan, nq, exact_repeats)]
    set_threads(args.threads)
    timings = race(lanes, args.repeats)
    for name, ms in timings.items():
        result[name]["latency_ms"] = stats(ms)
        result[name]["runs"] = int(np.isfinite(ms).sum())
    result["speedup_vs_numpy"] = {name: ratio(timings["numpy"], timings[name]) for name in ("ours_flat", "ours_hnsw")}
    exact = [scan.search(i) for i in range(nq)]
    for system in ours.values():
        found = [system.search(i)[0][0] for i in range(nq)]
        result[system.name]["recall_at_10"] = round(float(np.mean(
            [len(set(f.tolist()) & set(e.tolist())) / K for f, e in zip(found, exact, strict=True)])), 4)
    return result
