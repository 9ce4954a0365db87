"""Retry adjustments: each kind, and the retry table that allows or ignores them."""

from __future__ import annotations

import datetime as dt

import pytest

from orchestration.router.adjust import (
    SUGGESTED,
    AddEntityTask,
    DropClaims,
    ExcludeChunks,
    ExcludeStatus,
    NarrowWindow,
    RelaxFilters,
    Widen,
)

# everything validation suggests, except exclude_chunk for missing_citation (to see a disallowed hint skipped)
ALL_ALLOWED = {kind: [a for a in actions if (kind, a) != ("missing_citation", "exclude_chunk")]
               for kind, actions in SUGGESTED.items()}
COMPARE = {"name": "compare", "when": {"action": "compare"},
           "emit": [{"kb": "manuals", "for_each": "entity", "entity_labels": ["CODE"], "query": "{entity} {topic}",
                     "priority": 2, "top_k": 6, "filters": {"time": "perception", "exclude_status": ["draft"]}}]}
PERCEIVED = {"name": "perceived", "when": {"always": True},
             "emit": [{"kb": "reports", "top_k": 10, "filters": {
                 "time": "perception", "status": "perception", "doc_type": "perception", "source": ["QA"]}}]}


@pytest.fixture(scope="module")
def router(build):
    return build([COMPARE, PERCEIVED], retry=ALL_ALLOWED, limits={"candidates_per_task": 25})


def test_add_entity_task_searches_each_kb_for_the_missing_entity(router, perceive):
    p = perceive("Compare A320 vs B737 fuel burn in 2023")
    plan = router.run(p, hints=[AddEntityTask(reason="missing_side", entity="737 MAX 8")], attempt=1)
    added = [t for t in plan.tasks if t.rule == "retry:missing_side"]
    assert [(t.kb, t.query, t.entity, t.top_k) for t in added] == [
        ("manuals", "737 MAX 8 fuel burn", "737 MAX 8", 12), ("reports", "737 MAX 8 fuel burn", "737 MAX 8", 20)]
    assert plan.tasks[:2] == added  # retry tasks outrank the rules' tasks
    assert added[1].filters.time_start == dt.date(2023, 1, 1) and added[1].filters.status == ()
    assert added[0].reason.startswith("rule 'retry:missing_side': validation found no evidence for 737 MAX 8")
    assert plan.notes[0] == f"attempt 1; config {router.config.version}"


def test_add_time_filter_intersects_and_can_target_one_kb(router, perceive):
    p = perceive("Compare A320 vs B737 fuel burn in 2023")
    plan = router.run(p, hints=[NarrowWindow(reason="outside_window", start=dt.date(2023, 6, 1))])
    assert ({(t.filters.time_start, t.filters.time_end) for t in plan.tasks}
            == {(dt.date(2023, 6, 1), dt.date(2023, 12, 31))})
    assert all(t.rule == "retry:outside_window" and "Retry (outside_window): limited to documents dated 2023-06-01"
               in t.reason for t in plan.tasks)
    plan = router.run(perceive("How long must records be kept?"),
                      hints=[NarrowWindow(reason="too_old", start=dt.date(2024, 7, 10), kb="manuals")])
    assert [(t.kb, t.filters.time_start) for t in plan.tasks] == [("reports", None)]
    plan = router.run(p, hints=[NarrowWindow(reason="too_old", start=dt.date(2024, 7, 10))])
    assert all(t.filters.time_end == dt.date(2023, 12, 31) for t in plan.tasks)  # no overlap: kept
    assert any("does not overlap" in n for n in plan.notes)


def test_exclude_status_adds_to_every_task(router, perceive):
    plan = router.run(perceive("Compare A320 vs B737 fuel burn"),
                      hints=[ExcludeStatus(reason="stale_status", values=("superseded",))])
    assert {t.filters.exclude_status for t in plan.tasks} == {("draft", "superseded"), ("superseded",)}


def test_exclude_chunk_is_for_the_executor(router, perceive):
    hints = [ExcludeChunks(reason="unsupported_number", chunk_ids=("manuals-a320neo-perf-2021#0",)),
             ExcludeChunks(reason="missing_citation", chunk_ids=("not-allowed#1",))]
    p = perceive("Compare A320 vs B737 fuel burn")
    plan = router.run(p, hints=hints)
    assert plan.tasks == router.run(p).tasks
    assert plan.excluded_chunks == ["manuals-a320neo-perf-2021#0"]  # the second is not allowed for its kind
    assert any("chunk(s) manuals-a320neo-perf-2021#0 excluded" in n for n in plan.notes)


