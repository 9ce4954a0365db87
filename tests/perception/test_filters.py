"""Status, document type and quantitative intent."""

from __future__ import annotations

from datetime import date

import pytest

NOW = date(2025, 7, 10)


@pytest.mark.parametrize("query, status", [
    ("状态为已关闭的工单", ["closed"]),
    ("closed tickets from last week", ["closed"]),
    ("tickets that are still open", ["open"]),
    ("status: open", ["open"]),
    ("open orders", ["open"]),
    ("未完成的订单", ["open"]),
    ("进行中的项目", ["open"]),
    ("draft policies", ["draft"]),
    ("草稿", ["draft"]),
    ("regulations currently in force", ["effective"]),
    ("effective regulations", ["effective"]),
    ("生效的制度", ["effective"]),
    ("superseded manuals", ["superseded"]),
    ("已废止的法规", ["superseded"]),
    ("expired contracts", ["expired"]),
    ("已过期的合同", ["expired"]),
    ("closed and open tickets", ["closed", "open"]),
])
def test_status(agent, query, status):
    assert agent.run(query, NOW).constraints.status == status


@pytest.mark.parametrize("query", [
    "Is open source software allowed?",
    "The store was closed on Monday",
    "an effective treatment for headaches",
    "the NFL draft picks",
    "He replaced the coach",
    "outstanding performance by the team",
])
def test_no_status_from_ordinary_words(agent, query):
    assert agent.run(query, NOW).constraints.status == []


@pytest.mark.parametrize("query, doc_type", [
    ("测试报告", ["test_report"]),
    ("test reports from Q2", ["test_report"]),
    ("safety regulations", ["regulation"]),
    ("法规", ["regulation"]),
    ("the maintenance manual", ["manual"]),
    ("操作手册", ["manual"]),
    ("company policy on travel", ["policy"]),
    ("报销制度", ["policy"]),
    ("purchase orders", ["order"]),
    ("订单", ["order"]),
    ("support tickets", ["ticket"]),
    ("工单", ["ticket"]),
    ("news articles about Airbus", ["news"]),
    ("annual report 2023", ["report"]),
    ("installation guide", ["guide"]),
    ("测试报告和操作手册", ["test_report", "manual"]),
])
def test_doc_type(agent, query, doc_type):
    assert agent.run(query, NOW).constraints.doc_type == doc_type


@pytest.mark.parametrize("query", ["in order to save fuel", "an executive order", "the order of events"])
def test_no_doc_type_from_ordinary_words(agent, query):
    assert agent.run(query, NOW).constraints.doc_type == []


@pytest.mark.parametrize("query, quantitative", [
    ("How many tickets are open?", True),
    ("How much did the A320 cost?", True),
    ("What is the failure rate?", True),
    ("percentage of closed orders", True),
    ("Which supplier has the highest price?", True),
    ("A 5% increase", True),
    ("有多少未完成的订单", True),
    ("合格比例", True),
    ("最高的温度", True),
    ("How do I reset the device?", False),
    ("at least one ticket", False),
    ("发票怎么报销", False),
])
def test_quantitative(agent, query, quantitative):
    assert agent.run(query, NOW).constraints.quantitative is quantitative


# Issue 34, item 5c: a status word and a document noun with modifier nouns between them ("the
# draft invoice policy", "the effective data retention regulation"). The status binds across up
# to three such words (never across a function word), and "policy", not a doc type on its own
# ("monetary policy"), is one when a status qualifies it.
@pytest.mark.parametrize("query, status, doc_type", [
    ("Show me the draft invoice policy", ["draft"], ["policy"]),
    ("Which superseded travel policies exist?", ["superseded"], ["policy"]),
    ("Summarize the effective data retention regulation", ["effective"], ["regulation"]),
    ("List the expired vendor security policies", ["expired"], ["policy"]),
    ("Find the draft remote work policy", ["draft"], ["policy"]),
    ("Show the active data protection regulations", ["effective"], ["regulation"]),
    ("Which closed customer support tickets mention refunds?", ["closed"], ["ticket"]),
    ("Are there open purchase requests from finance?", ["open"], []),
    ("travel policies that are superseded", ["superseded"], ["policy"]),
    ("the expense policy currently in force", ["effective"], ["policy"]),
])
def test_a_status_qualifies_a_document_noun_across_modifier_nouns(agent, query, status, doc_type):
    constraints = agent.run(query, NOW).constraints
    assert (constraints.status, constraints.doc_type) == (status, doc_type)


@pytest.mark.parametrize("query", [
    "What did the Fed say about monetary policy?",
    "What is the refund policy?",
    "How did the travel policy change?",
])
def test_policy_without_a_status_is_no_doc_type(agent, query):
    assert agent.run(query, NOW).constraints.doc_type == []


@pytest.mark.parametrize("query", ["I need to draft a policy", "open the door to the manual",
                                   "Who replaced the head of the documents team?"])
def test_a_status_word_does_not_bind_across_a_function_word(agent, query):
    assert agent.run(query, NOW).constraints.status == []
