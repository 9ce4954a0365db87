"""BM25 as one caller sees it: statistics of its visible rows only (issue 34, item 1).

The promise (orchestration/retrieval/bm25_visible.py): an index with rows hidden from a caller
scores, weighs and lists words for that caller exactly as an index built without those rows,
bit for bit, so no reply depends on a document the caller may not read.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from orchestration.retrieval.bm25 import BM25Index
from orchestration.retrieval.bm25_visible import visible_to
from orchestration.retrieval.federation import shared_idf
from orchestration.unwritten import vocabulary_of


def _corpus(seed=11, n_docs=120, vocab=90):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    docs = [["common"] * rng.randint(1, 2) + rng.choices(words, k=rng.randint(1, 40)) for _ in range(n_docs)]
    hidden = sorted(rng.sample(range(n_docs), 30))
    for row in hidden:  # words only hidden rows write, and more of a common one
        docs[row] += ["secretword", f"only{row}", "common", "w1"]
    return docs, hidden


QUERIES = [["w1", "w2"], ["common"], ["secretword"], ["secretword", "w3"], ["common", "w5", "w5"], ["unseen"]]


@pytest.fixture(scope="module")
def views():
    docs, hidden = _corpus()
    visible = np.ones(len(docs), dtype=bool)
    visible[hidden] = False
    full = BM25Index.build(docs)
    alone = BM25Index.build([d for d, seen in zip(docs, visible, strict=True) if seen])
    return full, visible_to(full, visible), alone, visible, docs


@pytest.mark.parametrize("query", QUERIES)
def test_a_view_scores_visible_rows_exactly_as_an_index_without_the_hidden_rows(views, query):
    full, view, alone, visible, _docs = views
    seen = view.score_query(query)
    np.testing.assert_array_equal(seen.scores[visible], alone.get_scores(query))  # bit for bit
    assert not seen.matched[~visible].any()
    rows, values = view.select(seen, 10, visible)
    alone_rows, alone_values = alone.search(query, 10)
    np.testing.assert_array_equal(rows, np.flatnonzero(visible)[alone_rows])  # the same chunks, in the same order
    np.testing.assert_array_equal(values, alone_values)


def test_the_hidden_rows_do_change_the_whole_index_scores(views):
    """Not vacuous: over every row, the visible rows' scores move with the hidden ones."""
    full, _view, alone, visible, _docs = views
    assert not np.array_equal(full.get_scores(["w1", "common"])[visible], alone.get_scores(["w1", "common"]))


def test_a_view_agrees_with_rank_bm25_over_the_visible_documents(views):
    _full, view, _alone, visible, docs = views
    oracle = BM25Okapi([d for d, seen in zip(docs, visible, strict=True) if seen])
    for query in QUERIES:
        np.testing.assert_allclose(view.get_scores(query)[visible], oracle.get_scores(query), rtol=1e-6, atol=1e-6)


def test_a_view_counts_and_lists_only_what_the_caller_may_see(views):
    _full, view, alone, _visible, _docs = views
    assert view.n_docs == alone.n_docs
    assert view.stats["mean_idf"] == alone.stats["mean_idf"] and view.stats["avgdl"] == alone.stats["avgdl"]
    for token in ("common", "w1", "w7", "secretword", "only3", "unseen"):
        assert view.document_frequency(token) == alone.document_frequency(token)
        assert view.idf(token) == alone.idf(token)
    assert sorted(view.written_tokens()) == sorted(alone.written_tokens())
    assert "secretword" not in view.written_tokens()
    assert not vocabulary_of(view).writes("secretword") and vocabulary_of(view).writes("common")


def test_knowledge_bases_searched_as_one_share_the_callers_statistics(views):
    full, view, alone, visible, _docs = views
    other = BM25Index.build([["w1", "w2", "extra"], ["w2", "common"]])
    query = ["w1", "w2", "secretword"]
    assert shared_idf([view, other], query) == shared_idf([alone, other], query)
    idf = shared_idf([alone, other], query)
    np.testing.assert_array_equal(view.score_query(query, idf).scores[visible], alone.get_scores(query, idf))


def test_every_row_visible_is_the_index_itself_and_views_are_kept(views):
    full, view, _alone, visible, _docs = views
    assert visible_to(full, None) is full
    assert visible_to(full, np.ones(full.n_docs, dtype=bool)) is full
    assert visible_to(full, visible.copy()) is view  # computed once per row set


def test_a_saved_index_keeps_what_a_view_needs(views, tmp_path):
    full, view, alone, visible, _docs = views
    full.save(tmp_path / "bm25")
    loaded = visible_to(BM25Index.load(tmp_path / "bm25"), visible)
    np.testing.assert_array_equal(loaded.get_scores(["w1", "common"])[visible], alone.get_scores(["w1", "common"]))
