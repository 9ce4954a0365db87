"""The asked-for slot: what kind of fact would answer a query (perception/slots.py)."""

from __future__ import annotations

import pytest

from core.vocab import SLOTS
from perception.slots import asked_slot, slot_head


@pytest.mark.parametrize("query, action, slot", [
    ("Compare A320 vs B737 fuel burn", "compare", "relation"),
    ("How do I reset E4027?", "how_to", "procedure"),
    ("What is the reimbursement process?", "lookup", "procedure"),
    ("How long must records be kept?", "lookup", "duration"),
    ("How often is a new Python feature version released?", "lookup", "duration"),  # a period
    ("How much is the monthly internet reimbursement?", "lookup", "amount"),
    ("What is the fee for late filing?", "lookup", "amount"),
    ("What was Tesla's revenue in Q1 2021?", "lookup", "amount"),  # a company's figures are amounts
    ("What is the release date of Cyberpunk 2077?", "lookup", "date"),
    ("In which Python version will tomllib be removed?", "lookup", "number"),  # a version number
    ("How many seats does the A320neo have?", "lookup", "number"),
    ("What maximum line length does PEP 8 recommend?", "lookup", "number"),
    ("When does the iPhone 11 release?", "lookup", "date"),
    ("What year was PEP 484 created?", "lookup", "date"),
    ("Who acquired WhatsApp?", "lookup", "actor"),
    ("Who approves the budget?", "lookup", "actor"),  # a money word in an actor question
    ("Which company makes the LEAP-1A engine?", "lookup", "actor"),
    ("Where is the Super Bowl 2021 played?", "lookup", "place"),
    ("Was PEP 3103 accepted?", "lookup", "yes_no"),
    ("What is a decorator?", "lookup", "definition"),
    # a setting's value, not what the thing is: "the default retention period is 15 days" answers it
    ("What is the default retention period?", "lookup", "duration"),
    ("What is the session timeout?", "lookup", "duration"),
    ("What is the default port?", "lookup", "fact"),
    ("What is the current version?", "lookup", "fact"),
    ("What is the A320neo fuel burn per hour?", "lookup", "fact"),  # a long 'what is': not a definition
    ("What triggers E4027?", "explain", "fact"),
    ("项目验收时发现发票金额和合同不一致，应该由谁处理？", "lookup", "actor"),  # 金额 is context, 谁 asks
    ("报销标准是多少？", "lookup", "amount"),
    ("2025年第二季度缺陷关闭率是多少？", "lookup", "number"),
    ("发票金额与合同不一致怎么办？", "how_to", "procedure"),
    ("故障记录需要保存多久？", "lookup", "duration"),
    ("该政策是什么时候生效的？", "lookup", "date"),
    ("这份报告是否已经关闭？", "lookup", "yes_no"),
    ("List open maintenance tickets", "list", "list"),
])
def test_slot_table(query, action, slot):
    found, rule = asked_slot(query, action)
    assert (found, found in SLOTS) == (slot, True), rule


def test_the_quantitative_flag_asks_for_a_number_when_no_pattern_decides():
    assert asked_slot("Fuel burn of the A320neo", "lookup", quantitative=True) == ("number", "constraint=quantitative")
    assert asked_slot("Fuel burn of the A320neo", "lookup") == ("fact", "default")


def test_perception_carries_the_slot_and_says_which_rule_decided(rules_agent):
    perception = rules_agent.run("Who acquired WhatsApp?", "2025-07-10")
    assert perception.slot == "actor" and perception.to_dict()["slot"] == "actor"
    assert {"rule": "slot.pattern:actor", "text": "Who acquired WhatsApp?",
            "produced": {"slot": "actor", "kind": "actor", "head": "acquired"}} in perception.notes
    assert perception.slot_head == "acquired" and perception.to_dict()["slot_head"] == "acquired"
    assert type(perception).from_dict(perception.to_dict()) == perception


@pytest.mark.parametrize("query, head", [
    ("Who won the women's singles Wimbledon in 2019?", "won"),
    ("Who acquired 20th Century Fox?", "acquired"),
    ("Who is the director of the Avatar movie?", "director"),
    ("Who is the CEO of Tesla in 2021?", "ceo"),              # a capitalised role before "of"
    ("Who is the Heisman Trophy winner in 2012?", "winner"),   # names are skipped
    ("Who was awarded the 2019 Nobel Prize in Literature?", "awarded"),
    ("Who approves purchase orders above 50,000 EUR?", "approves"),
    ("When was xenoblade chronicles X released in Japan?", "released"),
    ("When was PEP 8 created?", "created"),
    ("What is the release date of Cyberpunk 2077?", "release"),
    ("How many ballots were cast in the January 2019 steering council election?", "ballots"),
    ("How long must fault code logs be kept?", "kept"),
    ("What is the monthly internet reimbursement?", "reimbursement"),   # a compound's last word
    ("Who is the release manager for Python 3.16?", "manager"),          # "release" is no verb here
    ("How many PEPs has Guido van Rossum written?", "written"),          # the verb after the subject
    ("In which Python version will tomllib be removed?", "removed"),
    ("What is the maximum number of threads the free-threaded CPython build can run?", "threads"),
    ("which city hosted the olympic games in 2012?", "hosted"),
    # none read: the noun restates the slot, a multi-part question, a definition, Chinese
    ("What is the date of the 2020 NBA Draft?", ""),
    ("Where is the settings file located on Windows?", ""),   # "located" only restates "where"
    ("Where is Acme's support team based?", ""),
    ("What was Tesla's revenue in Q1 2021?", "revenue"),   # an amount
    ("Who wrote the report, and when was it published?", ""),
    ("What is a wheel?", ""),
    ("谁收购了WhatsApp？", "收购"),                     # Chinese: the last word before the asking tail
    ("电影《四海》的导演是谁", "导演"),
    ("2021年北京大兴机场年旅客吞吐量", "吞吐量"),
    ("印控克什米尔地区寺庙踩踏事故死亡人数", "死亡"),   # 人数 only restates the slot
])
def test_slot_head_is_the_word_the_asked_fact_attaches_to(query, head):
    slot, _ = asked_slot(query, "lookup")
    assert slot_head(query, slot) == head


@pytest.mark.parametrize("query, slot", [
    ("How much Saharan dust falls over the Amazon basin each year?", "amount"),   # was "over"
    ("What is the total make up of fish species living in the Amazon?", "number"),  # was "up"
])
def test_a_preposition_or_particle_is_never_the_head(query, slot):
    # a head the answer must carry: "over" would pass any sentence with the word and refuse one
    # stating "27.7 million tons" without it
    assert slot_head(query, slot) == ""
