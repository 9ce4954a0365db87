"""A knowledge base's `bm25: {query_terms: ...}`: a repeated query term counts per occurrence or once.

The finding (docs/EVALUATION.md): MultiHop-RAG questions repeat their frame ("the article from
TechCrunch ... the article from The Verge"), and counting each repeat let those common terms
outweigh the rarer ones; counted once, plain hybrid MRR@10 rose 0.603 -> 0.623 on the dev queries.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from core.errors import ConfigError
from orchestration.kb.config import KBSettings, KeywordQuery
from orchestration.kb.ingest import ingest
from orchestration.kb.knowledge_base import KnowledgeBase
from orchestration.retrieval.bm25 import BM25Index
from orchestration.retrieval.query_terms import QUERY_TERMS, query_terms
from orchestration.retrieval.search import Retriever, SearchRequest
from orchestration.retrieval.tokenize import tokenize
from orchestration.trace import Trace

DOCS = [["article", "report", "storm", "coast"], ["article", "article", "article", "vote"],
        ["flood", "river", "storm", "town"], ["market", "shares", "article", "fell"], ["flood", "warning", "coast"]]


def test_counted_keeps_every_token_and_unique_keeps_first_occurrences_in_order():
    tokens = ["articl", "techcrunch", "articl", "verg", "report"]
    assert query_terms(tokens, "counted") == tokens
    assert query_terms(tokens, "unique") == ["articl", "techcrunch", "verg", "report"]
    assert query_terms([], "unique") == []
    assert query_terms(tokens, "counted") is not tokens, "a new list: the caller's tokens are never changed"


def test_an_unknown_mode_is_a_config_error_listing_the_modes():
    with pytest.raises(ConfigError, match=r"unknown query_terms mode 'once'; known: counted, unique"):
        query_terms(["a"], "once")


@pytest.mark.parametrize("mode", QUERY_TERMS)
def test_scores_equal_rank_bm25_okapi_on_the_tokens_each_mode_keeps(mode):
    query = ["article", "storm", "article", "flood"]
    ours = BM25Index.build(DOCS).get_scores(query_terms(query, mode))
    np.testing.assert_allclose(ours, BM25Okapi(DOCS).get_scores(query_terms(query, mode)), rtol=1e-6, atol=1e-6)


def test_a_term_the_query_repeats_outranks_a_rarer_one_only_when_counted():
    index = BM25Index.build(DOCS)
    query = ["article", "article", "article", "flood"]
    counted = index.get_scores(query_terms(query, "counted"))
    unique = index.get_scores(query_terms(query, "unique"))
    assert int(np.argmax(counted)) == 1, "counted: the document repeating the query's frame word wins"
    assert int(np.argmax(unique)) in (2, 4), "unique: a document holding the rarer word wins"


class _StandInEmbedder:
    """A deterministic 8-d embedder (hash of the text): enough to build a KB without a model."""

    key = "standin"
    name = "standin-8d"
    dim = 8
    threads = None
    loaded = True

    def warm_up(self) -> None:
        pass

    def _vectors(self, texts):
        rows = [np.random.default_rng(sum(map(ord, text))).standard_normal(self.dim) for text in texts]
        out = np.array(rows, dtype=np.float32).reshape(len(rows), self.dim)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

    def queries(self, texts):
        return self._vectors(list(texts))

    def passages(self, texts, batch_size: int = 32):
        return self._vectors(list(texts))


NEWS = {
    "frame": "Article roundup. This article lists every article the desk filed; the article count rose.",
    "flood": "Flood warning for the river town. The flood reached the bridge on Monday.",
    "markets": "Shares fell on Monday as the market opened lower. The article on shares was read widely.",
    "storm": "The storm moved along the coast and the town closed its schools.",
    "vote": "The council vote passed after a long debate about the budget.",
    "rail": "The rail line reopened after repairs to the signal box.",
}


@pytest.fixture(scope="module")
def news_kb(tmp_path_factory):
    root = tmp_path_factory.mktemp("query_terms")
    folder = root / "docs"
    folder.mkdir()
    for doc_id, text in NEWS.items():
        (folder / f"{doc_id}.md").write_text(text, encoding="utf-8")
    embedder = _StandInEmbedder()
    ingest(KBSettings(name="news", paths=(folder,)), root / "kb" / "news", embedder, progress=False)
    return root, embedder


def _retriever(news_kb, mode: str) -> Retriever:
    root, embedder = news_kb
    settings = KBSettings(name="news", paths=(root / "docs",), bm25=KeywordQuery(query_terms=mode))
    return Retriever({"news": KnowledgeBase(settings, root / "kb" / "news", embedder.name)}, embedder)


@pytest.mark.parametrize("mode, first", [("counted", "frame"), ("unique", "flood")])
def test_the_kbs_setting_decides_what_the_keyword_arm_ranks_first(news_kb, mode, first):
    query = "Which article, the article on Monday or the article about the flood, came first?"
    assert tokenize(query).count("articl") == 3
    trace = Trace()
    found = _retriever(news_kb, mode).run([SearchRequest(id="t", kb="news", query=query, search="keyword")],
                                          trace, dt.date(2025, 7, 1), acl_groups=None)[0]
    assert found[0].chunk_id.startswith(first)
    keyword = next(o for o in trace.operations if o.op == "retrieve.keyword")
    assert keyword.params["query_terms"] == mode
    assert keyword.params["tokens"].count("articl") == (3 if mode == "counted" else 1)
