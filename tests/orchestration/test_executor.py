"""The executor over the demo knowledge bases: fusion across tasks, exclusions, dedupe, budget."""

import datetime as dt

from orchestration.executor import Executor
from orchestration.retrieval.filters import Filters
from orchestration.trace import Trace
from orchestration.types import Plan, RetrievalTask

NOW = dt.date(2025, 7, 10)


def _task(i, kb, query, weight=1.0, **kw):
    return RetrievalTask(id=f"t{i}", query=query, search=kw.pop("search", "hybrid"), kb=kb, weight=weight,
                         rule="test", reason="test", **kw)


def _ops(trace, name):
    return [o for o in trace.operations if o.op == name]


def test_tasks_on_different_kbs_are_fused_by_weight(demo_retriever):
    plan = Plan(tasks=[_task(1, "manuals", "E4027 engine vibration", 1.0),
                       _task(2, "reports", "engine vibration test report", 0.3)], max_evidence=20,
                context_budget_words=100000)
    trace = Trace()
    evidence = Executor(demo_retriever).run(plan, trace, NOW)
    assert {c.kb for c in evidence} == {"manuals", "reports"}
    assert evidence[0].kb == "manuals", "the heavier task's best chunk leads"
    assert all(("t1" in c.ranks) or ("t2" in c.ranks) for c in evidence)
    fuse = _ops(trace, "fuse.tasks")[0]
    assert fuse.params["weights"] == {"t1": 1.0, "t2": 0.3}


def test_every_evidence_chunk_carries_its_credibility_factors(demo_retriever):
    plan = Plan(tasks=[_task(1, "manuals", "A320neo fuel burn per hour")], max_evidence=20, context_budget_words=10**6)
    evidence = Executor(demo_retriever).run(plan, Trace(), NOW)
    for chunk in evidence:
        assert set(chunk.credibility_factors) == {"recency", "authority", "status"}
        product = 1.0
        for value in chunk.credibility_factors.values():
            product *= value
        assert abs(chunk.credibility - product) < 1e-4


def test_excluded_chunks_are_dropped_with_a_reason(demo_retriever):
    plan = Plan(tasks=[_task(1, "policies", "invoice amount does not match the contract")], max_evidence=20,
                context_budget_words=10**6)
    first = Executor(demo_retriever).run(plan, Trace(), NOW)
    banned = first[0].chunk_id
    trace = Trace()
    plan.excluded_chunks = [banned]
    second = Executor(demo_retriever).run(plan, trace, NOW)
    assert banned not in [c.chunk_id for c in second]
    assert "validation rejected" in _ops(trace, "exclude")[0].rejected[banned]


def test_budget_limits_evidence_and_says_why(demo_retriever):
    plan = Plan(tasks=[_task(1, "manuals", "fuel burn engine thrust range")], max_evidence=3,
                context_budget_words=10**6)
    trace = Trace()
    evidence = Executor(demo_retriever).run(plan, trace, NOW)
    assert len(evidence) == 3
    budget = _ops(trace, "budget")[0]
    assert budget.rejected and all("max_evidence" in r for r in budget.rejected.values())


def test_near_duplicates_are_removed(demo_retriever):
    # the same query twice against the same KB: identical chunks merge; none appears twice
    plan = Plan(tasks=[_task(1, "manuals", "E4027 reset procedure"), _task(2, "manuals", "E4027 reset procedure")],
                max_evidence=50, context_budget_words=10**6)
    evidence = Executor(demo_retriever).run(plan, Trace(), NOW)
    ids = [c.chunk_id for c in evidence]
    assert len(ids) == len(set(ids))
    assert all({"t1", "t2"} <= set(c.ranks) for c in evidence[:3])


def test_filters_on_a_task_are_enforced(demo_retriever):
    plan = Plan(tasks=[_task(1, "policies", "invoice contract mismatch", filters=Filters(exclude_status=("draft",)))],
                max_evidence=20, context_budget_words=10**6)
    evidence = Executor(demo_retriever).run(plan, Trace(), NOW)
    assert evidence and all(c.metadata.get("status") != "draft" for c in evidence)


def test_empty_plan_gives_no_evidence(demo_retriever):
    assert Executor(demo_retriever).run(Plan(tasks=[]), Trace(), NOW) == []
