import numpy as np
import pytest

from orchestration.retrieval.dense import DenseIndex, DenseParams


def _vectors(n=600, dim=32, seed=0):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _exact(vectors, query, k, allowed=None):
    scores = vectors @ query
    if allowed is not None:
        scores = np.where(allowed, scores, -np.inf)
    return np.argsort(-scores, kind="stable")[:k].tolist()


@pytest.mark.parametrize("threshold,kind", [(10_000, "flat"), (100, "hnsw")])
def test_index_kind_follows_the_threshold_and_loads_by_mmap(tmp_path, threshold, kind):
    vectors = _vectors()
    DenseIndex.build(vectors, DenseParams(hnsw_threshold=threshold)).save(tmp_path / "dense")
    index = DenseIndex.load(tmp_path / "dense")
    assert index.kind == kind and index.size == 600
    (rows, scores), = index.search(vectors[7:8], k=5)
    assert rows[0] == 7 and scores[0] == pytest.approx(1.0, abs=1e-5)


def test_flat_search_equals_a_numpy_scan_for_a_batch_of_queries():
    vectors = _vectors()
    index = DenseIndex.build(vectors)
    queries = _vectors(5, seed=1)
    for query, (rows, _) in zip(queries, index.search(queries, k=10), strict=True):
        assert rows.tolist() == _exact(vectors, query, 10)


@pytest.mark.parametrize("threshold", [10_000, 100])
def test_filtered_search_only_returns_allowed_rows_and_finds_the_best_of_them(threshold):
    vectors = _vectors()
    index = DenseIndex.build(vectors, DenseParams(hnsw_threshold=threshold))
    allowed = np.zeros(600, dtype=bool)
    allowed[::7] = True
    query = _vectors(1, seed=2)[0]
    (rows, _), = index.search(query[None, :], k=5, allowed=allowed)
    assert all(allowed[r] for r in rows)
    assert rows.tolist() == _exact(vectors, query, 5, allowed)


def test_filter_allowing_nothing_returns_nothing():
    index = DenseIndex.build(_vectors())
    (rows, _), = index.search(_vectors(1, seed=3), k=5, allowed=np.zeros(600, dtype=bool))
    assert rows.size == 0


def test_a_scan_selects_what_a_masked_search_returns_bit_for_bit_ties_included(tmp_path):
    vectors = _vectors(n=800)
    vectors[[100, 300]] = vectors[5]  # exact ties: FAISS ranks them by descending row
    DenseIndex.build(vectors).save(tmp_path / "dense")
    index = DenseIndex.load(tmp_path / "dense")  # mapped, as a worker reads it
    rng = np.random.default_rng(3)
    for i, query in enumerate(np.vstack([vectors[5:6], _vectors(8, seed=2)])):
        allowed = None if i % 3 == 0 else rng.random(800) < 0.4
        if allowed is not None:
            allowed[[5, 100, 300]] = True
        (rows, scores), = index.search(query[None, :], k=20, allowed=allowed)
        got_rows, got_scores = index.select(index.scan(query), 20, allowed)
        assert got_rows.tolist() == rows.tolist()
        assert got_scores.tobytes() == scores.tobytes()


def test_an_hnsw_index_has_no_scan():
    assert DenseIndex.build(_vectors(), DenseParams(hnsw_threshold=100)).scan(_vectors(1)[0]) is None
