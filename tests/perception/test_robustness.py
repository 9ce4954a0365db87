"""Property tests: any text gives a well-formed Perception and never raises."""

from __future__ import annotations

import json
from datetime import date

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perception.types import ACTIONS, DOC_TYPE_VALUES, ENTITY_LABELS, STATUS_VALUES, Perception

NOW = date(2025, 7, 10)
PIECES = ["Compare", " A320 ", "和", "B737", " vs ", "2023年", "Q2 2025", "last week", "最近一周", "😀", "🇨🇳",
          "'", '"', "《", "》", "after", " October 30, 2023", "未完成", "订单", "TechCrunch", "\n", "\u200b",
          "The Verge", "-", "/", "2023-10-07T20:07:42+00:00", "between", " and ", "多少", "E4027", "\x00"]


def check(p: Perception, query: str) -> None:
    """Assert the invariants every Perception must satisfy."""
    assert p.query == query
    assert p.language in ("en", "zh")
    assert p.action in ACTIONS
    assert not any(n["rule"] == "perception.error" for n in p.notes), p.notes
    for e in p.entities:
        assert e.label in ENTITY_LABELS and e.origin in ("ner", "rule", "pattern")
        assert 0 <= e.span[0] < e.span[1] <= len(query)
        assert query[e.span[0]:e.span[1]] == e.text
    c = p.constraints
    assert set(c.status) <= set(STATUS_VALUES) and set(c.doc_type) <= set(DOC_TYPE_VALUES)
    assert isinstance(c.quantitative, bool)
    if c.time is not None and c.time.start and c.time.end:
        assert c.time.start <= c.time.end or c.time.text
    assert all(isinstance(k, str) and k for k in p.keywords)
    data = json.loads(json.dumps(p.to_dict(), ensure_ascii=False))
    assert Perception.from_dict(data) == p


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_arbitrary_unicode(rules_agent, text):
    check(rules_agent.run(text, NOW), text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(PIECES), max_size=25).map("".join))
def test_mixed_scripts_and_emoji(agent, text):
    check(agent.run(text, NOW), text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80), st.dates(date(1900, 1, 1), date(2100, 12, 31)))
def test_any_now(rules_agent, text, now):
    check(rules_agent.run(text, now), text)


def test_empty_and_whitespace(agent):
    for text in ("", " ", "\n\t", "？", "..."):
        p = agent.run(text, NOW)
        check(p, text)
        assert p.action == "lookup" and p.entities == [] and p.constraints.time is None


def test_none_is_read_as_empty(rules_agent):
    assert rules_agent.run(None, NOW).query == ""


def test_ten_thousand_characters(agent):
    text = ("Compare A320 and B737 in Q2 2025 according to TechCrunch; 最近一周未完成的订单 😀 'quoted' "
            * 150)[:10_000]
    p = agent.run(text, NOW)
    check(p, text)
    assert p.action == "compare" and p.constraints.source == ["TechCrunch"]


def test_ten_thousand_random_characters(rules_agent):
    import random
    rng = random.Random(7)
    text = "".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0x4E00, 0x9FFF), rng.randint(0x1F600, 0x1F64F)]))
                   for _ in range(10_000))
    check(rules_agent.run(text, NOW), text)
