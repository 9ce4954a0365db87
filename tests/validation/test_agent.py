"""The ValidationAgent: configuration, verdicts, hints, timing and determinism."""

from __future__ import annotations

import json

import pytest

from core.errors import ConfigError
from orchestration.types import Claim
from validation import DEFAULT_CHECKS, HINT_RULES, ISSUE_KINDS, CheckContext, Issue, ValidationAgent, hints_for

from .conftest import A320_2021, A320_2023, COMPARISON_2023, EVIDENCE, MAX8_2023, NOW, QUALITY_Q2, answer, rows

COMPARE = "Compare A320 vs B737 fuel burn in 2023"
GOOD = answer([
    Claim("In 2023, the A320neo burns 2,290 kg of fuel per block hour [1].", [1], entity="A320neo"),
    Claim("In 2023, the 737 MAX 8 burns 2,360 kg of fuel per block hour [2].", [2], entity="737 MAX 8"),
    Claim("The A320neo burns less fuel per hour than the 737 MAX 8 [1][2].", [1, 2], kind="relation",
          values={"A320neo": {"value": 2290, "unit": "kg/h", "n": 1},
                  "737 MAX 8": {"value": 2360, "unit": "kg/h", "n": 2}}, relation="lower"),
], [COMPARISON_2023, MAX8_2023])
BAD = answer([
    Claim("In the 2021 revision, the average cruise fuel burn of the A320neo is 2,350 kg per block hour [1].", [1]),
    Claim("The defect closure rate was 85% [2].", [2]),
    Claim("The A320neo burns more fuel per hour than the 737 MAX 8 [1].", [1], kind="relation",
          values={"A320neo": {"value": 2350, "unit": "kg/h"}, "737 MAX 8": {"value": 2360, "unit": "kg/h"}},
          relation="higher"),
    Claim("This answer cites a superseded manual.", [], kind="notice"),
], [A320_2021, QUALITY_Q2])


@pytest.fixture(scope="module")
def agent() -> ValidationAgent:
    agent = ValidationAgent()
    agent.warm_up()
    return agent


def test_a_good_comparison_validates(agent, perceive):
    verdict = agent.run(perceive(COMPARE), GOOD, EVIDENCE, now=NOW)
    assert verdict.ok and verdict.issues == [] and verdict.hints == []
    assert verdict.checks_run == list(DEFAULT_CHECKS)


def test_a_bad_answer_collects_issues_in_check_order(agent, perceive):
    verdict = agent.run(perceive(COMPARE), BAD, EVIDENCE, now=NOW)
    assert not verdict.ok
    found = [(i.check, i.kind, i.claim) for i in verdict.issues]
    assert found == [
        ("citation", "unsupported_number", 1),
        ("citation", "unsupported_number", 2),
        ("freshness", "outside_window", 0),
        ("freshness", "stale_status", 0),
        ("freshness", "outside_window", 1),
        ("comparison", "wrong_direction", 2),
    ]  # both sides are covered: the relation's values name the 737 MAX 8 (B737)
    for issue in verdict.issues:
        assert issue.kind in ISSUE_KINDS[issue.check]
    actions = [(h.action, h.reason) for h in verdict.hints]
    assert actions == [
        ("drop_claim", "unsupported_number"), ("exclude_chunk", "unsupported_number"),
        ("drop_claim", "unsupported_number"), ("exclude_chunk", "unsupported_number"),
        ("add_time_filter", "outside_window"),
        ("exclude_status", "stale_status"), ("exclude_chunk", "stale_status"),
        ("drop_claim", "wrong_direction"),
    ]  # the second window filter repeats the first and is dropped; an equal adjustment for another
    # issue kind stays (the retry table allows adjustments per kind)
    json.dumps(verdict.to_dict())


def test_determinism(agent, perceive):
    first = agent.run(perceive(COMPARE), BAD, EVIDENCE, now=NOW).to_dict()
    for _ in range(3):
        assert agent.run(perceive(COMPARE), BAD, EVIDENCE, now=NOW).to_dict() == first
    assert ValidationAgent().run(perceive(COMPARE), BAD, list(reversed(EVIDENCE)), now=NOW).to_dict() == first


def test_selected_checks_only(perceive):
    verdict = ValidationAgent(checks=("freshness",)).run(perceive(COMPARE), BAD, EVIDENCE, now=NOW)
    assert verdict.checks_run == ["freshness"] and {i.check for i in verdict.issues} == {"freshness"}


def test_run_with_timing(agent, perceive):
    verdict, timing = agent.run_with_timing(perceive(COMPARE), BAD, EVIDENCE, now=NOW)
    assert list(timing) == list(DEFAULT_CHECKS) and all(ms >= 0 for ms in timing.values())
    assert verdict.to_dict() == agent.run(perceive(COMPARE), BAD, EVIDENCE, now=NOW).to_dict()


def test_max_age_from_constructor_and_per_call(perceive):
    perception = perceive("What is the A320neo fuel burn per hour?")
    result = answer([Claim("The A320neo burns 2,290 kg/h [1].", [1])], [A320_2023])
    assert ValidationAgent().run(perception, result, EVIDENCE, now=NOW).ok
    strict = ValidationAgent(max_age_days={"manuals": 365})
    assert [i.kind for i in strict.run(perception, result, EVIDENCE, now=NOW).issues] == ["too_old"]
    assert strict.run(perception, result, EVIDENCE, now=NOW, max_age_days={}).ok


