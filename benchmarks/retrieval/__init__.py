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

Modules, one concept each:
    cli         options and the whole run (`main`)
    arms        run control for one corpus size: the BM25 arm, the dense arm, the probes
    harness     the interleaved race, median/p95/ratio, build timing, thread pinning, progress
    systems     one adapter per system compared, behind the `System` interface
    memory      the resident-memory probe (a fresh subprocess per index)
    throughput  tokeniser and embedder throughput
    report      machine description, the JSON file, the Markdown tables

Promises: this package's `main` and `render_markdown` are the ones callers import
(`server/cli/`, the tests); `python -m benchmarks.retrieval` runs `main`.
"""

from benchmarks.retrieval.cli import main
from benchmarks.retrieval.report import render_markdown

__all__ = ["main", "render_markdown"]
