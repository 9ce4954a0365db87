"""`sightline bench`: our BM25 and dense indexes side by side with their peers, on synthetic corpora.

Everything runs in one process and is interleaved query by query (each query goes to every
system in rotating order), so drift hits all systems alike. Latencies are per single query,
top-10, on the indexes as a worker sees them: saved, then loaded from disk (memory-mapped, warm
page cache). Medians and p95 are over every (repeat, query) timing. Resident memory is measured
in a fresh subprocess that only loads the saved index and runs the queries.

Peers: `rank_bm25.BM25Okapi` (same tokens; its scores are our oracle) and `bm25s` for BM25;
a plain numpy scan (`vectors @ q` + argpartition) over the same vectors for the dense arm.

Usage:
    sightline bench --sizes 10000 100000 1000000 --out bench.json
    python -m benchmarks.retrieval --sizes 2000 --queries 5 --repeats 2
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from benchmarks.synthetic import Corpus, CorpusSpec, clustered_vectors, generate_corpus, query_vectors, sample_queries

K = 10
MB = 1024 * 1024
WORKER_EMBEDDER = "minilm"
FAST_EF_CONSTRUCTION = 40  # faiss's own default; used above --fast-hnsw-above


# --- command line ----------------------------------------------------------------------

def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The benchmark's options (see --help)."""
    parser = argparse.ArgumentParser(
        prog="sightline bench",
        description="Retrieval benchmark: our BM25 and dense indexes against rank_bm25, bm25s and a numpy scan.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000],
                        help="corpus sizes in chunks (default: 10000 100000 1000000)")
    parser.add_argument("--queries", type=int, default=50, help="queries per size (default 50)")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes over the queries (default 5)")
    parser.add_argument("--out", type=Path, default=None, help="write the full results as JSON here")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--threads", type=int, default=1,
                        help="FAISS/BLAS/torch threads while querying: one per worker (default 1)")
    parser.add_argument("--build-threads", type=int, default=os.cpu_count() or 1,
                        help="threads for index builds and the embedding throughput (default: all cores)")
    parser.add_argument("--skip-peers-above", type=int, default=1_000_000,
                        help="above this many chunks, rank_bm25 is not run at all (default 1000000)")
    parser.add_argument("--few-peer-queries-above", type=int, default=100_000,
                        help="above this many chunks, rank_bm25 runs only --peer-queries queries once "
                             "(it scores every chunk in Python) and bm25s is skipped (its build is "
                             "per-document Python); the exact dense scans run at most 2 repeats (default 100000)")
    parser.add_argument("--peer-queries", type=int, default=5, help="queries for the slow peer above that size")
    parser.add_argument("--no-bm25s", action="store_true", help="leave bm25s out")
    parser.add_argument("--ef-construction", type=int, default=None,
                        help="HNSW efConstruction (default: the project's DenseParams default)")
    parser.add_argument("--fast-hnsw-above", type=int, default=100_000,
                        help=f"above this many chunks build HNSW with efConstruction={FAST_EF_CONSTRUCTION}: "
                             "the project default is measured at ~350 vectors/s here (default 100000)")
    parser.add_argument("--worker-rss-at", type=int, nargs="*", default=[100_000],
                        help="sizes at which a subprocess loads both indexes and the embedder (default 100000)")
    parser.add_argument("--embed-chunks", type=int, default=512,
                        help="200-word chunks encoded for the embedding throughput; 0 skips it (default 512)")
    parser.add_argument("--workdir", type=Path, default=None, help="where indexes are written (default: a temp dir)")
    args = parser.parse_args(list(argv) if argv is not None else None)
    for name in ("queries", "repeats", "threads", "build_threads", "peer_queries"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive, got {getattr(args, name)}")
    if any(n < 2 * K for n in args.sizes):
        parser.error(f"every size must be at least {2 * K} chunks, got {args.sizes}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print a Markdown summary and write the JSON report.

    Args:
        argv: command-line arguments without the program name (None: sys.argv).

    Returns:
        The process exit code.
    """
    args = _parse(argv)
    threads = _pin_threads(args.threads)
    threads["build"] = args.build_threads
    report: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "machine": _machine(),
        "threads": threads,
        "settings": {"sizes": args.sizes, "queries": args.queries, "repeats": args.repeats, "k": K,
                     "seed": args.seed, "skip_peers_above": args.skip_peers_above,
                     "few_peer_queries_above": args.few_peer_queries_above,
                     "peer_queries": args.peer_queries, "fast_hnsw_above": args.fast_hnsw_above},
        "sizes": {},
        "tokenize": None,
        "embedding": None,
    }
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="sightline-bench-", dir=args.workdir) as work:
        for n in args.sizes:
            _log(f"size {n:,}")
            report["sizes"][str(n)] = _bench_size(n, args, Path(work) / str(n))
            _write(report, args.out)
            gc.collect()
    _log("tokeniser throughput")
    report["tokenize"] = _bench_tokenize(args.seed)
    if args.embed_chunks:
        _log("embedding throughput")
        report["embedding"] = _bench_embedding(args.embed_chunks, args.build_threads, args.threads, args.seed)
    report["total_s"] = round(time.perf_counter() - started, 1)
    report["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    _write(report, args.out)
    print(render_markdown(report))
    return 0


# --- one corpus size -------------------------------------------------------------------

def _bench_size(n: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
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
    _log(f"  bm25 ({n:,} chunks, {corpus.n_tokens:,} tokens)")
    out["bm25"] = _bench_bm25(corpus, query_tokens, args, work / "bm25", few)
    t0 = time.perf_counter()
    vectors, _ = clustered_vectors(n, labels=corpus.topics, seed=args.seed)
    queries = query_vectors(vectors, query_rows, seed=args.seed)
    out["corpus"]["vectors_generate_s"] = round(time.perf_counter() - t0, 2)
    del corpus
    gc.collect()
    _log("  dense")
    out["dense"] = _bench_dense(vectors, queries, args, work, few)
    del vectors
    gc.collect()
    _log("  resident memory (fresh subprocesses)")
    np.save(work / "query_vectors.npy", queries)
    (work / "query_tokens.json").write_text(json.dumps(query_tokens), encoding="utf-8")
    probes = {"bm25": {"bm25": work / "bm25"}, "dense_flat": {"dense": work / "flat"},
              "dense_hnsw": {"dense": work / "hnsw"}}
    if n in args.worker_rss_at:
        # The worker as deployed: the dense index kind the project's threshold picks at this size.
        from orchestration.retrieval.dense import DenseParams

        kind = "hnsw" if n >= DenseParams().hnsw_threshold else "flat"
        probes["worker"] = {"bm25": work / "bm25", "dense": work / kind, "embedder": WORKER_EMBEDDER}
    out["rss"] = {name: _probe_rss(spec, work, args.threads) for name, spec in probes.items()}
    return out


def _bench_bm25(corpus: Corpus, queries: list[list[str]], args: argparse.Namespace, directory: Path,
                few: bool) -> dict[str, Any]:
    """Build, save, load and time our BM25 index; build and time the peers on the same tokens."""
    from orchestration.retrieval.bm25 import BM25Index

    _set_threads(args.build_threads)
    arrays = corpus.chunk_arrays()
    vocab = corpus.vocab
    built, build_s, rss_growth = _timed_build(functools.partial(BM25Index.build_from_term_ids, arrays, vocab))
    built.save(directory)
    stats = dict(built.stats)
    del built
    gc.collect()
    ours = BM25Index.load(directory)
    result: dict[str, Any] = {"ours": {"build_s": round(build_s, 2), "build_rss_growth_mb": rss_growth,
                                       "disk_mb": _disk_mb(directory), "postings": stats["n_postings"]}}
    systems = [_System("ours", lambda i: ours.search(queries[i], K), len(queries), args.repeats)]

    n = corpus.n_chunks
    okapi = None
    if n <= args.skip_peers_above:
        from rank_bm25 import BM25Okapi

        token_lists = corpus.token_lists()
        okapi, build_s, rss_growth = _timed_build(lambda: BM25Okapi(token_lists))
        del token_lists
        peer_n = min(args.peer_queries, len(queries)) if few else len(queries)
        result["rank_bm25"] = {"build_s": round(build_s, 2), "build_rss_growth_mb": rss_growth, "disk_mb": None,
                               "queries": peer_n, "repeats": 1 if few else args.repeats}
        systems.append(_System("rank_bm25", lambda i: _top_k_of(okapi.get_scores(queries[i])), peer_n,
                               1 if few else args.repeats))
    else:
        result["rank_bm25"] = {"skipped": f"more than --skip-peers-above {args.skip_peers_above} chunks"}
    if args.no_bm25s:
        result["bm25s"] = {"skipped": "--no-bm25s"}
    elif few or n > args.skip_peers_above:
        result["bm25s"] = {"skipped": f"its index build loops over documents in Python; "
                                      f"run only up to {args.few_peer_queries_above} chunks"}
    else:
        import bm25s

        id_lists = [a.tolist() for a in arrays]
        retriever = bm25s.BM25()
        _, build_s, rss_growth = _timed_build(
            lambda: retriever.index((id_lists, vocab), show_progress=False))
        del id_lists
        retriever.save(str(directory.parent / "bm25s"))
        result["bm25s"] = {"build_s": round(build_s, 2), "build_rss_growth_mb": rss_growth,
                           "disk_mb": _disk_mb(directory.parent / "bm25s"), "queries": len(queries),
                           "repeats": args.repeats, "method": retriever.method}
        systems.append(_System("bm25s", lambda i: retriever.retrieve(
            [queries[i]], k=K, show_progress=False, n_threads=1), len(queries), args.repeats))
    del arrays
    _set_threads(args.threads)
    timings = _race(systems, args.repeats)
    for name, ms in timings.items():
        result[name]["latency_ms"] = _stats(ms)
        if name != "ours":
            result[name]["speedup_ours"] = _ratio(ms, timings["ours"])
    if okapi is not None:
        result["parity"] = _bm25_parity(ours, okapi, queries[:result["rank_bm25"]["queries"]])
    return result


def _bench_dense(vectors: np.ndarray, queries: np.ndarray, args: argparse.Namespace, work: Path,
                 few: bool) -> dict[str, Any]:
    """Build, save, load and time our flat and HNSW indexes against a numpy scan."""
    from orchestration.retrieval.dense import DenseIndex, DenseParams

    n = vectors.shape[0]
    default = DenseParams()
    ef_c = args.ef_construction or default.ef_construction
    if n > args.fast_hnsw_above:
        ef_c = min(ef_c, FAST_EF_CONSTRUCTION)
    variants = {"flat": DenseParams(hnsw_threshold=n + 1),
                "hnsw": DenseParams(hnsw_threshold=0, ef_construction=ef_c)}
    result: dict[str, Any] = {}
    loaded = {}
    _set_threads(args.build_threads)
    for kind, params in variants.items():
        _log(f"    build {kind}")
        built, build_s, rss_growth = _timed_build(functools.partial(DenseIndex.build, vectors, params))
        built.save(work / kind)
        del built
        gc.collect()
        loaded[kind] = DenseIndex.load(work / kind)
        result[f"ours_{kind}"] = {"build_s": round(build_s, 2), "build_rss_growth_mb": rss_growth,
                                  "disk_mb": _disk_mb(work / kind), "kind": loaded[kind].kind}
    result["ours_hnsw"].update({"m": default.hnsw_m, "ef_construction": ef_c, "ef_search": default.ef_search})
    result["numpy"] = {"build_s": 0.0, "disk_mb": round(vectors.nbytes / MB, 1)}

    def scan(i: int) -> np.ndarray:
        scores = vectors @ queries[i]
        part = np.argpartition(-scores, K)[:K]
        return part[np.argsort(-scores[part], kind="stable")]

    exact_repeats = min(args.repeats, 2) if few else args.repeats
    nq = queries.shape[0]
    systems = [_System("ours_hnsw", lambda i: loaded["hnsw"].search(queries[i:i + 1], K), nq, args.repeats),
               _System("ours_flat", lambda i: loaded["flat"].search(queries[i:i + 1], K), nq, exact_repeats),
               _System("numpy", scan, nq, exact_repeats)]
    _set_threads(args.threads)
    timings = _race(systems, args.repeats)
    for name, ms in timings.items():
        result[name]["latency_ms"] = _stats(ms)
        result[name]["runs"] = int(np.isfinite(ms).sum())
    result["speedup_vs_numpy"] = {name: _ratio(timings["numpy"], timings[name]) for name in ("ours_flat", "ours_hnsw")}
    exact = [scan(i) for i in range(nq)]
    for kind in variants:
        found = [loaded[kind].search(queries[i:i + 1], K)[0][0] for i in range(nq)]
        result[f"ours_{kind}"]["recall_at_10"] = round(float(np.mean(
            [len(set(f.tolist()) & set(e.tolist())) / K for f, e in zip(found, exact, strict=True)])), 4)
    return result


# --- tokeniser and embedder ------------------------------------------------------------

def _bench_tokenize(seed: int, n_chunks: int = 2000) -> dict[str, Any]:
    """Tokeniser throughput on rendered synthetic chunks (why big corpora are generated as ids)."""
    from orchestration.retrieval.tokenize import tokenize

    corpus = generate_corpus(CorpusSpec(n_chunks=n_chunks, seed=seed, vocab_size=50_000))
    texts = [corpus.chunk_text(i) for i in range(n_chunks)]
    t0 = time.perf_counter()
    tokens = [tokenize(t) for t in texts]
    elapsed = time.perf_counter() - t0
    same = all(tok == corpus.chunk_tokens(i) for i, tok in enumerate(tokens))
    per_s = corpus.n_tokens / elapsed
    return {"chunks": n_chunks, "tokens_per_s": round(per_s), "chunks_per_s": round(n_chunks / elapsed),
            "minutes_for_1m_chunks": round(1_000_000 * corpus.n_tokens / n_chunks / per_s / 60, 1),
            "round_trip_exact": same}


def _bench_embedding(n_chunks: int, threads: int, query_threads: int, seed: int) -> dict[str, Any]:
    """MiniLM throughput on 200-word chunks (at `threads`) and single-query latency (at `query_threads`)."""
    import torch

    from orchestration.retrieval.embedder import get_embedder

    corpus = generate_corpus(CorpusSpec(n_chunks=n_chunks, seed=seed, vocab_size=50_000,
                                        min_len=200, max_len=200))
    texts = [corpus.chunk_text(i) for i in range(n_chunks)]
    embedder = get_embedder(WORKER_EMBEDDER)
    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    embedder.warm_up()
    load_s = time.perf_counter() - t0
    model = embedder._model  # the SentenceTransformer, for its tokenizer and sequence cap
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # the uncapped lengths below exceed the model's cap on purpose
    pieces = [len(ids) for ids in model.tokenizer(texts[:64])["input_ids"]]
    embedder.encode(texts[:32])  # warm-up
    t0 = time.perf_counter()
    vectors = embedder.encode(texts, batch_size=32)
    encode_s = time.perf_counter() - t0
    torch.set_num_threads(query_threads)
    query = " ".join(corpus.chunk_tokens(0)[:6])
    embedder.encode([query])
    query_ms = []
    for _ in range(30):
        t1 = time.perf_counter()
        embedder.encode([query])
        query_ms.append((time.perf_counter() - t1) * 1000)
    chunks_per_s = n_chunks / encode_s
    return {"model": embedder.name, "chunks": n_chunks, "words_per_chunk": 200,
            "wordpieces_mean": round(float(np.mean(pieces)), 1), "max_seq_length": model.max_seq_length,
            "threads": threads, "load_s": round(load_s, 2), "chunks_per_s": round(chunks_per_s, 1),
            "hours_for_1m_chunks": round(1_000_000 / chunks_per_s / 3600, 1),
            "query_ms_median": round(float(np.median(query_ms)), 2), "query_threads": query_threads,
            "dim": int(vectors.shape[1])}


# --- timing ----------------------------------------------------------------------------

@dataclass
class _System:
    """One contender: a callable taking a query index, and how much of the grid it runs."""

    name: str
    run: Callable[[int], Any]
    n_queries: int
    repeats: int


def _race(systems: list[_System], repeats: int) -> dict[str, np.ndarray]:
    """Time every system on every query, interleaved, rotating who goes first.

    Returns:
        Milliseconds per system, shape (repeats, queries); NaN where a system did not run.
    """
    n_queries = max(s.n_queries for s in systems)
    times = {s.name: np.full((repeats, n_queries), np.nan) for s in systems}
    for s in systems:  # warm-up: first-call costs (page faults, lazy imports) are not timed
        s.run(0)
    gc.collect()
    gc.disable()
    try:
        for r in range(repeats):
            for q in range(n_queries):
                shift = (r + q) % len(systems)
                for s in systems[shift:] + systems[:shift]:
                    if q < s.n_queries and r < s.repeats:
                        t0 = time.perf_counter_ns()
                        s.run(q)
                        times[s.name][r, q] = (time.perf_counter_ns() - t0) / 1e6
    finally:
        gc.enable()
    return times


def _stats(ms: np.ndarray) -> dict[str, float]:
    """Median, p95 and mean of the timings that ran."""
    ran = ms[np.isfinite(ms)]
    return {"median": _round(np.median(ran)), "p95": _round(np.percentile(ran, 95)),
            "mean": _round(ran.mean()), "n": int(ran.size)}


def _ratio(peer: np.ndarray, ours: np.ndarray) -> float:
    """Median peer time over our median time, on the (repeat, query) cells both ran."""
    both = np.isfinite(peer) & np.isfinite(ours)
    return _round(np.median(peer[both]) / np.median(ours[both]))


def _round(x: float) -> float:
    """Three significant digits, enough for a table."""
    return float(f"{float(x):.3g}")


def _timed_build(build: Callable[[], Any]) -> tuple[Any, float, float]:
    """Run `build`; return its result, the seconds it took and the growth of this process's RSS in MB."""
    gc.collect()
    before = psutil.Process().memory_info().rss
    t0 = time.perf_counter()
    built = build()
    elapsed = time.perf_counter() - t0
    return built, elapsed, round((psutil.Process().memory_info().rss - before) / MB, 1)


def _top_k_of(scores: np.ndarray) -> np.ndarray:
    """Top-K positions of a full score array, best first (what a caller of rank_bm25 must do)."""
    part = np.argpartition(-scores, K)[:K]
    return part[np.argsort(-scores[part], kind="stable")]


def _bm25_parity(ours: Any, okapi: Any, queries: list[list[str]]) -> dict[str, float]:
    """Largest score difference and top-10 agreement between our index and BM25Okapi."""
    diffs, overlap = [], []
    for tokens in queries:
        a, b = ours.get_scores(tokens), okapi.get_scores(tokens)
        diffs.append(float(np.max(np.abs(a - b))))
        overlap.append(len(set(_top_k_of(a).tolist()) & set(_top_k_of(b).tolist())) / K)
    return {"max_abs_score_diff": float(f"{max(diffs):.3g}"), "top10_overlap": round(float(np.mean(overlap)), 4),
            "queries": len(queries)}


# --- threads, disk, memory -------------------------------------------------------------

def _pin_threads(n: int) -> dict[str, Any]:
    """Pin FAISS (OpenMP), BLAS and torch to `n` threads; return what was set."""
    out: dict[str, Any] = {"query": n}
    out.update(_set_threads(n))
    return out


def _set_threads(n: int) -> dict[str, Any]:
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


def _disk_mb(directory: Path) -> float:
    """Total size of the files under `directory` in MB."""
    return round(sum(p.stat().st_size for p in directory.rglob("*") if p.is_file()) / MB, 1)


def _probe_rss(spec: dict[str, Any], work: Path, threads: int) -> dict[str, Any]:
    """Load saved indexes (and optionally the embedder) in a fresh Python and report its memory."""
    payload = {key: str(value) for key, value in spec.items()}
    payload.update({"query_vectors": str(work / "query_vectors.npy"),
                    "query_tokens": str(work / "query_tokens.json"), "threads": threads})
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    code = "import sys; from benchmarks.retrieval import _probe_main; sys.exit(_probe_main(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", code, json.dumps(payload)], capture_output=True, text=True,
                          env=env, check=False, timeout=600)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _probe_main(payload: str) -> int:
    """Subprocess side of `_probe_rss`: import, load, query, and print memory figures as JSON."""
    spec = json.loads(payload)
    import faiss

    from orchestration.retrieval.bm25 import BM25Index
    from orchestration.retrieval.dense import DenseIndex

    faiss.omp_set_num_threads(spec["threads"])
    proc = psutil.Process()
    gc.collect()
    base = proc.memory_info().rss
    out: dict[str, Any] = {"imports_mb": round(base / MB, 1)}
    t0 = time.perf_counter()
    bm25 = BM25Index.load(Path(spec["bm25"])) if spec.get("bm25") else None
    dense = DenseIndex.load(Path(spec["dense"])) if spec.get("dense") else None
    embedder = None
    if spec.get("embedder"):
        from orchestration.retrieval.embedder import get_embedder

        embedder = get_embedder(spec["embedder"], threads=spec["threads"])
        embedder.warm_up()
    out["load_s"] = round(time.perf_counter() - t0, 2)
    out["after_load_mb"] = round(proc.memory_info().rss / MB, 1)
    tokens = json.loads(Path(spec["query_tokens"]).read_text(encoding="utf-8"))
    vectors = np.load(spec["query_vectors"])
    for i, query in enumerate(tokens):
        if bm25 is not None:
            bm25.search(query, K)
        if dense is not None:
            vector = embedder.encode([" ".join(query)]) if embedder is not None else vectors[i:i + 1]
            dense.search(vector, K)
    full = proc.memory_full_info()
    out.update({"after_queries_mb": round(full.rss / MB, 1), "uss_mb": round(full.uss / MB, 1),
                "pss_mb": round(getattr(full, "pss", 0) / MB, 1), "queries": len(tokens),
                "index_mb": round((full.rss - base) / MB, 1)})
    print(json.dumps(out))
    return 0


