"""The Router: for_each with caps, filters from perception, overrides, kbs, limits, dedupe."""

from __future__ import annotations

import datetime as dt
import sys
import time

import pytest

from core.errors import RequestError, UnknownKnowledgeBase
from orchestration.types import Plan

ALWAYS = {"always": True}


def test_plan_carries_fusion_limits_and_version(build, perceive):
    router = build([{"name": "r", "when": ALWAYS, "emit": [{"kb": "manuals"}]}],
                   fusion={"method": "weighted_sum", "k": 10},
                   limits={"max_evidence": 5, "context_budget_words": 600})
    plan = router.run(perceive("What triggers E4027?"))
    assert isinstance(plan, Plan)
    assert (plan.fusion_method, plan.fusion_k, plan.max_evidence, plan.context_budget_words) == (
        "weighted_sum", 10.0, 5, 600)
    assert plan.config_version == router.config.version and plan.notes[0].startswith("attempt 0")
    task = plan.tasks[0]
    assert (task.id, task.kb, task.search, task.query, task.rule) == ("t1", "manuals", "hybrid",
                                                                      "What triggers E4027?", "r")
    assert task.reason.startswith("rule 'r': it always applies; this task runs a hybrid search of manuals")


def test_for_each_entity_respects_the_cap_and_notes_the_rest(build, perceive):
    router = build([{"name": "per", "when": ALWAYS,
                     "emit": [{"kb": "manuals", "for_each": "entity", "cap": 2, "entity_labels": ["CODE"],
                               "query": "{entity}"}]}])
    plan = router.run(perceive("Compare E4027, E4031 and E5102"))
    assert [t.entity for t in plan.tasks] == ["E4027", "E4031"]
    assert any("capped at 2; skipped E5102" in n for n in plan.notes)


def test_for_each_source_filters_each_task_to_its_source(build, news_agent):
    router = build([{"name": "per-source", "when": {"has": ["source"]},
                     "emit": [{"kb": "multihop", "for_each": "source"}]}], known_kbs=["multihop"])
    plan = router.run(news_agent.run("Did TechCrunch and The Verge both report on the OpenAI board?", "2024-01-01"))
    assert [t.filters.source for t in plan.tasks] == [("TechCrunch",), ("The Verge",)]


def test_for_each_with_nothing_to_iterate_emits_nothing_and_falls_back(build, perceive):
    router = build([{"name": "per", "when": ALWAYS, "emit": [{"kb": "manuals", "for_each": "entity"}]}])
    plan = router.run(perceive("How long must records be kept?"))
    assert [t.rule for t in plan.tasks] == ["fallback"] * 3
    assert "rule 'per': for_each entity found nothing to iterate over; no task" in plan.notes
    assert plan.tasks[0].reason.startswith("rule 'fallback': no rule produced a task for manuals")


def test_filters_from_perception(build, perceive):
    router = build([{"name": "r", "when": ALWAYS, "emit": [{"kb": "reports", "filters": {
        "time": "perception", "status": "perception", "doc_type": "perception",
        "exclude_status": ["draft", "closed"]}}]}])
    task = router.run(perceive("查询 2025 年第二季度状态为已关闭的测试报告")).tasks[0]
    f = task.filters
    assert (f.time_start, f.time_end) == (dt.date(2025, 4, 1), dt.date(2025, 6, 30))
    assert (f.status, f.doc_type, f.exclude_status) == (("closed",), ("test_report",), ("draft",))
    assert "Keeps closed documents because the query asks for them." in task.reason


def test_perception_filters_are_empty_when_the_query_has_none(build, perceive):
    router = build([{"name": "r", "when": ALWAYS, "emit": [{"kb": "reports", "filters": {
        "time": "perception", "status": "perception", "doc_type": "perception", "source": "perception"}}]}])
    assert router.run(perceive("Who approves purchases?")).tasks[0].filters.empty


def test_time_padding_and_fixed_values(build, perceive):
    router = build([{"name": "r", "when": ALWAYS, "emit": [{"kb": "reports", "filters": {
        "time": "perception", "time_pad_days": 3, "keep_undated": True, "status": ["open"],
        "doc_type": ["order", "ticket"], "source": ["Quality"]}}]}])
    f = router.run(perceive("Show orders from the last week")).tasks[0].filters
    assert (f.time_start, f.time_end, f.keep_undated) == (dt.date(2025, 6, 30), dt.date(2025, 7, 13), True)
    assert (f.status, f.doc_type, f.source) == (("open",), ("order", "ticket"), ("Quality",))


def test_request_overrides_replace_filters_and_top_k(build, perceive):
    router = build([{"name": "r", "when": ALWAYS, "emit": [{"kb": "reports", "top_k": 5, "filters": {
        "time": "perception", "status": "perception", "exclude_status": ["draft"]}}]}])
    p = perceive("Show open orders from the last week")
    plan = router.run(p, overrides={"filters": {"status": ["closed"], "time_start": "2025-01-01",
                                                "exclude_status": ["superseded"]}, "top_k": 7})
    f = plan.tasks[0].filters
    assert (f.status, f.time_start, f.time_end) == (("closed",), dt.date(2025, 1, 1), dt.date(2025, 7, 10))
    assert f.exclude_status == ("draft", "superseded") and plan.tasks[0].top_k == 7
    assert "Request filters applied" in plan.tasks[0].reason
    assert router.run(p, overrides={"filters": None, "top_k": None}).tasks[0].top_k == 5


