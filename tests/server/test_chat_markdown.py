"""Chat replies read through a real Markdown parser, and the same answers in POST /rag and the CLI.

Found in issue 34, item 4: 'A quoted code block starts on the same line as the sentence before
it, so Markdown renders it wrong: one reply's Sources list was swallowed, another reply became
one code block.' Item 5: 'web addresses inside quoted documentation and code are rewritten to
hxxp://'; 'the CLI prints citations as Title () and chat shows duplicate titles with no file or
URL'; '< reaches answers as &lt; in some replies and not in others'; 'chat's empty-body error
suggests the /rag body'.

The real loop answers over a small documentation knowledge base (code, a list, a table, two
documents titled alike); the chat reply is the in-process app's, parsed with markdown-it-py
(CommonMark, GFM tables), as Open WebUI or LibreChat would render it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from server.context import RequestContext
from server.http.app import create_app
from server.loop import AskRequest
from server.render import render_answer
from server.settings import ServiceSettings

from .conftest import folder_loop

NOW = "2025-07-01"
COMMAND = ("curl -fsS https://keys.example.org/new?scope=upload > token.txt\n"
           "sightline keys create --name uploader --out <path>")
FENCE = "```"
DOCS = {
    "tokens.md": f"---\ntitle: API tokens\nurl: https://docs.example.org/tokens\n---\n# API tokens\n\n"
                 f"## Creating a token\n\nAn API token authenticates the upload. Use the following command "
                 f"to generate one:\n\n{FENCE}sh\n{COMMAND}\n{FENCE}\n\nTokens expire after 90 days.\n",
    "client.md": "---\ntitle: The client\n---\n# The client\n\n## Connection pools\n\n"
                 "A pooled client keeps a `HashMap<K, V>` of open connections for every host it talks to.\n\n"
                 "## Responses\n\nCalling the get method of a client returns <Response [200]> when the server "
                 "answers with success.\n",
    "plans.md": "---\ntitle: Support plans\n---\n# Support plans\n\n## Plans\n\nThere are three support plans:\n\n"
                "- The basic plan answers tickets within three business days.\n"
                "- The standard plan answers tickets within one business day.\n"
                "- The premium plan answers tickets within four hours, every day.\n\n"
                "## Prices\n\n| Plan | Monthly price | Seats |\n|---|---|---|\n| Basic | 10 USD | 5 |\n"
                "| Standard | 40 USD | 25 |\n| Premium | 90 USD | 100 |\n",
    "server-config.md": "---\ntitle: Configuration\n---\n# Configuration\n\n## Timeouts\n\n"
                        "The server closes an idle connection after a default timeout of 30 seconds.\n",
    "client-config.md": "---\ntitle: Configuration\n---\n# Configuration\n\n## Client timeouts\n\n"
                        "The client gives up on a request after a default timeout of 5 seconds.\n",
}
CODE = "How do I generate an API token?"
LIST = "What support plans are there?"
TABLE = "What is the monthly price of the Standard plan?"
TIMEOUT = "What is the default timeout?"
MARKDOWN = MarkdownIt("commonmark").enable("table")


@pytest.fixture(scope="module")
def loop(tmp_path_factory, embedder):
    return folder_loop(tmp_path_factory.mktemp("chat-markdown"), "docs", DOCS, embedder)


@pytest.fixture
def client(loop, config_copy):
    settings = replace(ServiceSettings(router_file=str(config_copy / "router.yaml"), router_reload_seconds=0))
    return create_app(settings, loop=loop).test_client()


def _chat(client, question: str) -> str:
    body = {"model": "sightline", "messages": [{"role": "user", "content": question}], "sightline": {"now": NOW}}
    response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response.json["choices"][0]["message"]["content"]


def _rag(client, question: str) -> dict:
    response = client.post("/rag", json={"query": question, "now": NOW})
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response.json


def _ask(question: str) -> AskRequest:
    return AskRequest(query=question, context=RequestContext.create(dt.date.fromisoformat(NOW)))


def _blocks(content: str) -> list[Token]:
    return MARKDOWN.parse(content)


def _inline(content: str) -> list[Token]:
    return [child for token in _blocks(content) for child in token.children or ()]


def _sources(content: str) -> list[str]:
    """The Sources list's items as text: the bullet list after the bold "Sources" paragraph."""
    tokens = _blocks(content)
    heading = next(i for i, t in enumerate(tokens) if t.type == "inline" and t.content == "**Sources**")
    assert tokens[heading + 2].type == "bullet_list_open"
    close = next(i for i in range(heading, len(tokens)) if tokens[i].type == "bullet_list_close")
    return [t.content for t in tokens[heading:close] if t.type == "inline" and t.level == 3]


