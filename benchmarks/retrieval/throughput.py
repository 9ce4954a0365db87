"""Throughput of what runs before any index: our tokeniser and the worker's embedder.

Promises: `bench_tokenize` times `tokenize` on rendered synthetic chunks and checks that it gives back
the generator's tokens (`round_trip_exact`: why big corpora are generated as ids); `bench_embedding`
times the worker's embedder on 200-word chunks at the build thread count and one short query at the
query thread count. Both are seeded like the corpora and return plain dicts for the JSON report.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from benchmarks.retrieval.systems import WORKER_EMBEDDER
from benchmarks.synthetic import CorpusSpec, generate_corpus


def bench_tokenize(seed: int, n_chunks: int = 2000) -> dict[str, Any]:
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


def bench_embedding(n_chunks: int, threads: int, query_threads: int, seed: int,
                    name: str = WORKER_EMBEDDER) -> dict[str, Any]:
    """Embedder throughput on 200-word chunks (at `threads`) and single-query latency (one thread:
    the embedders run short query batches single-threaded; `query_threads` is reported as given)."""
    from orchestration.retrieval.embedder import get_embedder

    corpus = generate_corpus(CorpusSpec(n_chunks=n_chunks, seed=seed, vocab_size=50_000,
                                        min_len=200, max_len=200))
    texts = [corpus.chunk_text(i) for i in range(n_chunks)]
    embedder = get_embedder(name, threads=threads)
    t0 = time.perf_counter()
    embedder.warm_up()
    load_s = time.perf_counter() - t0
    embedder.passages(texts[:32])  # warm-up
    t0 = time.perf_counter()
    vectors = embedder.passages(texts, batch_size=32)
    encode_s = time.perf_counter() - t0
    query = " ".join(corpus.chunk_tokens(0)[:6])
    embedder.queries([query])
    query_ms = []
    for _ in range(30):
        t1 = time.perf_counter()
        embedder.queries([query])
        query_ms.append((time.perf_counter() - t1) * 1000)
    chunks_per_s = n_chunks / encode_s
    return {"model": embedder.name, "chunks": n_chunks, "words_per_chunk": 200,
            "threads": threads, "load_s": round(load_s, 2), "chunks_per_s": round(chunks_per_s, 1),
            "hours_for_1m_chunks": round(1_000_000 / chunks_per_s / 3600, 1),
            "query_ms_median": round(float(np.median(query_ms)), 2), "query_threads": query_threads,
            "dim": int(vectors.shape[1])}
