"""Hybrid search over the shipped demo knowledge bases (real BM25, MiniLM, FAISS)."""

import datetime as dt

import pytest

from core.errors import RequestError, UnknownKnowledgeBase
from orchestration.retrieval.filters import Filters
from orchestration.retrieval.search import SearchRequest
from orchestration.trace import Trace

NOW = dt.date(2025, 7, 10)


def _search(retriever, *requests, acl=None):
    trace = Trace()
    return retriever.run(list(requests), trace, now=NOW, acl_groups=acl), trace


@pytest.mark.parametrize("kb,query,expected", [
    ("manuals", "How is error code E4027 triggered?", "manuals-fault-e4027"),
    ("manuals", "APU fails to start within 60 seconds fault", "manuals-fault-e5102"),
    ("policies", "invoice amount does not match the contract who handles it",
     "policies-invoice-contract-mismatch-2024"),
    ("policies", "发票金额与合同不一致由哪个部门处理", "policies-invoice-contract-mismatch-2024-zh"),
    ("reports", "Q2 2025 defect closure rate", "reports-quality-summary-q2-2025"),
])
def test_hybrid_search_finds_the_document_a_person_would_pick(demo_retriever, kb, query, expected):
    (results,), _ = _search(demo_retriever, SearchRequest("t1", kb, query, top_k=3))
    assert expected in [r.doc_id for r in results]


@pytest.mark.parametrize("search", ["keyword", "vector", "hybrid"])
def test_every_search_type_returns_ranked_scored_chunks(demo_retriever, search):
    (results,), trace = _search(demo_retriever, SearchRequest("t1", "manuals", "E4027 vibration", search, top_k=5))
    assert 0 < len(results) <= 5
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    ops = [o.op for o in trace.operations]
    assert ("retrieve.keyword" in ops) == (search != "vector")
    assert ("retrieve.vector" in ops) == (search != "keyword")


def test_filters_apply_inside_retrieval_and_every_rejection_has_a_reason(demo_retriever):
    filters = Filters(time_start=dt.date(2025, 4, 1), time_end=dt.date(2025, 6, 30), status=("closed",),
                      doc_type=("test_report",))
    (results,), trace = _search(demo_retriever, SearchRequest("t1", "reports", "测试报告 test report", filters=filters,
                                                              top_k=10))
    assert results, "closed Q2 2025 test reports exist in the demo KB"
    for r in results:
        assert r.metadata["status"] == "closed" and r.metadata["doc_type"] == "test_report"
        assert "2025-04-01" <= r.metadata["published_at"][:10] <= "2025-06-30"
    keyword = next(o for o in trace.operations if o.op == "retrieve.keyword")
    assert keyword.rejected, "unfiltered candidates outside the window must be reported"
    open_report = [cid for cid in keyword.rejected if cid.startswith("reports-avionics-regression-test-2025-07-03-zh")]
    assert open_report and ("> 2025-06-30" in keyword.rejected[open_report[0]]
                            or "status=" in keyword.rejected[open_report[0]])
    assert all(reason for reason in keyword.rejected.values())


def test_searches_sharing_a_query_share_the_work_and_return_what_each_alone_would(demo_retriever):
    query = "test report defect closure"
    requests = [SearchRequest("a", "reports", query),
                SearchRequest("b", "reports", query, filters=Filters(status=("closed",))),
                SearchRequest("c", "reports", query, filters=Filters(doc_type=("test_report",)), top_k=5),
                SearchRequest("d", "reports", query, search="keyword"),
                SearchRequest("e", "manuals", query)]
    together, trace = _search(demo_retriever, *requests)
    alone = [_search(demo_retriever, r)[0][0] for r in requests]

    def seen(results):
        return [(r.chunk_id, r.score, r.ranks, r.scores) for r in results]

    assert [seen(r) for r in together] == [seen(r) for r in alone]
    named = [(o.op, o.params["task"], o.kept, o.rejected) for o in trace.operations if o.op.startswith("retrieve.")]
    apart = [(o.op, o.params["task"], o.kept, o.rejected) for r in requests
             for o in _search(demo_retriever, r)[1].operations if o.op.startswith("retrieve.")]
    assert named == apart