# --- report ----------------------------------------------------------------------------

def _machine() -> dict[str, Any]:
    """CPU, memory and library versions of this run."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for package in ("numpy", "scipy", "faiss-cpu", "rank-bm25", "bm25s", "torch", "sentence-transformers"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 1024 ** 3, 1),
            "python": platform.python_version(), "os": platform.platform(), "versions": versions}


def _write(report: dict[str, Any], path: Path | None) -> None:
    """Write the report as JSON (after every size, so a long run leaves partial results)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2), encoding="utf-8")


def _log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _cell(entry: dict[str, Any] | None, *keys: str) -> str:
    """A nested value for the table, or a dash."""
    value: Any = entry
    for key in keys:
        if not isinstance(value, dict) or key not in value or value[key] is None:
            return "-"
        value = value[key]
    return f"{value:g}" if isinstance(value, float) else str(value)


def render_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown tables (what docs/BENCHMARKS.md shows)."""
    lines = ["| chunks | system | median ms | p95 ms | speed-up (ours) | build s | disk MB "
             "| RSS after load+queries MB | recall@10 |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for size, entry in report["sizes"].items():
        bm25, dense, rss = entry["bm25"], entry["dense"], entry.get("rss", {})
        rows = [("BM25 ours", bm25.get("ours"), None, rss.get("bm25")),
                ("BM25 rank_bm25", bm25.get("rank_bm25"), "speedup_ours", None),
                ("BM25 bm25s", bm25.get("bm25s"), "speedup_ours", None),
                ("dense ours HNSW", dense.get("ours_hnsw"), None, rss.get("dense_hnsw")),
                ("dense ours flat", dense.get("ours_flat"), None, rss.get("dense_flat")),
                ("dense numpy scan", dense.get("numpy"), None, None)]
        for label, e, speed_key, probe in rows:
            if e is None or "skipped" in e:
                lines.append(f"| {int(size):,} | {label} | skipped | | | | | | |")
                continue
            if speed_key:
                speed = _cell(e, speed_key) + "x"
            elif label.startswith("dense ours"):
                speed = _cell(dense, "speedup_vs_numpy", "ours_" + label.split()[-1].lower()) + "x vs numpy"
            else:
                speed = ""
            note = f" ({e['queries']} q x {e['repeats']})" if "queries" in e and "rank_bm25" in label else ""
            lines.append(f"| {int(size):,} | {label}{note} | {_cell(e, 'latency_ms', 'median')} | "
                         f"{_cell(e, 'latency_ms', 'p95')} | {speed} | {_cell(e, 'build_s')} | {_cell(e, 'disk_mb')} | "
                         f"{_cell(probe, 'after_queries_mb')} | {_cell(e, 'recall_at_10')} |")
        worker = rss.get("worker")
        if worker:
            lines.append(f"| {int(size):,} | worker (BM25 + dense + MiniLM) | | | | | | "
                         f"{_cell(worker, 'after_queries_mb')} (USS {_cell(worker, 'uss_mb')}) | |")
    emb, tok = report.get("embedding"), report.get("tokenize")
    if emb:
        lines.append(f"\nEmbedding ({emb['model']}, {emb['threads']} threads): {emb['chunks_per_s']} chunks/s of "
                     f"200 words ({emb['wordpieces_mean']} wordpieces, capped at {emb['max_seq_length']}); "
                     f"{emb['hours_for_1m_chunks']} h per million chunks; one query {emb['query_ms_median']} ms "
                     f"at {emb['query_threads']} thread(s).")
    if tok:
        lines.append(f"Tokeniser: {tok['tokens_per_s']:,} tokens/s "
                     f"({tok['minutes_for_1m_chunks']} min per million chunks).")
    threads = report["threads"]
    lines.append(f"Threads: query {threads['query']} (FAISS OpenMP {threads['faiss_omp']}, BLAS {threads['blas']}), "
                 f"build {threads['build']}.")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
