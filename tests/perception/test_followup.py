"""The follow-up rule (perception/followup.py) on the rules-only agent: English and Chinese.

Each case is a conversation's earlier user turns and the new turn, and what a person reading
it understands: the standalone question, and nothing carried when the turn is a question of
its own.
"""

from __future__ import annotations

import pytest

from perception.followup import is_short, resolve, strip_opener

from .conftest import NOW

FUEL = "What is the fuel burn of the A320neo in 2023?"
FUEL_ZH = "2023年A320neo的油耗是多少？"

FOLLOW_UPS = [
    # (earlier turns, new turn, standalone question, trigger)
    ([FUEL], "and the 737 MAX 8?", "What is the fuel burn of the 737 MAX 8 in 2023?", "opener 'and'"),
    ([FUEL], "And the B737?", "What is the fuel burn of the B737 in 2023?", "opener 'And'"),
    ([FUEL], "what about 2021?", "What is the fuel burn of the A320neo in 2021?", "opener 'what about'"),
    ([FUEL], "How about the 737-800?", "What is the fuel burn of the 737-800 in 2023?", "opener 'How about'"),
    ([FUEL], "the 737 MAX 8?", "What is the fuel burn of the 737 MAX 8 in 2023?", "short, no topic of its own"),
    ([FUEL], "and its maintenance intervals?", "its maintenance intervals (A320neo, 2023)?", "opener 'and'"),
    ([FUEL_ZH], "那 737 MAX 8 呢？", "2023年737 MAX 8的油耗是多少？", "opener '那'"),
    ([FUEL_ZH], "B737呢？", "2023年B737的油耗是多少？", "opener '呢'"),
    ([FUEL_ZH], "还有2021年？", "2021年A320neo的油耗是多少？", "opener '还有'"),
    ([FUEL_ZH], "那么 737 MAX 8？", "2023年737 MAX 8的油耗是多少？", "opener '那么'"),
    # a chain: the third turn still carries the first turn's topic and time
    ([FUEL, "and the 737 MAX 8?"], "and the A350?", "What is the fuel burn of the A350 in 2023?", "opener 'and'"),
    # a comparison keeps its other side; the named one replaces the last subject
    (["Compare the fuel burn of the A320neo and the 737 MAX 8 in 2023"], "and the 737-800?",
     "Compare the fuel burn of the A320neo and the 737-800 in 2023", "opener 'and'"),
]

NEW_QUESTIONS = [
    ([FUEL], "What triggers error code E4027?"),      # its own action, subject and topic
    ([FUEL], "thanks"),                                # short, but names nothing
    ([FUEL], "And what triggers error code E4027?"),  # an opener, but nothing to carry
    ([FUEL_ZH], "那个部门负责发票？"),                   # 那个 is "that", not the opener 那
    ([], "and the 737 MAX 8?"),                        # no earlier turn
    (["hello"], "and the 737 MAX 8?"),                 # the earlier turn has no topic or subject
]


@pytest.mark.parametrize(("history", "turn", "standalone", "trigger"), FOLLOW_UPS)
def test_follow_up_turns_read_as_standalone_questions(rules_agent, history, turn, standalone, trigger):
    perception, followup = resolve(rules_agent, turn, history, NOW)
    assert followup is not None
    assert followup.resolved == standalone and perception.query == standalone
    assert followup.trigger == trigger
    assert followup.from_turn == len(history)
    assert perception.notes[0]["rule"] == "followup" and perception.notes[0]["text"] == turn
    alone = rules_agent.run(standalone, NOW)  # perceived as if the user had asked the standalone question
    assert (perception.entities, perception.keywords, perception.action) == (alone.entities, alone.keywords,
                                                                             alone.action)
    assert resolve(rules_agent, turn, history, NOW) == (perception, followup)  # deterministic


@pytest.mark.parametrize(("history", "turn"), NEW_QUESTIONS)
def test_questions_of_their_own_carry_nothing(rules_agent, history, turn):
    perception, followup = resolve(rules_agent, turn, history, NOW)
    assert followup is None
    assert perception == rules_agent.run(turn, NOW)


def test_what_is_carried_and_replaced_is_named_for_the_trace(rules_agent):
    perception, followup = resolve(rules_agent, "and the 737 MAX 8?", ["Hi", FUEL], NOW)
    assert followup is not None
    assert followup.from_turn == 2 and followup.base == FUEL
    assert followup.replaced == {"A320neo": "737 MAX 8"}
    assert followup.carried == {"time": "2023", "topic": ["fuel burn"]}
    assert "user turn 2" in followup.reason and "A320neo -> 737 MAX 8" in followup.reason
    assert [e.text for e in perception.entities if e.label != "TERM"] == ["737 MAX 8"]
    time = perception.constraints.time
    assert time is not None and (time.start.isoformat(), time.end.isoformat()) == ("2023-01-01", "2023-12-31")


def test_a_new_time_replaces_the_old_one_and_the_subject_stays(rules_agent):
    perception, followup = resolve(rules_agent, "what about last year?", [FUEL], NOW)
    assert followup is not None and followup.carried["subjects"] == ["A320neo"]
    time = perception.constraints.time
    assert time is not None and time.start.isoformat() == "2024-01-01"  # NOW is 2025-07-10
    assert "A320neo" in perception.query and "2023" not in perception.query


def test_constraints_the_turn_states_win_over_carried_ones(rules_agent):
    perception, followup = resolve(rules_agent, "how about the draft manuals?", [FUEL], NOW)
    assert followup is not None
    assert perception.constraints.status == ["draft"] and perception.constraints.doc_type == ["manual"]
    assert [e.text for e in perception.entities if e.label == "CODE"] == ["A320neo"]


def test_only_the_last_turns_are_read(rules_agent):
    history = [FUEL] + ["thanks"] * 10
    assert resolve(rules_agent, "and the 737 MAX 8?", history, NOW)[1] is None


@pytest.mark.parametrize(("text", "rest", "opener"), [
    ("and the B737?", "the B737?", "and"), ("What about 2021?", "2021?", "What about"),
    ("Andrew's report?", "Andrew's report?", None), ("and", "and", None),
    ("那 B737 呢？", "B737 呢？", "那"), ("B737呢？", "B737？", "呢"), ("那些报告", "那些报告", None),
])
def test_openers(text, rest, opener):
    assert strip_opener(text) == (rest, opener)


def test_short_is_six_words_or_ten_chinese_units():
    assert is_short("the fuel burn of the B737?") and not is_short("what is the fuel burn of the B737?")
    assert is_short("2023年B737的油耗呢") and not is_short("2023年A320neo的燃油消耗是多少呢？")
