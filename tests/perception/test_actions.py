"""Action classification in English and Chinese."""

from __future__ import annotations

from datetime import date

import pytest

NOW = date(2025, 7, 10)


@pytest.mark.parametrize("query, action", [
    ("Compare the A320 and the B737", "compare"),
    ("A320 vs B737 fuel burn", "compare"),
    ("What is the difference between draft and effective policies?", "compare"),
    ("How does the A320 compare with the B737?", "compare"),
    ("A320和B737对比", "compare"),
    ("比较一下两个版本的手册", "compare"),
    ("这两份合同的区别是什么", "compare"),
    ("How do I reset error E4027?", "how_to"),
    ("How can we file a reimbursement?", "how_to"),
    ("Steps to replace the LEAP-1A fan blade", "how_to"),
    ("发票怎么报销", "how_to"),
    ("如何申请采购", "how_to"),
    ("报销流程是什么", "how_to"),
    ("List all open tickets", "list"),
    ("Which ones are overdue?", "list"),
    ("列出所有草稿", "list"),
    ("有哪些生效的制度", "list"),
    ("Summarize the Q2 test reports", "summarize"),
    ("Give me an overview of the incident", "summarize"),
    ("总结一下上个月的工单", "summarize"),
    ("Why did the B737 test fail?", "explain"),
    ("How is error code E4027 triggered?", "explain"),
    ("Explain the warranty terms", "explain"),
    ("为什么发票被退回", "explain"),
    ("What is the warranty period of the A320?", "lookup"),
    ("查询 2025 年第二季度状态为已关闭的测试报告", "lookup"),
    ("", "lookup"),
])
def test_actions(agent, query, action):
    assert agent.run(query, NOW).action == action


@pytest.mark.parametrize("query", [
    "Is the A320 cheaper than the B737?",
    "Is the A320 more efficient than the B737?",
    "Does TechCrunch report a loss, while The Verge reports a gain?",
    "A320比B737更省油吗",
])
def test_comparative_with_two_entities_implies_compare(agent, query):
    p = agent.run(query, NOW)
    assert p.action == "compare"
    assert any(n["rule"] == "action.compare.implicit" for n in p.notes)


@pytest.mark.parametrize("query", ["Is the A320 cheaper than before?", "比例是多少"])
def test_comparative_needs_two_entities(agent, query):
    assert agent.run(query, NOW).action != "compare"


def test_precedence_and_trace(rules_agent):
    p = rules_agent.run("Explain the difference between A320 and B737", NOW)
    assert p.action == "compare"
    note = next(n for n in p.notes if n["rule"].startswith("action."))
    assert note["text"] == "difference between" and "explain" in note["also_seen"]
