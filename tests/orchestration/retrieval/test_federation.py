"""Several knowledge bases searched as one corpus: shared BM25 statistics, one ranking by relevance.

The finding: with one KB per folder, each KB's broad task put its own best chunk into the
evidence, so a question about the software's license got the handbook's benefits page first.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from orchestration.executor import Executor
from orchestration.retrieval.bm25 import BM25Index
from orchestration.retrieval.federation import KBArm, fuse_across, shared_idf
from orchestration.retrieval.fusion import RankedList
from orchestration.trace import Trace
from orchestration.types import Plan, RetrievalTask

NOW = dt.date(2026, 1, 1)

# Equal-length documents, so the two halves have the union's average length and only IDF differs.
DOCS = [["license", "apache", "software", "terms"], ["install", "software", "linux", "package"],
        ["benefit", "insurance", "employee", "share"], ["license", "employee", "badge", "office"],
        ["config", "default", "port", "software"], ["holiday", "employee", "leave", "days"]]


def test_shared_idf_of_one_index_is_its_own():
    index = BM25Index.build(DOCS)
    assert shared_idf([index], ["license", "employee", "nosuch"]) == pytest.approx(
        {"license": index.idf("license"), "employee": index.idf("employee")})


def test_split_corpus_scores_as_the_union_with_shared_idf():
    union = BM25Index.build(DOCS)
    left, right = BM25Index.build(DOCS[:3]), BM25Index.build(DOCS[3:])
    query = ["license", "software", "employee"]
    idf = shared_idf([left, right], query)
    split = np.concatenate([left.get_scores(query, idf), right.get_scores(query, idf)])
    assert split == pytest.approx(union.get_scores(query), rel=1e-5)
    # without shared statistics the halves disagree with the union: the finding's cause
    own = np.concatenate([left.get_scores(query), right.get_scores(query)])
    assert not np.allclose(own, union.get_scores(query), rtol=1e-3)


def test_fuse_across_ranks_rows_of_all_kbs_by_score_with_each_kbs_weight():
    arms = [KBArm("docs", RankedList("t1:keyword", 1.0, [(0, 9.0), (1, 2.0)])),
            KBArm("hr", RankedList("t1:keyword", 1.0, [(0, 5.0)])),
            KBArm("hr", RankedList("t1:vector", 0.0, [(1, 0.9)]))]
    fused = fuse_across(arms, "rrf", 60, ["docs", "hr"])
    assert [e.key for e in fused] == [("docs", 0), ("hr", 0), ("docs", 1)], "hr row 1 has only a zero-weight arm"
    assert fused[1].ranks == {"t1:keyword": 2} and fused[1].score == pytest.approx(1 / 62)


SOFTWARE = {
    "license": "# License\nThe software is released under the Apache License 2.0. You may use, modify and "
               "distribute it under the terms of that license.",
    "install": "# Installing\nDownload the release archive, unpack it and run the server binary. Packages exist "
               "for Debian and Fedora.",
    "config": "# Configuration\nThe server reads its settings from a YAML file. The default port is 9090 and the "
              "default retention is 15 days.",
    "alerts": "# Alerting\nAlert rules are evaluated every minute; notifications go to the alert manager.",
}
HANDBOOK = {
    "benefits": "# Benefits\nThe company pays a share of health insurance payments for every employee and their "
                "family. Employees get 25 days of paid leave.",
    "onboarding": "# Onboarding\nOn the first day a new employee receives a laptop, a badge and an introduction "
                  "to the team.",
    "expenses": "# Expenses\nTravel costs are reimbursed within 30 days when the receipts are submitted.",
    "remote": "# Remote work\nEmployees may work from home up to three days a week after their probation.",
}


@pytest.fixture(scope="module")
def two_kbs(tmp_path_factory, embedder):
    """A software-docs KB and an employee-handbook KB, built for real."""
    from orchestration.kb.config import KBSettings
    from orchestration.kb.ingest import ingest
    from orchestration.kb.knowledge_base import KnowledgeBase
    from orchestration.retrieval.search import Retriever

    root = tmp_path_factory.mktemp("federation")
    opened = {}
    for name, docs in (("software", SOFTWARE), ("handbook", HANDBOOK)):
        folder = root / "docs" / name
        folder.mkdir(parents=True)
        for doc_id, text in docs.items():
            (folder / f"{doc_id}.md").write_text(text, encoding="utf-8")
        settings = KBSettings(name=name, paths=(folder,))
        ingest(settings, root / "kb" / name, embedder, progress=False)
        opened[name] = KnowledgeBase(settings, root / "kb" / name, embedder.name)
    retriever = Retriever(opened, embedder)
    retriever.warm_up()
    return retriever


def _broad(query: str) -> list[RetrievalTask]:
    return [RetrievalTask(id=f"t{i}", query=query, search="hybrid", kb=kb, weight=0.5, rule="broad", reason="broad",
                          top_k=4) for i, kb in enumerate(("handbook", "software"), start=1)]


def test_an_irrelevant_kbs_best_chunk_no_longer_takes_the_first_slot(two_kbs):
    query = "Which license is the software released under?"
    per_kb = Executor(two_kbs).run(Plan(tasks=_broad(query), across_kbs="per_kb", max_evidence=3), Trace(), NOW)
    assert "handbook" in [c.kb for c in per_kb[:2]], "the finding: one slot per KB, however weak its match"
    trace = Trace()
    shared = Executor(two_kbs).run(Plan(tasks=_broad(query), max_evidence=3), trace, NOW)
    assert shared[0].chunk_id.startswith("license")
    assert [c.kb for c in shared[:2]] == ["software", "software"]
    fuse = next(o for o in trace.operations if o.op == "fuse.arms")
    assert fuse.params["kb"] == ["handbook", "software"] and "as one corpus" in fuse.reason
    assert all("t1+t2" in c.ranks for c in shared), "the trace names the tasks searched together"


def test_each_kb_still_answers_its_own_questions_when_searched_together(two_kbs):
    shared = Executor(two_kbs).run(Plan(tasks=_broad("How many days of paid leave do employees get?"),
                                        max_evidence=3), Trace(), NOW)
    assert shared[0].kb == "handbook" and shared[0].chunk_id.startswith("benefits")