def test_acl_restricted_chunks_are_never_returned_or_named_without_the_group(demo_retriever):
    request = SearchRequest("t1", "policies", "salary bands pay grades", top_k=10,
                            filters=Filters(exclude_status=("draft",)))
    (public,), trace = _search(demo_retriever, request, acl=[])
    assert all(r.doc_id != "policies-salary-bands-2025" for r in public)
    for op in trace.operations:
        named = list(op.kept) + list(op.rejected)
        assert not any(cid.startswith("policies-salary-bands-2025") for cid in named)
    (finance,), _ = _search(demo_retriever, request, acl=["finance"])
    assert "policies-salary-bands-2025" in [r.doc_id for r in finance]


def test_vector_queries_of_all_requests_are_embedded_in_one_call(demo_retriever):
    requests = [SearchRequest(f"t{i}", kb, "fuel burn per hour", top_k=3)
                for i, kb in enumerate(["manuals", "policies", "reports"])]
    results, trace = _search(demo_retriever, *requests)
    assert len(results) == 3
    embeds = [o for o in trace.operations if o.op == "embed"]
    assert len(embeds) == 1 and embeds[0].input_count == 3
    assert embeds[0].params["distinct"] == 1, "the same text is embedded once"


def test_a_retry_reuses_its_request_s_vectors_and_another_request_never_does(demo_retriever):
    """Found in issue 34's spirit: the vector cache was shared by every request of a process, so a
    caller's trace said `cached: 1` (and its time was shorter) when someone had asked the same text
    before: "was 'Is Alice on the restructuring list?' asked here?" had an answer."""
    request = SearchRequest("t1", "manuals", "a query only this test asks: hydraulic E5102 widgets", top_k=2)
    trace = Trace()
    demo_retriever.run([request], trace, now=NOW)
    demo_retriever.run([request], trace, now=NOW)  # the request's retry: the same trace
    _, another = _search(demo_retriever, request)  # the same text asked by another request
    embeds = [o for t in (trace, another) for o in t.operations if o.op == "embed"]
    assert [(e.output_count, e.params["cached"]) for e in embeds] == [(1, 0), (0, 1), (1, 0)]


def test_hybrid_still_answers_when_the_keyword_arm_finds_nothing(demo_retriever):
    (results,), trace = _search(demo_retriever, SearchRequest("t1", "manuals", "zzqxv wobblefrotz", top_k=3))
    keyword = next(o for o in trace.operations if o.op == "retrieve.keyword")
    assert keyword.output_count == 0
    assert len(results) == 3 and all("t1:vector" in r.ranks for r in results)


def test_credibility_puts_the_superseded_manual_below_its_revision(demo_retriever):
    request = SearchRequest("t1", "manuals", "A320neo fuel burn per hour performance manual", top_k=20)
    (results,), _ = _search(demo_retriever, request)
    docs = [r.doc_id for r in results]
    assert docs.index("manuals-a320neo-perf-2023") < docs.index("manuals-a320neo-perf-2021")
    old = next(r for r in results if r.doc_id == "manuals-a320neo-perf-2021")
    assert old.credibility_factors["status"] == 0.5 and old.credibility < 1


def test_unknown_kb_lists_the_known_ones(demo_retriever):
    with pytest.raises(UnknownKnowledgeBase, match="known: manuals, policies, reports"):
        _search(demo_retriever, SearchRequest("t1", "regs", "anything"))


def test_bad_search_type_is_a_request_error():
    with pytest.raises(RequestError, match="search must be one of hybrid, keyword, vector"):
        SearchRequest("t1", "manuals", "q", search="semantic")


def test_embedders_loaded_in_the_background_give_the_results_of_ones_loaded_up_front(demo_kbs, demo_retriever):
    """`sightline ask` starts the model load in a thread while Perception runs; a search that comes
    before the load is done waits for it and ranks exactly as a retriever warmed up front."""
    from orchestration.kb.registry import open_knowledge_bases
    from orchestration.retrieval.embedder import MiniLMOnnxEmbedder
    from orchestration.retrieval.search import Retriever

    fresh = MiniLMOnnxEmbedder()  # not the session's shared, already loaded instance
    retriever = Retriever(open_knowledge_bases(demo_kbs), fresh, demo_retriever.credibility_params)
    retriever.open()
    thread = retriever.load_embedders_in_background()
    assert thread is not None
    request = SearchRequest("t1", "manuals", "APU fails to start within 60 seconds fault", "vector", top_k=5)
    (results,), _ = _search(retriever, request)   # very likely while the thread is still loading
    thread.join()
    assert fresh.loaded and retriever.load_embedders_in_background() is None  # nothing left to load
    (expected,), _ = _search(demo_retriever, request)
    assert [(r.chunk_id, r.score) for r in results] == [(r.chunk_id, r.score) for r in expected]
