"""A value question's short answer reaches the user first: /rag's `short_answer`, the chat reply's
first line, the CLI's first line (issue 35, item 3)."""

from __future__ import annotations

import pytest

from server.http.app import create_app
from server.render import render_answer
from server.settings import ServiceSettings

INTERVAL = {"query": "What is the A-check interval of the 737 MAX 8?", "now": "2025-07-10"}


@pytest.fixture
def client(answer_loop, config_copy):
    settings = ServiceSettings(router_file=str(config_copy / "router.yaml"), router_reload_seconds=0)
    return create_app(settings, loop=answer_loop).test_client()


def test_rag_gives_the_value_with_the_lead_s_citation(client):
    body = client.post("/rag", json=INTERVAL).json
    assert body["status"] == "answered"
    assert body["short_answer"] == {"text": "800 flight hours", "citation": 1}
    assert body["answer"].startswith("The A-check interval of the 737 MAX 8 is 800 flight hours")
    assert body["citations"][0]["chunk_id"].startswith("manuals-b737max8-maintenance-intervals")


def test_chat_and_the_cli_show_the_value_first(client):
    chat = {"model": "sightline-extractive", "messages": [{"role": "user", "content": INTERVAL["query"]}],
            "sightline": {"now": INTERVAL["now"]}}
    content = client.post("/v1/chat/completions", json=chat).json["choices"][0]["message"]["content"]
    assert content.startswith("**800 flight hours** [1]\n\nThe A-check interval")
    text = render_answer(client.post("/rag", json=INTERVAL).json, show_trace=False)
    assert "\nanswer: 800 flight hours [1]\n\nThe A-check interval" in text


def test_a_question_asking_for_no_value_has_none(client):
    body = client.post("/rag", json={"query": "What triggers error code E5102?", "now": "2025-07-10"}).json
    assert body["status"] == "answered" and body["short_answer"] is None
