"""The chat reply's Markdown (server/markdown.py): answer, then Sources with title, source, date and age."""

from __future__ import annotations

import datetime as dt

import pytest

from server.markdown import age, render_markdown

NOW = dt.date(2025, 7, 1)
FUEL = {"n": 1, "chunk_id": "manuals-fuel#0", "kb": "manuals", "source": "Aurora Air Fleet Performance Office",
        "title": "Fuel Efficiency Comparison 2023: A320neo vs Boeing 737 MAX 8", "snippet": "...",
        "published_at": "2023-09-12T00:00:00+00:00", "updated_at": "2023-09-12T00:00:00+00:00",
        "status": "effective"}
MANUAL = {"n": 2, "chunk_id": "manuals-a320#3", "kb": "manuals", "source": "Airbus Flight Operations",
          "title": "A320neo Performance Manual, Revision 2023", "snippet": "...", "published_at": None,
          "updated_at": "2025-06-21", "status": "draft", "page": 14}


def test_answer_then_a_sources_list_in_citation_order():
    text = "The A320neo burns 2,290 kg per block hour. [1] The draft says 2,250 kg. [2]"
    out = render_markdown(text, [MANUAL, FUEL], NOW)
    assert out.split("\n") == [
        text, "", "**Sources**", "",
        "- [1] *Fuel Efficiency Comparison 2023: A320neo vs Boeing 737 MAX 8*, Aurora Air Fleet Performance Office, "
        "2023-09-12 (1 year 9 months old)",
        "- [2] *A320neo Performance Manual, Revision 2023*, Airbus Flight Operations, 2025-06-21 (10 days old), "
        "draft, p. 14",
    ]


def test_insufficient_answer_has_no_sources_list():
    text = "Insufficient information: the knowledge base does not hold an answer to this question. Searched: ..."
    assert render_markdown(text + "\n", [], NOW) == text


def test_titles_with_markdown_characters_show_as_written():
    odd = dict(FUEL, title="Fault *E4027* [draft] _v2_", source=None, published_at=None, updated_at=None)
    line = render_markdown("x [1]", [odd], NOW).split("\n")[-1]
    assert line == r"- [1] *Fault \*E4027\* \[draft\] \_v2\_*"


def test_chinese_answers_get_chinese_labels():
    out = render_markdown("2023 年 A320neo 每座油耗 12.7 公斤。[1]", [FUEL], NOW, "zh")
    assert "**来源**" in out and "2023-09-12 (1 年 9 个月前)" in out


@pytest.mark.parametrize(("day", "expected"), [
    (dt.date(2025, 7, 1), "today"), (dt.date(2025, 6, 30), "1 day old"), (dt.date(2025, 6, 1), "30 days old"),
    (dt.date(2025, 5, 1), "2 months old"), (dt.date(2024, 7, 1), "1 year old"),
    (dt.date(2022, 3, 1), "3 years 4 months old"), (dt.date(2025, 8, 1), "dated after today"),
])
def test_ages(day, expected):
    assert age(day, NOW) == expected