@pytest.mark.parametrize("kwargs, message", [
    ({"checks": ("citation", "spelling")}, r"unknown validation check\(s\) 'spelling'; known: citation, freshness"),
    ({"checks": ("citation", "citation")}, "listed twice"),
    ({"max_age_days": {"manuals": -1}}, r"max_age_days\['manuals'\]"),
    ({"max_age_days": {"manuals": "a year"}}, "whole number of days"),
])
def test_bad_configuration_is_refused(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        ValidationAgent(**kwargs)


def test_every_issue_kind_has_a_hint_rule():
    assert set(HINT_RULES) == {kind for kinds in ISSUE_KINDS.values() for kind in kinds}


@pytest.mark.parametrize("kind, params, expected", [
    ("missing_citation", {"claim": 3}, [("drop_claim", {"claim": 3})]),
    ("missing_citation", {"claim": 9}, []),  # a claim the answer does not have: nothing to drop
    ("invalid_citation", {"claim": 1, "chunk_id": "x#0"},
     [("drop_claim", {"claim": 1}), ("exclude_chunk", {"chunk_ids": ["x#0"]})]),
    ("unsupported_term", {"claim": 0, "chunk_id": "x#0"},
     [("drop_claim", {"claim": 0}), ("exclude_chunk", {"chunk_ids": ["x#0"]})]),
    ("missing_side", {"entity": "B737"}, [("add_entity_task", {"entity": "B737"})]),
    ("outside_window", {"chunk_id": "x#0"}, []),  # no window in the perception: nothing to add
    ("too_old", {"chunk_id": "unknown#0"}, []),  # chunk not in the evidence: no KB, no limit
])
def test_hint_table_rows(kind, params, expected):
    check = next(c for c, kinds in ISSUE_KINDS.items() if kind in kinds)
    issue = Issue(check, kind, "detail", **params)
    claims = [Claim(f"Claim number {i} [1].", [1]) for i in range(4)]
    hints = hints_for([issue], None, EVIDENCE, CheckContext(now=NOW, max_age_days={"*": 10}), claims)
    assert [(action, params) for action, params, _ in rows(hints, claims)] == expected
    assert all(h.reason == kind for h in hints)


def test_hints_are_deduplicated():
    issues = [Issue("citation", "unsupported_number", "d", claim=0, chunk_id="a#0"),
              Issue("citation", "unsupported_date", "d", claim=0, chunk_id="a#0"),
              Issue("freshness", "stale_status", "d", claim=0, chunk_id=A320_2021.chunk_id),
              Issue("freshness", "stale_status", "d", claim=1, chunk_id=A320_2021.chunk_id)]
    claims = [Claim("First [1].", [1]), Claim("Second [1].", [1])]
    hints = hints_for(issues, None, EVIDENCE, CheckContext(now=NOW), claims)
    assert [(h.action, h.reason) for h in hints] == [
        ("drop_claim", "unsupported_number"), ("exclude_chunk", "unsupported_number"),
        ("drop_claim", "unsupported_date"), ("exclude_chunk", "unsupported_date"),
        ("exclude_status", "stale_status"), ("exclude_chunk", "stale_status"),
    ]  # the second stale_status issue asks for what the first did; the retry table allows per kind,
    # so the same change asked for by two kinds stays twice


def test_odd_inputs_are_findings_not_errors(agent, perceive):
    from dataclasses import replace

    odd_chunk = replace(A320_2023, chunk_id="odd#0", metadata={"published_at": "not a date", "status": None})
    odd = answer([Claim("", [0]), Claim("[1]", [1]), Claim("Nothing here [1].", [1], kind="relation",
                                                            values={"a": 5, "b": None}, relation="sideways"),
                  Claim("2,290 kg [1].", [1], numbers=["", "n/a"], values={"x": "y"}, relation="higher")],
                 [odd_chunk])
    # Claim 1 cites [0], which the answer does not have; claims 2-4 cite [1] = odd#0. What cannot be
    # judged (an empty claim, a "sideways" relation, non-numeric values, a date that is not one, no
    # status) is not judged: it neither raises nor becomes a finding.
    bad_zero = ("citation", "invalid_citation", 0, None)
    not_in_evidence = [("citation", "invalid_citation", n, "odd#0") for n in (1, 2, 3)]
    sides = [("comparison", "missing_side", None, None)] * 2  # A320 and B737
    no_evidence = ("evidence", "no_evidence", None, None)
    cases = [
        ("no evidence", [], [bad_zero, *not_in_evidence, *sides, no_evidence]),
        ("the odd chunk", [odd_chunk], [bad_zero, ("comparison", "missing_side", None, None)]),  # names the A320 only
        ("the odd chunk is not in it", EVIDENCE, [bad_zero, *not_in_evidence, *sides, no_evidence]),
    ]
    for case, evidence, expected in cases:
        verdict = agent.run(perceive(COMPARE), odd, evidence, now=NOW)
        found = [(i.check, i.kind, i.claim, i.chunk_id) for i in verdict.issues]
        assert found == expected, case
        assert not verdict.ok
        assert all(i.kind in ISSUE_KINDS[i.check] and i.detail for i in verdict.issues), case
        assert [i.entity for i in verdict.issues if i.kind == "missing_side"] == (
            ["B737"] if evidence == [odd_chunk] else ["A320", "B737"]), case
        assert verdict.hints and all(h.reason in HINT_RULES for h in verdict.hints), case
        data = verdict.to_dict()
        assert json.loads(json.dumps(data)) == data, case  # plain JSON values only
    empty = agent.run(None, answer([], []), [], now=NOW)
    assert [(i.check, i.kind) for i in empty.issues] == [("evidence", "no_evidence")] and not empty.ok
