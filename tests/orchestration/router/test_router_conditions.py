"""Each `when:` test against real perceptions, and `unless:`/`enabled:`."""

from __future__ import annotations

import pytest

from core.configfile import Where
from orchestration.router.conditions import parse_condition

WHERE = Where("test.yaml", "rule 'r'", "rules[0].when")

# (condition, a query it holds for, a query it does not hold for)
CASES = [
    ({"always": True}, "anything at all", None),
    ({"action": "compare"}, "Compare A320 vs B737 fuel burn", "What triggers error code E4027?"),
    ({"action": ["explain", "how_to"]}, "What triggers error code E4027?", "List open maintenance tickets"),
    ({"language": "zh"}, "发票金额与合同不一致由谁处理", "Who handles an invoice that does not match the contract?"),
    ({"has": ["time"]}, "Show open orders from the last week", "List open maintenance tickets"),
    ({"has": ["status", "doc_type"]}, "List open maintenance tickets", "What triggers error code E4027?"),
    ({"has": ["entities"]}, "What triggers error code E4027?", "How long must records be kept?"),
    ({"has": ["quantitative"]}, "What was the defect closure rate in Q2 2025?", "What triggers error code E4027?"),
    ({"lacks": ["time"]}, "List open maintenance tickets", "Show open orders from the last week"),
    ({"entities_min": 2}, "Compare A320 vs B737 fuel burn", "What triggers E4027?"),
    ({"entities_min": 2, "entity_labels": ["CODE"]}, "Compare A320 vs B737 fuel burn", "Compare invoice and contract"),
    ({"entity_labels": ["CODE"]}, "What triggers error code E4027?", "Who handles an invoice mismatch?"),
    ({"status": ["closed", "open"]}, "List open maintenance tickets", "Show the superseded A320neo manual"),
    ({"doc_type": ["test_report"]}, "查询 2025 年第二季度状态为已关闭的测试报告", "List open maintenance tickets"),
    ({"text_matches": r"\bpublished\b"}, "Articles PUBLISHED on 1 May 2024", "Articles from May 2024"),
    ({"action": "compare", "has": ["time"]}, "Compare A320 vs B737 fuel burn in 2023",
     "Compare A320 vs B737 fuel burn"),
]


@pytest.mark.parametrize("data, holds, fails", CASES, ids=[str(c[0]) for c in CASES])
def test_condition_holds_and_fails(perceive, data, holds, fails):
    condition = parse_condition(WHERE, data)
    reasons = condition.match(perceive(holds))
    assert reasons and all(isinstance(r, str) and r for r in reasons)
    if fails is not None:
        assert condition.match(perceive(fails)) is None


def test_reasons_quote_what_was_found(perceive):
    condition = parse_condition(WHERE, {"action": "compare", "entities_min": 2, "entity_labels": ["CODE"],
                                        "has": ["time"]})
    reasons = condition.match(perceive("Compare A320 vs B737 fuel burn in 2023"))
    assert reasons == ["the action is compare", "the query has a time window ('2023')",
                       "the query names 2 entities (A320 and B737)"]


def test_entities_are_counted_once_per_normalized_form(perceive):
    condition = parse_condition(WHERE, {"entities_min": 2, "entity_labels": ["CODE"]})
    assert condition.match(perceive("E4027 and again e4027")) is None


def test_unless_and_enabled_skip_rules_with_a_note(build, perceive):
    router = build([
        {"name": "off", "enabled": False, "when": {"always": True}, "emit": [{"kb": "manuals"}]},
        {"name": "not-compare", "when": {"always": True}, "unless": {"action": "compare"},
         "emit": [{"kb": "policies"}]},
        {"name": "on", "when": {"always": True}, "emit": [{"kb": "reports"}]},
    ])
    plan = router.run(perceive("Compare A320 vs B737 fuel burn"))
    assert [t.rule for t in plan.tasks] == ["on"]
    assert "rule 'off' is disabled" in plan.notes
    assert "rule 'not-compare' skipped: unless holds (the action is compare)" in plan.notes
    assert [t.rule for t in router.run(perceive("What triggers E4027?")).tasks] == ["not-compare", "on"]
