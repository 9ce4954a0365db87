"""How much trace a chat reply carries: the summary by default, the full trace on request.

Chat frontends show `content` and keep the whole reply; the full trace (every plan, every
kept and rejected chunk id) made a one-question reply 52 KB. The in-process app over the real
loop (demo knowledge bases), as a chat client would call it.
"""

from __future__ import annotations

import json

import pytest

NOW = "2025-07-01"
FUEL = "Compare the fuel burn of the A320 and the B737 in 2023"


def _chat(client, stream: bool = False, **options):
    body = {"model": "sightline-extractive", "messages": [{"role": "user", "content": FUEL}],
            "sightline": {"now": NOW, **options}, "stream": stream}
    response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.data[:300]
    return response


def _extra_of_stream(response) -> dict:
    events = [json.loads(line[6:]) for line in response.get_data(as_text=True).splitlines()
              if line.startswith("data: {")]
    return events[-1]["sightline"]


@pytest.fixture
def chat_client(make_app):
    return make_app().test_client()


def test_a_chat_reply_carries_the_summary_trace_unless_asked(chat_client):
    default = _chat(chat_client)
    full = _chat(chat_client, trace="full")
    extra, full_extra = default.json["sightline"], full.json["sightline"]
    # summary: attempts without plans, operations as counts (no params, kept or rejected ids)
    assert extra["attempts"] and all("plan" not in a for a in extra["attempts"])
    assert extra["operations"] and all("params" not in op and "rejected" not in op for op in extra["operations"])
    assert all("rejected_count" in op for op in extra["operations"])
    # the answer, status and sources are the same either way
    assert default.json["choices"] == full.json["choices"] and extra["citations"] == full_extra["citations"]
    assert all("plan" in a for a in full_extra["attempts"])
    assert len(default.data) < len(full.data) / 2, (len(default.data), len(full.data))


def test_a_streamed_reply_carries_the_summary_trace_too(chat_client):
    extra = _extra_of_stream(_chat(chat_client, stream=True))
    assert extra["operations"] and all("params" not in op for op in extra["operations"])
    full = _extra_of_stream(_chat(chat_client, stream=True, trace="full"))
    assert all("plan" in a for a in full["attempts"])


def test_the_openapi_document_says_chat_defaults_to_the_summary(chat_client):
    doc = chat_client.get("/openapi.json").json
    chat_trace = doc["components"]["schemas"]["ChatCompletionRequest"]["properties"]["sightline"]["properties"]["trace"]
    rag_trace = doc["components"]["schemas"]["RagRequest"]["properties"]["trace"]
    assert chat_trace["default"] == "summary" and rag_trace["default"] == "full"
