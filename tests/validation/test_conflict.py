"""The conflict check: two sources stating the same thing with different values (issue 11).

RGB's counterfactual setting gives the true and an altered version of a fact side by side;
0 of 100 answers were flagged before this check.
"""

from __future__ import annotations

from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Claim
from validation import ISSUE_KINDS, CheckContext, ValidationAgent
from validation.checks import conflict

from .conftest import NOW, answer

TRUE = "The game was played on February 7, 2021, at Raymond James Stadium in Tampa, Florida, the home stadium."
FAKE = "The game was played on February 7, 2021, at Raymond James Stadium in Glendale, Arizona, the home stadium."


def passage(chunk_id: str, text: str, **metadata) -> ScoredChunk:
    return ScoredChunk(chunk_id, "kb", text, chunk_id.split("#")[0], metadata)


def issues_for(claim_text: str, cited: ScoredChunk, evidence: list[ScoredChunk]):
    return conflict.check(None, answer([Claim(f"{claim_text} [1]", [1])], [cited]), evidence, CheckContext(now=NOW))


def test_the_same_statement_with_another_value_is_a_conflict_naming_both_sources():
    true = passage("espn#0", TRUE, source="ESPN", published_at="2021-02-08")
    fake = passage("blog#0", FAKE, source="Blog", published_at="2021-02-07")
    [issue] = issues_for(TRUE, true, [true, fake])
    assert issue.kind == "conflicting_sources" and issue.kind in ISSUE_KINDS["conflict"]
    assert "Tampa, Florida" in issue.detail and "Glendale, Arizona" in issue.detail
    assert "ESPN, 2021-02-08" in issue.detail and "Blog, 2021-02-07" in issue.detail
    assert issue.detail.endswith("prefer 'espn' (ESPN, 2021-02-08) (newer)")
    assert issue.claim is None and issue.chunk_id == "blog#0"


def test_a_drifted_percentage_in_another_report_is_a_conflict():
    a = passage("q2#0", "The defect closure rate in Q2 2025 was 87% across the fleet.")
    b = passage("q2#1", "The defect closure rate in Q2 2025 was 85% across the fleet.")
    assert [i.kind for i in issues_for(a.text, a, [a, b])] == ["conflicting_sources"]


def test_figures_of_another_period_or_thing_are_two_facts_not_a_conflict():
    q1 = passage("q1#0", "The defect closure rate in Q1 2025 was 82% across the fleet.")
    q2 = passage("q2#0", "The defect closure rate in Q2 2025 was 87% across the fleet.")
    assert issues_for(q2.text, q2, [q2, q1]) == []
    a320 = passage("a320#0", "In 2023 the A320neo burns 2,290 kg of fuel per block hour.")
    b737 = passage("b737#0", "In 2023 the B737 burns 2,600 kg of fuel per block hour.")
    assert issues_for(a320.text, a320, [a320, b737]) == []


def test_a_superseded_source_is_the_freshness_checks_business():
    current = passage("manual-2023#0", TRUE, status="effective")
    old = passage("manual-2021#0", FAKE, status="superseded")
    assert issues_for(TRUE, current, [current, old]) == []


def test_a_conflict_makes_the_answer_partial_not_refused():
    from server.status import final_status

    true, fake = passage("espn#0", TRUE), passage("blog#0", FAKE)
    result = answer([Claim(f"{TRUE} [1]", [1])], [true])
    verdict = ValidationAgent(checks=("conflict",)).run(None, result, [true, fake], now=NOW)
    assert not verdict.ok and final_status(result, verdict) == "partial"


def test_the_same_sentence_in_reports_on_different_things_is_not_a_conflict():
    a = ScoredChunk("tr17#0", "reports", "测试状态为已关闭，报告于 2025-06-09 关闭。",
                    "测试报告 TR-2025-017：A320neo 起落架收放测试", {})
    b = ScoredChunk("tr11#0", "reports", "测试状态为已关闭，报告于 2025-04-22 关闭。",
                    "测试报告 TR-2025-011：737 MAX 8 液压系统压力测试", {})
    assert issues_for(a.text, a, [a, b]) == []


def test_the_same_header_line_of_two_numbered_proposals_is_not_a_conflict():
    """Found on the PEPs: "PEP 484 – Type: Standards Track." was flagged as contradicted by
    "PEP 604 – Type: Standards Track." (484 against 604), so "Who wrote PEP 484?" came back partial."""
    a = ScoredChunk("pep-0484#0", "peps", "PEP 484 – Type: Standards Track of the Python language.",
                    "PEP 484 – Type Hints", {"published_at": "2014-09-29"})
    b = ScoredChunk("pep-0604#0", "peps", "PEP 604 – Type: Standards Track of the Python language.",
                    "PEP 604 – Allow writing union types as X | Y", {"published_at": "2019-08-28"})
    assert issues_for(a.text, a, [a, b]) == []
    same = ScoredChunk("pep-0484#3", "peps", "PEP 484 – Type: Informational track of the Python language.",
                       "PEP 484 – Type Hints", {"published_at": "2015-01-01"})
    assert [i.kind for i in issues_for(a.text, a, [a, same])] == ["conflicting_sources"], "same PEP: still one"
