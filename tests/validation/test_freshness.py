"""The freshness check: stale, draft, expired, out-of-window and too-old sources, and their hints."""

from __future__ import annotations

import datetime as dt

import pytest

from orchestration.types import Claim
from validation import ISSUE_KINDS, CheckContext, hints_for
from validation.checks import freshness

from .conftest import (
    A320_2021,
    A320_2023,
    EVIDENCE,
    INVOICE_2024,
    INVOICE_2025_DRAFT,
    NOW,
    ORDER_0688,
    ORDER_0705,
    TRAVEL_2021,
    TRAVEL_2023,
    answer,
)

FUEL = "What is the A320neo fuel burn per hour?"
INVOICE = "Who handles invoice and contract mismatches?"


def cite(source, text: str = "It says so [1].") -> list:
    """A one-claim answer citing `source`."""
    return answer([Claim(text, [1])], [source])


def kinds(issues) -> list[str]:
    return [i.kind for i in issues]


@pytest.mark.parametrize("query, stale, current, status", [
    (FUEL, A320_2021, A320_2023, "superseded"),
    (INVOICE, INVOICE_2025_DRAFT, INVOICE_2024, "draft"),
    ("When is business class allowed on business travel?", TRAVEL_2021, TRAVEL_2023, "expired"),
], ids=["superseded", "draft", "expired"])
def test_stale_source_is_flagged_and_the_current_one_is_not(query, stale, current, status, perceive, context):
    perception = perceive(query)
    issues = freshness.check(perception, cite(stale), EVIDENCE, context)
    assert kinds(issues) == ["stale_status"]
    assert issues[0].chunk_id == stale.chunk_id and status in issues[0].detail
    hints = [(h.action, h.params(), h.reason) for h in hints_for(issues, perception, EVIDENCE, context)]
    assert hints == [("exclude_status", {"values": [status]}, "stale_status"),
                     ("exclude_chunk", {"chunk_ids": [stale.chunk_id]}, "stale_status")]
    assert freshness.check(perception, cite(current), EVIDENCE, context) == []


def test_a_status_the_query_asks_for_is_not_stale(perceive, context):
    perception = perceive("What does the draft invoice policy propose?")
    assert perception.constraints.status == ["draft"]
    assert freshness.check(perception, cite(INVOICE_2025_DRAFT), EVIDENCE, context) == []


def test_stale_statuses_are_configurable(perceive):
    context = CheckContext(now=NOW, stale_statuses=("draft",))
    assert freshness.check(perceive(FUEL), cite(A320_2021), EVIDENCE, context) == []


def test_outside_window(perceive, context):
    perception = perceive("Which orders were opened in the last week?")  # 2025-07-03 .. 2025-07-10
    issues = freshness.check(perception, cite(ORDER_0688), EVIDENCE, context)  # dated 2025-06-27
    assert kinds(issues) == ["outside_window"] and issues[0].chunk_id == ORDER_0688.chunk_id
    hints = hints_for(issues, perception, EVIDENCE, context)
    assert [(h.action, h.params(), h.reason) for h in hints] == [
        ("add_time_filter", {"start": "2025-07-03", "end": "2025-07-10", "kb": None}, "outside_window")]
    assert freshness.check(perception, cite(ORDER_0705), EVIDENCE, context) == []  # dated 2025-07-04


@pytest.mark.parametrize("query, source, flagged", [
    ("A320neo fuel burn since 2024", A320_2023, True),  # 2023-03-15 < 2024-01-01
    ("A320neo fuel burn since 2023", A320_2023, False),
    ("What is the A320neo fuel burn before 2022?", A320_2023, True),
    ("What is the A320neo fuel burn before 2024?", A320_2023, False),  # open start
], ids=["since-late", "since-ok", "before-late", "before-ok"])
def test_half_open_windows(query, source, flagged, perceive, context):
    issues = freshness.check(perceive(query), cite(source), EVIDENCE, context)
    assert kinds(issues) == (["outside_window"] if flagged else [])


