import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from orchestration.retrieval.bm25 import BM25Index, idf_floor_applies


def _corpus(seed=7, n_docs=400, vocab=250):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    docs = []
    for _ in range(n_docs):
        # "common" occurs in nearly every document, so its raw IDF is negative and floored.
        doc = ["common"] * rng.randint(0, 2) + rng.choices(words, k=rng.randint(1, 60))
        if rng.random() < 0.9:
            doc.append("common")
        docs.append(doc)
    return docs


QUERIES = [["w1", "w2"], ["common"], ["common", "w5", "w5"], ["w249", "unseen"], ["unseen"], [], ["w3"] * 4]


@pytest.mark.parametrize("query", QUERIES)
def test_scores_equal_rank_bm25_okapi(query):
    docs = _corpus()
    oracle = BM25Okapi(docs)
    ours = BM25Index.build(docs)
    # float32 weights: equal to BM25Okapi to 1e-6 relative (and absolute for scores <= 1).
    np.testing.assert_allclose(ours.get_scores(query), oracle.get_scores(query), rtol=1e-6, atol=1e-6)


def test_the_idf_floor_case_is_really_exercised():
    docs = _corpus()
    df = sum("common" in d for d in docs)
    assert idf_floor_applies(len(docs), df)
    oracle = BM25Okapi(docs)
    assert oracle.idf["common"] == pytest.approx(0.25 * oracle.average_idf)


def _file_mapped(array: np.ndarray) -> bool:
    """True when the array's memory is a file mapping (possibly behind plain ndarray views)."""
    import mmap

    base = array
    while base is not None and not isinstance(base, mmap.mmap):
        base = getattr(base, "base", None)
    return base is not None


def test_parity_holds_after_save_and_mmap_load(tmp_path):
    docs = _corpus(seed=3)
    BM25Index.build(docs).save(tmp_path / "bm25")
    loaded = BM25Index.load(tmp_path / "bm25")
    assert _file_mapped(loaded.data) and _file_mapped(loaded.indptr), "read from the mapped file, not copied"
    np.testing.assert_allclose(loaded.get_scores(["w9", "w10"]), BM25Okapi(docs).get_scores(["w9", "w10"]),
                               rtol=1e-6, atol=1e-6)


def test_search_returns_best_first_and_only_matching_rows():
    docs = [["apple"], ["banana"], ["apple", "apple", "pear"], ["pear"]]
    index = BM25Index.build(docs)
    rows, scores = index.search(["apple"], k=10)
    assert set(rows.tolist()) == {0, 2}
    assert list(scores) == sorted(scores, reverse=True)


def test_search_respects_the_allowed_mask():
    docs = [["apple"], ["apple", "pie"], ["apple", "tart"]]
    index = BM25Index.build(docs)
    allowed = np.array([False, True, False])
    rows, _ = index.search(["apple"], k=3, allowed=allowed)
    assert rows.tolist() == [1]


def test_unknown_terms_and_empty_query_return_nothing():
    index = BM25Index.build([["a"], ["b"]])
    assert index.search(["zzz"], k=5)[0].size == 0
    assert index.search([], k=5)[0].size == 0


def test_damaged_index_directory_raises_index_unavailable(tmp_path):
    from core.errors import IndexUnavailable

    BM25Index.build([["a"]]).save(tmp_path / "bm25")
    (tmp_path / "bm25" / "data.npy").write_bytes(b"garbage")
    with pytest.raises(IndexUnavailable, match="bm25"):
        BM25Index.load(tmp_path / "bm25")


def test_search_is_exactly_a_full_sort_with_ties_broken_by_row_with_and_without_filters():
    rng = random.Random(1)
    words = [f"w{i}" for i in range(400)]
    weights = [1 / (i + 1) for i in range(400)]
    docs = [rng.choices(words, weights=weights, k=rng.randint(5, 40)) for _ in range(3000)]
    index = BM25Index.build(docs)
    for i in range(120):
        query = rng.choices(words, k=rng.randint(1, 4))
        allowed = np.random.default_rng(i).random(3000) < 0.3 if i % 2 else None
        rows, _ = index.search(query, 10, allowed=allowed)
        scores, matched = index._score(query)
        if allowed is not None:
            matched &= allowed
        order = np.lexsort((np.arange(3000), -scores.astype(np.float32)))
        assert rows.tolist() == [r for r in order if matched[r]][:10]
