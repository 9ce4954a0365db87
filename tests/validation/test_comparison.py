"""The comparison check: missing sides, wrong directions, mismatched units, and their hints."""

from __future__ import annotations

import pytest

from orchestration.types import Claim
from validation import ISSUE_KINDS, hints_for
from validation.checks import comparison

from .conftest import A320_2023, A320_2023_ZH, COMPARISON_2023, EVIDENCE, MAX8_2023, answer, rows

COMPARE = "Compare A320 vs B737 fuel burn"
COMPARE_ZH = "比较 A320neo 和 波音737 MAX 8 的油耗"
A320_FACT = Claim("The average cruise fuel burn of the A320neo is 2,290 kg per block hour [1].", [1])
MAX8_FACT = Claim("The average cruise fuel burn of the 737 MAX 8 is 2,360 kg per block hour [2].", [2])
ONLY_A320 = [c for c in EVIDENCE if "737" not in c.text and "737" not in c.title and "波音" not in c.text]


def values(a: float, b: float, unit_a: str = "kg/h", unit_b: str = "kg/h") -> dict:
    return {"A320neo": {"value": a, "unit": unit_a, "n": 1}, "737 MAX 8": {"value": b, "unit": unit_b, "n": 2}}


def relation(relation_: str, vals: dict) -> Claim:
    return Claim("The A320neo burns less fuel per hour than the 737 MAX 8 [1][2].", [1, 2], kind="relation",
                 values=vals, relation=relation_)


def kinds(issues) -> list[str]:
    return [i.kind for i in issues]


@pytest.mark.parametrize("evidence", [ONLY_A320, EVIDENCE], ids=["side-not-retrieved", "side-not-cited"])
def test_missing_side(evidence, perceive, context):
    perception = perceive(COMPARE)
    issues = comparison.check(perception, answer([A320_FACT], [A320_2023]), evidence, context)
    assert kinds(issues) == ["missing_side"] and issues[0].entity == "B737"
    assert ("not cited" in issues[0].detail) == (evidence is EVIDENCE)
    hints = hints_for(issues, perception, evidence, context)
    assert [(h.action, h.params(), h.reason) for h in hints] == [
        ("add_entity_task", {"entity": "B737"}, "missing_side")]


def test_both_sides_covered(perceive, context):
    fixed = answer([A320_FACT, MAX8_FACT], [A320_2023, MAX8_2023])
    assert comparison.check(perceive(COMPARE), fixed, EVIDENCE, context) == []


def test_a_cited_chunk_covering_both_sides_is_enough(perceive, context):
    claim = Claim("In 2023, the A320neo burns 2,290 kg of fuel per block hour [1].", [1])
    assert comparison.check(perceive(COMPARE), answer([claim], [COMPARISON_2023]), EVIDENCE, context) == []


def test_missing_side_in_chinese(perceive, context):
    perception = perceive(COMPARE_ZH)
    claim = Claim("2023 修订版中，A320neo 平均巡航油耗为每轮挡小时 2,290 公斤 [1]。", [1])
    issues = comparison.check(perception, answer([claim], [A320_2023_ZH], "zh"), ONLY_A320, context)
    assert set(kinds(issues)) == {"missing_side"}
    assert {"737 MAX 8"} <= {i.entity for i in issues}


def test_notice_claims_do_not_cover_a_side(perceive, context):
    notice = Claim("No figure for the B737 was found.", [], kind="notice")
    issues = comparison.check(perceive(COMPARE), answer([A320_FACT, notice], [A320_2023]), ONLY_A320, context)
    assert kinds(issues) == ["missing_side"]


@pytest.mark.parametrize("query", ["What is the A320neo fuel burn per hour?", "Compare A320neo fuel burn"])
def test_sides_are_only_checked_for_comparisons_of_two(query, perceive, context):
    assert comparison.check(perceive(query), answer([A320_FACT], [A320_2023]), EVIDENCE, context) == []


@pytest.mark.parametrize("relation_, a, b, wrong", [
    ("higher", 2290, 2360, True),
    ("lower", 2290, 2360, False),
    ("lower", 2360, 2290, True),
    ("higher", 2360, 2290, False),
    ("same", 2290, 2360, True),
    ("same", 2290, 2290.0, False),
    ("earlier", "2023-03-15", "2023-05-22", False),
    ("later", "2023-03-15", "2023-05-22", True),
])
def test_direction(relation_, a, b, wrong, perceive, context):
    unit = None if isinstance(a, str) else "kg/h"
    result = answer([relation(relation_, values(a, b, unit, unit))], [A320_2023, MAX8_2023])
    issues = comparison.check(perceive(COMPARE), result, EVIDENCE, context)
    assert kinds(issues) == (["wrong_direction"] if wrong else [])
    if wrong:
        assert issues[0].claim == 0
        hints = hints_for(issues, None, EVIDENCE, context, result.claims)
        assert rows(hints, result.claims) == [("drop_claim", {"claim": 0}, "wrong_direction")]


def test_unit_mismatch(perceive, context):
    bad = answer([A320_FACT, MAX8_FACT, relation("lower", values(2290, 13.3, "kg/h", "kg/seat/h"))],
                 [A320_2023, MAX8_2023])
    issues = comparison.check(perceive(COMPARE), bad, EVIDENCE, context)
    assert kinds(issues) == ["unit_mismatch"] and issues[0].claim == 2
    assert "kg/seat/h" in issues[0].detail
    hints = hints_for(issues, None, EVIDENCE, context, bad.claims)
    assert rows(hints, bad.claims) == [("drop_claim", {"claim": 2}, "unit_mismatch")]
    fixed = answer([A320_FACT, MAX8_FACT, relation("lower", values(12.7, 13.3, "kg/seat/h", "kg/seat/h"))],
                   [A320_2023, MAX8_2023])
    assert comparison.check(perceive(COMPARE), fixed, EVIDENCE, context) == []


def test_equivalent_unit_spellings_match(perceive, context):
    result = answer([relation("lower", values(2290, 2360, "kg/h", None))], [A320_2023, MAX8_2023])
    pct = answer([relation("lower", values(82, 87, "percent", "%"))], [A320_2023, MAX8_2023])
    assert comparison.check(perceive(COMPARE), result, EVIDENCE, context) == []
    assert comparison.check(perceive(COMPARE), pct, EVIDENCE, context) == []


def test_relations_are_checked_whatever_the_action(perceive, context):
    bad = answer([relation("higher", values(2290, 2360))], [A320_2023, MAX8_2023])
    issues = comparison.check(perceive("What is the A320neo fuel burn per hour?"), bad, EVIDENCE, context)
    assert kinds(issues) == ["wrong_direction"]
    assert all(i.check == "comparison" and i.kind in ISSUE_KINDS["comparison"] for i in issues)


@pytest.mark.parametrize("vals", [{}, {"A320neo": {"value": 2290}}, values("n/a", 2360)])
def test_relations_that_cannot_be_judged_are_left_alone(vals, perceive, context):
    result = answer([relation("higher", vals)], [A320_2023, MAX8_2023])
    assert comparison.check(perceive(COMPARE), result, EVIDENCE, context) == []
