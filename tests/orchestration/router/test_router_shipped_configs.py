"""The shipped configs on real perceptions: the demo scenarios and MultiHop-RAG dev queries."""

from __future__ import annotations

import datetime as dt

import pytest
import yaml

from core.errors import ConfigError
from orchestration.paths import REPO_ROOT
from orchestration.router import Router, load_router_config, parse_router_config

from .conftest import DEMO_KBS

Q2 = (dt.date(2025, 4, 1), dt.date(2025, 6, 30))


def by_rule(plan, rule):
    return [t for t in plan.tasks if t.rule == rule]


def test_comparison_gets_per_entity_tasks_in_the_2023_window(demo_router, perceive):
    plan = demo_router.run(perceive("Compare A320 vs B737 fuel burn in 2023"))
    per_entity = by_rule(plan, "compare-per-entity")
    assert {(t.kb, t.entity, t.query) for t in per_entity} == {
        (kb, e, f"{e} fuel burn") for kb in ("manuals", "policies", "reports") for e in ("A320", "B737")}
    assert all((t.filters.time_start, t.filters.time_end) == (dt.date(2023, 1, 1), dt.date(2023, 12, 31))
               and "superseded" in t.filters.exclude_status for t in per_entity)
    assert plan.tasks[0].reason == (
        "rule 'compare-per-entity': the query compares A320 and B737; this task searches manuals for A320 alone "
        "so both sides get evidence. Filters: dated 2023-01-01 to 2023-12-31; excluding draft, superseded, expired.")
    assert by_rule(plan, "broad") and len(plan.tasks) <= demo_router.config.limits.max_tasks
    assert all("superseded" in t.filters.exclude_status for t in plan.tasks)


def test_compared_codes_get_exact_keyword_tasks(perceive):
    """Found on the PEPs: "What is the difference between PEP 484 and PEP 544?" said "the
    evidence says nothing about PEP 544": the per-entity hybrid task ranked near-topic chunks
    over PEP 544 itself, which keyword search ranks first."""
    router = Router(load_router_config(REPO_ROOT / "config" / "router.eval.yaml", known_kbs=["peps"]))
    plan = router.run(perceive("What is the difference between PEP 484 and PEP 544?"))
    exact = by_rule(plan, "compare-codes-keyword")
    assert {(t.search, t.query) for t in exact} == {("keyword", "PEP 484"), ("keyword", "PEP 544")}
    assert by_rule(plan, "compare-per-entity") and by_rule(plan, "broad")


def test_closed_q2_test_reports_are_searched_by_type_in_every_kb(demo_router, perceive):
    plan = demo_router.run(perceive("查询 2025 年第二季度状态为已关闭的测试报告"))
    typed = by_rule(plan, "by-doc-type")
    assert [t.id for t in typed] == ["t1", "t2", "t3"] and {t.kb for t in typed} == set(DEMO_KBS)
    assert all((t.filters.status, t.filters.doc_type) == (("closed",), ("test_report",)) for t in typed)
    assert all((t.filters.time_start, t.filters.time_end) == Q2 for t in typed)
    assert by_rule(plan, "broad")  # a lower-weight broad search still runs
    assert max(t.weight for t in by_rule(plan, "broad")) < typed[0].weight


def test_the_shipped_router_names_no_knowledge_base(perceive):
    """Any set of KBs serves: the router loads for a KB it has never heard of and plans for it."""
    router = Router(load_router_config(REPO_ROOT / "config" / "router.yaml", known_kbs=("mine",)))
    for query in ("Compare A320 vs B737 fuel burn in 2023", "Show open orders from the last week",
                  "What triggers error code E4027?", "2025 年第二季度缺陷关闭率是多少？"):
        plan = router.run(perceive(query))
        assert plan.tasks and {t.kb for t in plan.tasks} == {"mine"}


def test_the_named_kb_examples_are_valid_rules_for_the_demo(perceive):
    """config/router.examples.yaml pasted in place of by-doc-type: test reports go to `reports` alone."""
    shipped = yaml.safe_load((REPO_ROOT / "config" / "router.yaml").read_text(encoding="utf-8"))
    examples = yaml.safe_load((REPO_ROOT / "config" / "router.examples.yaml").read_text(encoding="utf-8"))
    shipped["rules"] = examples["rules"] + [r for r in shipped["rules"] if r["name"] != "by-doc-type"]
    router = Router(parse_router_config(shipped, "router.yaml + examples", DEMO_KBS))
    plan = router.run(perceive("查询 2025 年第二季度状态为已关闭的测试报告"))
    assert (plan.tasks[0].kb, plan.tasks[0].rule) == ("reports", "reports-by-doc-type")
    assert [t.kb for t in by_rule(plan, "reports-by-doc-type")] == ["reports"]
    with pytest.raises(ConfigError, match="unknown kb 'reports'"):
        parse_router_config(shipped, "router.yaml + examples", ("mine",))


