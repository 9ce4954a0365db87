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


# --- comparisons between named things (comparatives, "X or Y" which-questions) -----------------

@pytest.mark.parametrize("query, names", [
    ("Which burns less fuel per seat in 2023, A320neo or 737 MAX 8?", {"A320NEO", "737 MAX 8"}),
    ("A320neo 和 737 MAX 8 哪个油耗更低？", {"A320NEO", "737 MAX 8"}),
    ("Is the A320neo more fuel efficient than the 737 MAX 8?", {"A320NEO", "737 MAX 8"}),
    ("Does the Boeing 737 MAX 8 burn less fuel than the Airbus A320neo?", {"737 MAX 8", "A320NEO"}),
    ("Which has the lowest cabin noise, the A350-900 or the 777X?", {"A350-900", "777X"}),
    ("Which is cheaper to run: Model 3 or Model Y?", {"Model 3", "Model Y"}),
    ("iPhone 15 Pro 还是 Pixel 8 的续航更长？", {"iPhone 15 Pro", "Pixel 8"}),
    ("Which of the A320neo and the 737-800 has fewer seats?", {"A320NEO", "737-800"}),
    ("Does Airbus deliver more jets per month than Boeing?", {"Airbus", "Boeing"}),
    ("737 MAX 8 与 A320neo 哪个航程远", {"737 MAX 8", "A320NEO"}),
])
def test_comparisons_between_named_things(agent, query, names):
    p = agent.run(query, NOW)
    assert p.action == "compare"
    assert names <= {e.normalized for e in p.entities}


@pytest.mark.parametrize("query", [
    "Did Boeing deliver more than 100 737 MAX 8 jets in 2023?",        # a threshold
    "Is the Boeing 737 MAX 8 safer than before?",                       # one product, its maker
    "Which airlines fly the A320neo and the 737-800?",                  # a list, not alternatives
    "Which engines power the A320neo? Is it the LEAP-1A?",
    "Was the A320neo more popular in 2023?",
    "Who is associated with Airbus and Boeing, according to the report?",
])
def test_not_comparisons(agent, query):
    assert agent.run(query, NOW).action != "compare"


@pytest.mark.parametrize("query, rule", [
    ("Which burns less fuel, A320neo or 737 MAX 8?", "action.compare.alternatives"),
    ("Does the A320neo burn fewer litres per seat during cruise, compared to the B737?", "action.compare"),
    ("Does the A320neo burn less fuel per seat in cruise, in a way the 737 MAX 8 does not?",
     "action.compare.comparative"),
])
def test_comparison_trace(rules_agent, query, rule):
    p = rules_agent.run(query, NOW)
    note = next(n for n in p.notes if n["rule"].startswith("action."))
    assert p.action == "compare" and note["rule"].startswith(rule)
    s, e = note["span"]
    assert query[s:e] == note["text"]
