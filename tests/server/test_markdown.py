"""The chat reply's Markdown (server/markdown.py): answer, then Sources with title, headings, source, date,
age and where the document is; HTML in the answer shows as text, code as written."""

from __future__ import annotations

import datetime as dt

import pytest
from markdown_it import MarkdownIt

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
        "2023-09-12 (1 year 9 months old), manuals-fuel",
        "- [2] *A320neo Performance Manual, Revision 2023*, Airbus Flight Operations, 2025-06-21 (10 days old), "
        "draft, p. 14, manuals-a320",
    ]


def test_insufficient_answer_has_no_sources_list():
    text = "Insufficient information: the knowledge base does not hold an answer to this question. Searched: ..."
    assert render_markdown(text + "\n", [], NOW) == text


def test_titles_with_markdown_characters_show_as_written():
    odd = dict(FUEL, title="Fault *E4027* [draft] _v2_", source=None, published_at=None, updated_at=None)
    line = render_markdown("x [1]", [odd], NOW).split("\n")[-1]
    assert line == r"- [1] *Fault \*E4027\* \[draft\] \_v2\_*, manuals-fuel"


def test_a_source_line_names_the_headings_and_the_url_or_path():
    """Issue 34: 'chat shows duplicate titles with no file or URL (show the path or URL and the heading)'."""
    guide = {"n": 1, "chunk_id": "guides/install#2", "kb": "docs", "title": "Install", "snippet": "...",
             "path": ["Install", "On Linux", "From source"], "url": None}
    linked = dict(guide, n=2, path=None, section="On macOS", url="https://docs.example.org/install")
    hostile = dict(guide, n=3, url="javascript:alert(1)")
    lines = render_markdown("x [1][2][3]", [guide, linked, hostile], NOW).split("\n")[-3:]
    assert lines == ["- [1] *Install*, On Linux > From source, guides/install",
                     "- [2] *Install*, On macOS, <https://docs.example.org/install>",
                     "- [3] *Install*, On Linux > From source, guides/install"]


@pytest.mark.parametrize(("text", "shown"), [
    ("a <script>alert(1)</script> b", "a &lt;script>alert(1)&lt;/script> b"),
    ("a <img src=x onerror=alert(1)> b", "a &lt;img src=x onerror=alert(1)> b"),
    ("<!-- hidden --> <hxxp://attacker.example/x>", "&lt;!-- hidden --> &lt;hxxp://attacker.example/x>"),
    ("It returns <Response [200]>; x < 5.", "It returns &lt;Response [200]>; x < 5."),
    ("A `HashMap<K, V>` holds <b>them</b>.", "A `HashMap<K, V>` holds &lt;b>them&lt;/b>."),
    ("Run:\n\n```\nkeys create --out <path>\n```\n[1]", "Run:\n\n```\nkeys create --out <path>\n```\n[1]"),
    # a code span across a table's cells is no code span to GFM: its "<" is escaped as the rest
    ("| a | b | c |\n|---|---|---|\n| `x | <img src=x onerror=alert(1)> | y` |",
     "| a | b | c |\n|---|---|---|\n| `x | &lt;img src=x onerror=alert(1)> | y` |"),
])
def test_html_shows_as_text_and_code_as_written(text, shown):
    """Issue 34: '<' reached answers as '&lt;' (in code, where a renderer shows it so) in some replies."""
    out = render_markdown(text, [], NOW)
    assert out == shown
    tokens = MarkdownIt("commonmark").enable("table").parse(out)
    assert not [t for t in tokens if t.type == "html_block"]
    assert not [c for t in tokens for c in t.children or () if c.type == "html_inline"]


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