def _html(content: str) -> list[str]:
    return [t.content for t in _blocks(content) if t.type == "html_block"] + \
        [t.content for t in _inline(content) if t.type == "html_inline"]


def test_a_quoted_code_block_is_a_code_block_and_the_sources_stay_a_list(client):
    content = _chat(client, CODE)
    fences = [t for t in _blocks(content) if t.type in ("fence", "code_block")]
    assert [t.content for t in fences] == [COMMAND + "\n"]  # the command as written, URL and <path> included
    paragraphs = [t.content for t in _blocks(content) if t.type == "inline"]
    # the lead-in a paragraph before the block, the block's marker after it, the sentences after it text
    assert paragraphs[:2] == ["Use the following command to generate one: [1]", "[1]"]
    assert any("Tokens expire after 90 days. [1]" in p for p in paragraphs[2:])
    assert _sources(content) == ["[1] *API tokens*, Creating a token, <https://docs.example.org/tokens>"]


@pytest.mark.parametrize("question, quoted", [
    (LIST, "The basic plan answers tickets within three business days. [1]"),
    (TABLE, "Standard – Monthly price: 40 USD; Seats: 25. [1]"),
], ids=["list", "table"])
def test_list_and_table_answers_render_as_text_with_their_sources_list(client, question, quoted):
    content = _chat(client, question)
    tokens = _blocks(content)
    assert not [t for t in tokens if t.type in ("fence", "code_block", "table_open", "html_block")]
    assert any(quoted in t.content for t in tokens if t.type == "inline" and t.level == 1)  # a paragraph
    heading = "Plans" if question == LIST else "Prices"
    assert _sources(content) == [f"[1] *Support plans*, {heading}, plans"]


def test_addresses_in_quoted_code_are_kept_as_written(client):
    answer = _rag(client, CODE)["answer"]
    assert COMMAND in answer and "hxxp" not in answer


def test_a_less_than_sign_is_text_in_the_json_and_never_html_in_chat(client):
    assert "A pooled client keeps a HashMap<K, V> of open connections" in _rag(client, "What does a pooled client "
                                                                                 "keep for every host?")["answer"]
    content = _chat(client, "What does a pooled client keep for every host?")
    assert not _html(content)
    shown = "".join(t.content for t in _inline(content) if t.type == "text")
    assert "A pooled client keeps a HashMap<K, V> of open connections" in shown  # as a renderer shows it
    # its "[200]" is the document's text, not a citation marker: quoted and supported as written
    body = _rag(client, "What does calling the get method of a client return?")
    assert body["status"] == "answered", body["answer"]
    assert body["answer"].startswith("Calling the get method of a client returns <Response [200]> when")
    assert "&lt;" not in body["answer"]


def test_the_code_keeps_its_less_than_sign_in_chat(client):
    content = _chat(client, CODE)
    assert not _html(content)
    assert "--out <path>" in next(t.content for t in _blocks(content) if t.type == "fence")


def test_sources_of_documents_titled_alike_show_their_headings_and_paths(client, loop):
    assert _sources(_chat(client, TIMEOUT)) == ["[1] *Configuration*, Client timeouts, client-config",
                                                "[2] *Configuration*, Timeouts, server-config"]
    lines = render_answer(loop.run(_ask(TIMEOUT)), show_trace=False).split("\n")
    assert lines[lines.index("sources:") + 1:][:2] == ["  [1] Configuration > Client timeouts  docs:client-config#0",
                                                        "  [2] Configuration > Timeouts  docs:server-config#0"]


def test_the_cli_shows_a_source_s_url_and_never_empty_parentheses(loop):
    text = render_answer(loop.run(_ask(CODE)), show_trace=False)
    assert "  [1] API tokens > Creating a token  https://docs.example.org/tokens  docs:tokens#0" in text
    assert "()" not in text


def test_an_empty_chat_body_is_told_what_a_chat_body_holds(client):
    response = client.post("/v1/chat/completions", data=b"", content_type="application/json")
    assert response.status_code == 400
    message = response.json["error"]["message"]
    assert '"model"' in message and '"messages"' in message and '"query"' not in message