def test_drop_claims_changes_no_task_and_reaches_the_composer_through_the_plan(router, perceive):
    p = perceive("What triggers E4027?")
    dropped = ("E4027 is raised when the bleed valve fails to close.", "Reset the breaker.")
    plan = router.run(p, hints=[DropClaims(reason="unsupported_number", claims=dropped),
                                DropClaims(reason="unsupported_number", claims=dropped[:1])])
    assert plan.tasks == router.run(p).tasks and any("2 claim(s) not to be composed again" in n for n in plan.notes)
    assert plan.dropped_claims == list(dropped) and plan.to_dict()["dropped_claims"] == list(dropped)


def test_widen_multiplies_top_k_within_the_limit(router, perceive):
    plan = router.run(perceive("Compare A320 vs B737 fuel burn"), hints=[Widen(reason="no_evidence", factor=2)])
    assert [t.top_k for t in plan.tasks] == [12, 12, 20]
    plan = router.run(perceive("Compare A320 vs B737 fuel burn"), hints=[Widen(reason="no_evidence", factor=4)])
    assert [t.top_k for t in plan.tasks] == [24, 24, 25]
    plan = router.run(perceive("Compare A320 vs B737"), hints=[Widen(reason="no_evidence", factor=1)])
    assert [t.top_k for t in plan.tasks] == [6, 6, 10] and any("widen needs a factor > 1" in n for n in plan.notes)


def test_relax_filters_drops_only_perceived_status_and_doc_type(router, perceive):
    p = perceive("查询 2025 年第二季度状态为已关闭的测试报告")
    before = router.run(p).tasks[0].filters
    after = router.run(p, hints=[RelaxFilters(reason="no_evidence")]).tasks[0]
    assert (before.status, before.doc_type) == (("closed",), ("test_report",))
    assert (after.filters.status, after.filters.doc_type) == ((), ())
    assert (after.filters.time_start, after.filters.source) == (before.time_start, ("QA",))
    assert after.rule == "retry:no_evidence" and "dropped the status and doc_type filter" in after.reason


def test_request_filters_survive_relax_filters(router, perceive):
    p = perceive("查询 2025 年第二季度状态为已关闭的测试报告")
    plan = router.run(p, hints=[RelaxFilters(reason="no_evidence")], overrides={"filters": {"status": "closed"}})
    assert plan.tasks[0].filters.status == ("closed",)


def test_retry_table_allow_list(build, perceive):
    router = build([PERCEIVED], retry={"no_evidence": ["widen"], "missing_side": []})
    p = perceive("List open maintenance tickets")
    plan = router.run(p, hints=[Widen(reason="no_evidence", factor=3),
                                RelaxFilters(reason="no_evidence"),
                                AddEntityTask(reason="missing_side", entity="E4027"),
                                Widen(reason="too_old", factor=3)])
    assert [(t.top_k, t.filters.status) for t in plan.tasks] == [(30, ("open",))]
    assert ("retry:no_evidence: relax_filters skipped; the retry table allows widen for no_evidence"
            in plan.notes)
    assert ("retry:missing_side: add_entity_task skipped; the retry table allows none for missing_side"
            in plan.notes)
    assert any(n.startswith("retry:too_old: widen skipped") for n in plan.notes)
    assert router.run(p, hints=[ExcludeChunks(reason="no_evidence", chunk_ids=("x",))]).excluded_chunks == []


def test_empty_adjustments_are_skipped_with_a_note(router, perceive):
    p = perceive("Compare A320 vs B737 fuel burn in 2023")
    hints = [AddEntityTask(reason="missing_side", entity=" "), NarrowWindow(reason="outside_window"),
             ExcludeStatus(reason="stale_status", values=("",)), Widen(reason="no_evidence", factor=0.5)]
    plan = router.run(p, hints=hints)
    assert plan.tasks == router.run(p).tasks
    assert sum("skipped" in n for n in plan.notes) == 4


def test_equal_adjustments_are_equal_values():
    """The loop accumulates adjustments across attempts without repeats: equality is by value."""
    assert NarrowWindow(reason="too_old", start=dt.date(2024, 1, 1), kb="manuals") == NarrowWindow(
        reason="too_old", start=dt.date(2024, 1, 1), kb="manuals")
    assert len({Widen(reason="no_evidence", factor=2), Widen(reason="no_evidence", factor=2.0)}) == 1
    assert NarrowWindow(reason="too_old", start=dt.date(2024, 1, 1)).to_dict() == {
        "action": "add_time_filter", "reason": "too_old", "params": {"start": "2024-01-01", "end": None, "kb": None}}