@pytest.mark.parametrize("overrides, message", [
    ({"limit": 3}, r"unknown override 'limit'; allowed: filters, top_k"),
    ({"top_k": 0}, r"top_k must be a positive integer"),
    ({"filters": {"colour": "red"}}, r"unknown filter 'colour'; allowed: time_start"),
    ({"filters": {"time_start": "yesterday"}}, r"bad filters"),
])
def test_bad_overrides_are_request_errors(build, perceive, overrides, message):
    router = build([{"name": "r", "when": ALWAYS, "emit": [{"kb": "reports"}]}])
    with pytest.raises(RequestError, match=message):
        router.run(perceive("anything"), overrides=overrides)


def test_kbs_restricts_the_plan(build, perceive):
    router = build([{"name": "all", "when": ALWAYS, "emit": [{"kb": "*"}]},
                    {"name": "reports-only", "when": ALWAYS, "emit": [{"kb": "reports", "query": "{keywords}"}]}])
    p = perceive("What triggers E4027?")
    assert [t.kb for t in router.run(p).tasks] == ["manuals", "policies", "reports", "reports"]
    assert [t.kb for t in router.run(p, kbs=["manuals"]).tasks] == ["manuals"]
    assert [t.kb for t in router.run(p, kbs=["reports", "manuals"]).tasks] == ["manuals", "reports", "reports"]
    with pytest.raises(UnknownKnowledgeBase, match=r"unknown knowledge base 'news'; known: manuals, policies, reports"):
        router.run(p, kbs=["news"])


def test_fallback_covers_requested_kbs_no_rule_reaches(build, perceive):
    router = build([{"name": "reports-only", "when": ALWAYS, "emit": [{"kb": "reports"}]}])
    plan = router.run(perceive("What triggers E4027?"), kbs=["manuals"])
    assert [(t.kb, t.rule) for t in plan.tasks] == [("manuals", "fallback")]


def test_max_tasks_keeps_priority_then_weight(build, perceive):
    router = build([
        {"name": "low", "when": ALWAYS, "emit": [{"kb": "manuals", "priority": 9, "weight": 1.0}]},
        {"name": "light", "when": ALWAYS, "emit": [{"kb": "policies", "priority": 1, "weight": 0.2}]},
        {"name": "heavy", "when": ALWAYS, "emit": [{"kb": "reports", "priority": 1, "weight": 0.9}]},
    ], limits={"max_tasks": 2})
    plan = router.run(perceive("anything"))
    assert [(t.id, t.rule) for t in plan.tasks] == [("t1", "heavy"), ("t2", "light")]
    assert any(n.startswith("max_tasks 2: dropped hybrid task on manuals") and "rule 'low'" in n for n in plan.notes)


def test_identical_tasks_are_merged(build, perceive):
    router = build([
        {"name": "a", "when": ALWAYS, "emit": [{"kb": "manuals", "weight": 0.4, "priority": 3, "top_k": 5}]},
        {"name": "b", "when": ALWAYS, "emit": [{"kb": "manuals", "weight": 0.9, "priority": 4, "top_k": 9}]},
    ])
    plan = router.run(perceive("What triggers E4027?"))
    assert len(plan.tasks) == 1
    task = plan.tasks[0]
    assert (task.rule, task.weight, task.priority, task.top_k) == ("a", 0.9, 3, 9)
    assert any("duplicates one of rule 'a'; merged" in n for n in plan.notes)


def test_same_input_same_plan(demo_router, perceive):
    for query in ("Compare A320 vs B737 fuel burn in 2023", "查询 2025 年第二季度状态为已关闭的测试报告"):
        first = demo_router.run(perceive(query)).to_dict()
        assert all(demo_router.run(perceive(query)).to_dict() == first for _ in range(3))


def test_warm_up_is_cheap_and_idempotent(demo_router, perceive):
    """warm_up has nothing to load (the config was validated when loaded): it imports nothing,
    takes no time, and calling it (again) changes neither the config nor the plans."""
    perception = perceive("Compare A320 vs B737 fuel burn in 2023")
    config, before = demo_router.config, demo_router.run(perception).to_dict()
    modules = set(sys.modules)
    started = time.perf_counter()
    assert demo_router.warm_up() is None
    assert demo_router.warm_up() is None
    elapsed = time.perf_counter() - started
    assert set(sys.modules) - modules == set()  # nothing imported, so no model or index loaded
    assert elapsed < 0.25, f"two warm_up calls took {elapsed * 1000:.1f} ms"
    assert demo_router.config is config
    assert demo_router.run(perception).to_dict() == before
