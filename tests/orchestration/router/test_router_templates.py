"""Query and reason templates: placeholders checked at load, filled per task."""

from __future__ import annotations

import pytest

from core.configfile import Where
from core.errors import ConfigError
from orchestration.router.templates import PLACEHOLDERS, parse_template

WHERE = Where("test.yaml", "rule 'r'", "rules[0].emit[0].query")


def test_every_placeholder_fills(perceive, build):
    query = " | ".join("{" + p + "}" for p in PLACEHOLDERS if p not in ("entity", "source"))
    router = build([{"name": "r", "when": {"always": True}, "emit": [{"kb": "reports", "query": query}]}])
    task = router.run(perceive("查询 2025 年第二季度状态为已关闭的测试报告")).tasks[0]
    assert task.query == ("查询 2025 年第二季度状态为已关闭的测试报告 | 已关闭 测试报告 | 已关闭 测试报告 | | | "
                          "2025 年第二季度 | closed | test_report | reports | lookup | zh")


def test_entity_topic_and_entities(perceive, build):
    router = build([{"name": "r", "why": "compares {entities}; {entity} alone", "when": {"always": True},
                     "emit": [{"kb": "manuals", "for_each": "entity", "query": "{entity} {topic}"}]}])
    tasks = router.run(perceive("Compare A320 vs B737 fuel burn in 2023")).tasks
    assert [(t.query, t.entity) for t in tasks] == [("A320 fuel burn", "A320"), ("B737 fuel burn", "B737")]
    assert tasks[1].reason.startswith("rule 'r': compares A320 and B737; B737 alone.")


def test_literal_braces_and_whitespace(perceive, build):
    router = build([{"name": "r", "when": {"always": True},
                     "emit": [{"kb": "manuals", "query": "{{x}}  {time}  {keywords}"}]}])
    assert router.run(perceive("What triggers E4027?")).tasks[0].query == "{x} triggers E4027"


def test_an_empty_filled_query_falls_back_to_the_query(perceive, build):
    router = build([{"name": "r", "when": {"always": True}, "emit": [{"kb": "manuals", "query": "{time}"}]}])
    assert router.run(perceive("What triggers E4027?")).tasks[0].query == "What triggers E4027?"


@pytest.mark.parametrize("text, for_each, message", [
    ("{source}", "entity", r"'\{source\}' needs 'for_each: source'"),
    ("{query!r}", None, r"takes no format spec or conversion"),
    ("{query:>10}", None, r"takes no format spec or conversion"),
    ("}", None, r"bad braces"),
    ("", None, r"expected a non-empty string"),
])
def test_bad_templates(text, for_each, message):
    with pytest.raises(ConfigError, match=message):
        parse_template(WHERE, text, for_each)


def test_a_question_asking_who_wrote_something_searches_for_its_author_field(perceive, build):
    """PEPs: "Who wrote PEP 3107?" searched "wrote PEP 3107" by keyword, which never finds the
    header line "PEP 3107 – Author: Collin Winter, Tony Lownds."; "author" joins the keywords."""
    router = build([{"name": "r", "when": {"always": True}, "emit": [{"kb": "reports", "query": "{keywords}"}]}])
    assert router.run(perceive("Who wrote PEP 3107?")).tasks[0].query == "wrote PEP 3107 author"
    assert router.run(perceive("Who proposed the steering council model?")).tasks[0].query.endswith(" author")
    assert "author" not in router.run(perceive("Who won the 2021 Wimbledon final?")).tasks[0].query