@pytest.mark.parametrize("query", ["Who handles an invoice that does not match the contract?",
                                   "发票金额与合同不一致由谁处理"])
def test_invoice_mismatch_searches_policies_without_drafts(demo_router, perceive, query):
    plan = demo_router.run(perceive(query))
    policies = [t for t in plan.tasks if t.kb == "policies"]
    assert policies and all("draft" in t.filters.exclude_status for t in policies)


def test_asking_for_a_status_lifts_its_exclusion(demo_router, perceive):
    plan = demo_router.run(perceive("Show me the superseded A320neo manual"))
    assert plan.tasks[0].filters.status == ("superseded",) and plan.tasks[0].filters.doc_type == ("manual",)
    assert all("superseded" not in t.filters.exclude_status for t in plan.tasks)
    assert all("draft" in t.filters.exclude_status for t in plan.tasks)


def test_fault_codes_get_a_keyword_task(demo_router, perceive):
    plan = demo_router.run(perceive("What triggers error code E4027?"))
    keyword = by_rule(plan, "codes-keyword")
    assert keyword and all(t.search == "keyword" and "E4027" in t.query for t in keyword)


def test_open_orders_last_week(demo_router, perceive):
    t1 = demo_router.run(perceive("Show open orders from the last week")).tasks[0]
    assert (t1.rule, t1.filters.status, t1.filters.doc_type) == ("by-doc-type", ("open",), ("order",))
    assert (t1.filters.time_start, t1.filters.time_end) == (dt.date(2025, 7, 3), dt.date(2025, 7, 10))


def test_a_dated_question_without_doc_type_searches_inside_the_window(demo_router, perceive):
    plan = demo_router.run(perceive("What was the defect closure rate in Q2 2025?"))
    windowed = by_rule(plan, "time-window")
    assert windowed and all((t.filters.time_start, t.filters.time_end) == Q2 for t in windowed)
    assert all(t.filters.time_start is None for t in by_rule(plan, "broad"))


def test_every_task_has_a_rule_and_a_readable_reason(demo_router, perceive):
    for query in ("Compare A320 vs B737 fuel burn in 2023", "List open maintenance tickets", "E4099 meaning?",
                  "How long must maintenance records be kept?", "2025 年第二季度缺陷关闭率是多少？"):
        plan = demo_router.run(perceive(query))
        assert plan.tasks and [t.id for t in plan.tasks] == [f"t{i}" for i in range(1, len(plan.tasks) + 1)]
        assert all(t.reason.startswith(f"rule '{t.rule}': ") and t.reason.endswith(".") for t in plan.tasks)


# --- MultiHop-RAG -------------------------------------------------------------------------

@pytest.mark.parametrize("qid", ["q0003", "q0019", "q0028", "q0031"])
def test_multihop_comparisons_get_one_task_per_outlet(multihop_router, news_agent, multihop_queries, qid):
    query = multihop_queries[qid]
    perception = news_agent.run(query["text"], "2024-01-01")
    plan = multihop_router.run(perception)
    per_source = by_rule(plan, "per-source")
    named = list(dict.fromkeys(perception.constraints.source))
    assert len(named) >= 2
    assert [t.filters.source for t in per_source] == [(s,) for s in named]
    assert {e["source"] for e in query["evidence"]} <= set(named)
    broad = by_rule(plan, "broad")
    assert len(broad) == 1 and broad[0].filters.empty and broad[0].weight < per_source[0].weight


def test_multihop_dated_query_filters_published_at_around_the_date(multihop_router, news_agent, multihop_queries):
    query = multihop_queries["q0017"]  # The Verge ... published on November 1, 2023, and TechCrunch ... later
    plan = multihop_router.run(news_agent.run(query["text"], "2024-01-01"))
    dated = by_rule(plan, "per-source-dated")
    assert [t.filters.source for t in dated] == [("The Verge",), ("TechCrunch",)]
    assert all((t.filters.time_start, t.filters.time_end) == (dt.date(2023, 10, 29), dt.date(2023, 11, 4))
               for t in dated)
    undated = by_rule(plan, "per-source")  # "published later": an unfiltered task per outlet too
    assert [t.filters.source for t in undated] == [("The Verge",), ("TechCrunch",)]
    assert all(t.filters.time_start is None for t in undated)


def test_multihop_named_sources_cover_the_evidence(multihop_router, news_agent, multihop_queries):
    """Over the comparison queries of the dev file, per-source tasks name the evidence's outlets."""
    comparisons = [q for q in multihop_queries.values() if q["question_type"] == "comparison_query"][:200]
    covered = 0
    for query in comparisons:
        plan = multihop_router.run(news_agent.run(query["text"], "2024-01-01"))
        outlets = {s for t in plan.tasks for s in t.filters.source}
        covered += {e["source"] for e in query["evidence"]} <= outlets
        assert by_rule(plan, "broad")
    assert covered / len(comparisons) >= 0.9
