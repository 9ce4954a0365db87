"""Keywords for the keyword arm."""

from __future__ import annotations

from datetime import date

import pytest

NOW = date(2025, 7, 10)


@pytest.mark.parametrize("query, expected", [
    ("Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.",
     ["fuel efficiency", "A320", "B737"]),
    ("How is error code E4027 triggered?", ["error code", "E4027", "triggered"]),
    ("What did TechCrunch say about battery recalls in Q2 2025?", ["say", "battery", "recalls"]),
    ("项目验收时发现发票金额和合同不一致，应该找哪个部门处理，流程是什么？",
     ["项目", "验收", "发票", "金额", "合同", "一致", "部门"]),
    ("最近一周有哪些未完成的订单", ["未完成", "订单"]),
])
def test_keywords(rules_agent, query, expected):
    assert rules_agent.run(query, NOW).keywords == expected


def test_keywords_drop_time_sources_and_stopwords(rules_agent):
    kws = rules_agent.run("Did The Verge report on the LEAP-1A engine after October 30, 2023?", NOW).keywords
    assert kws == ["LEAP-1A", "engine"]


def test_keywords_are_unique_and_ordered(rules_agent):
    assert rules_agent.run("battery battery Battery life", NOW).keywords == ["battery", "life"]