@pytest.mark.parametrize("ages, flagged", [
    ({"manuals": 730}, True),  # 2023-03-15 is 848 days before 2025-07-10
    ({"*": 730}, True),
    ({"manuals": 900}, False),
    ({"manuals": None, "*": 30}, False),
    ({"policies": 30}, False),
    ({}, False),
])
def test_too_old_without_window(ages, flagged, perceive):
    context = CheckContext(now=NOW, max_age_days=ages)
    perception = perceive(FUEL)
    issues = freshness.check(perception, cite(A320_2023), EVIDENCE, context)
    assert kinds(issues) == (["too_old"] if flagged else [])
    if flagged:
        limit = 730
        hints = hints_for(issues, perception, EVIDENCE, context)
        start = (NOW - dt.timedelta(days=limit)).isoformat()
        assert [(h.action, h.params(), h.reason) for h in hints] == [
            ("add_time_filter", {"start": start, "end": None, "kb": "manuals"}, "too_old")]


def test_max_age_is_not_applied_when_the_query_has_a_window(perceive):
    context = CheckContext(now=NOW, max_age_days={"*": 30})
    assert freshness.check(perceive("What is the A320neo fuel burn in 2023?"), cite(A320_2023), EVIDENCE,
                           context) == []


def test_superseded_and_outside_window_together(perceive, context):
    issues = freshness.check(perceive("What is the A320neo fuel burn in 2023?"), cite(A320_2021), EVIDENCE, context)
    assert kinds(issues) == ["outside_window", "stale_status"]
    assert all(i.check == "freshness" and i.kind in ISSUE_KINDS["freshness"] for i in issues)


def test_notice_claims_and_uncited_evidence_are_exempt(perceive, context):
    notice = Claim("A 2025 draft would move this to a Vendor Settlement Office; it is not in force [2].", [2],
                   kind="notice")
    result = answer([Claim("The Contract Management team verifies it [1].", [1]), notice],
                    [INVOICE_2024, INVOICE_2025_DRAFT])
    assert freshness.check(perceive(INVOICE), result, EVIDENCE, context) == []


def test_each_chunk_is_judged_once(perceive, context):
    result = answer([Claim("One [1].", [1]), Claim("Two [1].", [1])], [A320_2021])
    issues = freshness.check(perceive(FUEL), result, EVIDENCE, context)
    assert kinds(issues) == ["stale_status"] and issues[0].claim == 0


def test_without_perception_only_status_and_age_apply():
    context = CheckContext(now=NOW, max_age_days={"*": 3650})
    assert kinds(freshness.check(None, cite(A320_2021), EVIDENCE, context)) == ["stale_status"]


def test_a_current_article_on_the_asked_year_or_day_is_evidence_about_it(perceive, context):
    """MultiHop-RAG: 'previously defeated by Argentina in Sydney in 2020' asks about an event of 2020
    that 2023 articles report; they were flagged outside the window and the answer refused."""
    from orchestration.retrieval.scored import ScoredChunk

    about = ScoredChunk("news#0", "news", "Argentina beat Australia in Sydney in 2020 before the final.",
                        "Final preview", {"published_at": "2023-10-18"})
    other = ScoredChunk("news#1", "news", "Argentina beat Australia in Sydney before the final.",
                        "Final preview", {"published_at": "2023-10-18"})
    perception = perceive("Which team was defeated by Argentina in Sydney in 2020?")
    assert freshness.check(perception, cite(about), [about], context) == []
    assert kinds(freshness.check(perception, cite(other), [other], context)) == ["outside_window"]


def test_a_superseded_document_the_query_names_is_not_stale(perceive, context):
    """PEPs: "Did postponed evaluation of annotations become the default behaviour?" asks about
    PEP 563 ("Postponed Evaluation of Annotations", superseded): each citation of it was flagged
    `stale_status` and the retries filtered it out, the one document that answers. A question
    naming the document by number or by its title's name asks about it, whatever its status."""
    from dataclasses import replace

    pep = replace(A320_2021, chunk_id="pep-0563#0", title="PEP 563 – Postponed Evaluation of Annotations",
                  metadata=dict(A320_2021.metadata, status="superseded"))
    evidence = [pep, *EVIDENCE]
    for query in ("Did postponed evaluation of annotations become the default behaviour?",
                  "What did PEP 563 propose?"):
        assert freshness.check(perceive(query), cite(pep), evidence, context) == [], query
    # another question citing it, or another PEP's number, still finds it stale
    for query in ("How are annotations evaluated?", "What did PEP 649 propose?"):
        assert kinds(freshness.check(perceive(query), cite(pep), evidence, context)) == ["stale_status"], query
    assert freshness.names_document(perceive("Tell me about the A320neo performance manual 2021").question,
                                    A320_2021) is False
