"""The synthetic corpus generator, and the retrieval benchmark end to end at a tiny size."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.synthetic import (
    CorpusSpec,
    clustered_vectors,
    generate_corpus,
    pseudo_words,
    query_vectors,
    sample_queries,
)
from orchestration.retrieval.tokenize import tokenize

SMALL = CorpusSpec(n_chunks=500, vocab_size=20_000, seed=3)


@pytest.fixture(scope="module")
def corpus():
    return generate_corpus(SMALL)


def test_same_seed_same_corpus_and_queries(corpus):
    again = generate_corpus(SMALL)
    assert again.words == corpus.words
    assert np.array_equal(again.term_ids, corpus.term_ids)
    assert np.array_equal(again.offsets, corpus.offsets)
    q1, r1 = sample_queries(corpus, 10)
    q2, r2 = sample_queries(again, 10)
    assert np.array_equal(r1, r2) and all(np.array_equal(a, b) for a, b in zip(q1, q2, strict=True))


def test_other_seed_other_corpus(corpus):
    other = generate_corpus(CorpusSpec(n_chunks=500, vocab_size=20_000, seed=4))
    assert not np.array_equal(other.term_ids[:1000], corpus.term_ids[:1000])


def test_chunk_lengths_and_query_sizes(corpus):
    lengths = np.diff(corpus.offsets)
    assert lengths.min() >= SMALL.min_len and lengths.max() <= SMALL.max_len
    queries, rows = sample_queries(corpus, 50)
    for q, row in zip(queries, rows, strict=True):
        assert 3 <= len(q) <= 8 and len(set(q.tolist())) == len(q)
        assert set(q.tolist()) <= set(corpus.chunk(row).tolist())


def test_frequencies_are_zipf_like(corpus):
    counts = np.sort(np.bincount(corpus.term_ids, minlength=SMALL.vocab_size))[::-1]
    ranks = np.arange(1, 1001)
    # log-log slope over the head; topic words bend it a little, Zipf's s is 1.
    slope = np.polyfit(np.log(ranks + SMALL.stopword_ranks), np.log(counts[:1000]), 1)[0]
    assert -1.4 < slope < -0.6
    assert counts[0] > 5 * counts[999]  # p(101) / p(1100) is ~11 once the stopword ranks are gone


def test_words_are_distinct_and_survive_the_tokeniser(corpus):
    words = pseudo_words(5000, seed=1)
    assert len(set(words)) == 5000
    assert [len(w) for w in words] == sorted(len(w) for w in words)
    for row in range(5):
        assert tokenize(corpus.chunk_text(row)) == corpus.chunk_tokens(row)


def test_vectors_are_unit_and_clustered():
    vectors, labels = clustered_vectors(2000, dim=64, n_clusters=20, seed=1)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    same = vectors[labels == labels[0]]
    other = vectors[labels != labels[0]]
    assert (same[1:] @ same[0]).mean() > 0.3 > abs((other @ same[0]).mean())
    again, _ = clustered_vectors(2000, dim=64, n_clusters=20, seed=1)
    assert np.array_equal(vectors, again)
    queries = query_vectors(vectors, np.array([0, 5]))
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    assert (queries * vectors[[0, 5]]).sum(axis=1).min() > 0.8


@pytest.mark.slow
def test_benchmark_runs_end_to_end(tmp_path):
    from benchmarks.retrieval import main

    out = tmp_path / "bench.json"
    code = main(["--sizes", "2000", "--queries", "5", "--repeats", "2", "--embed-chunks", "0",
                 "--worker-rss-at", "--out", str(out), "--workdir", str(tmp_path)])
    assert code == 0
    report = json.loads(out.read_text())
    assert {"date", "machine", "threads", "settings", "sizes", "tokenize", "embedding"} <= set(report)
    size = report["sizes"]["2000"]
    assert {"ours", "rank_bm25", "bm25s", "parity"} <= set(size["bm25"])
    assert size["bm25"]["ours"]["latency_ms"]["n"] == 10
    assert size["bm25"]["parity"]["max_abs_score_diff"] < 1e-4
    assert size["bm25"]["parity"]["top10_overlap"] == 1.0
    assert size["bm25"]["rank_bm25"]["speedup_ours"] > 0
    assert {"ours_flat", "ours_hnsw", "numpy", "speedup_vs_numpy"} <= set(size["dense"])
    assert size["dense"]["ours_flat"]["recall_at_10"] == 1.0
    assert size["dense"]["ours_hnsw"]["recall_at_10"] > 0.8
    assert {"bm25", "dense_flat", "dense_hnsw"} == set(size["rss"])
    assert size["rss"]["bm25"]["after_queries_mb"] > 0
    assert report["threads"]["query"] == 1
