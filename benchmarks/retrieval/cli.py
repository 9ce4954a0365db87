"""The command line of `sightline bench` / `python -m benchmarks.retrieval`: options and the whole run.

Promises: `main` validates the options (positive counts, every size at least 2 x K chunks), pins the
query threads, benchmarks every size in order (writing the JSON after each one), then the tokeniser
and (unless --embed-chunks 0) embedding throughput, writes the final JSON and prints the Markdown
summary on stdout; progress goes to stderr. It returns 0; a bad option exits 2 (argparse).
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.retrieval.arms import FAST_EF_CONSTRUCTION, bench_size
from benchmarks.retrieval.harness import K, log, pin_threads
from benchmarks.retrieval.report import machine, render_markdown, write
from benchmarks.retrieval.throughput import bench_embedding, bench_tokenize


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
    threads = pin_threads(args.threads)
    threads["build"] = args.build_threads
    report: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "machine": machine(),
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
            log(f"size {n:,}")
            report["sizes"][str(n)] = bench_size(n, args, Path(work) / str(n))
            write(report, args.out)
            gc.collect()
    log("tokeniser throughput")
    report["tokenize"] = bench_tokenize(args.seed)
    if args.embed_chunks:
        log("embedding throughput")
        report["embedding"] = bench_embedding(args.embed_chunks, args.build_threads, args.threads, args.seed)
    report["total_s"] = round(time.perf_counter() - started, 1)
    report["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write(report, args.out)
    print(render_markdown(report))
    return 0
