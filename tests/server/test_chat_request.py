"""Validating an OpenAI chat completion request (server/http/chat.py) without a service.

What clients send must be taken (OpenAI's sampling fields, unknown fields, content parts);
what cannot be answered is a 400 naming the field, an unknown model a 404.
"""

from __future__ import annotations

import pytest

from core.errors import RequestError, UnknownModel
from server.http.chat import parse_chat_request, stream_events
from server.http.schemas import RequestLimits
from server.profiles import DEFAULT_PROFILE, PROFILES, list_profiles

USER = {"role": "user", "content": "What is the fuel burn of the A320neo in 2023?"}


def test_profiles_are_the_models_default_first():
    assert [p.name for p in list_profiles()] == ["sightline", "sightline-extractive"] == list(PROFILES)
    assert DEFAULT_PROFILE == "sightline"


def test_what_open_webui_and_librechat_send_is_accepted():
    body = {"model": "sightline-extractive", "stream": True, "temperature": 0.7, "top_p": 1, "max_tokens": 512,
            "n": 1, "stop": ["\n\n"], "user": "u-1", "seed": 7, "stream_options": {"include_usage": True},
            "presence_penalty": 0, "frequency_penalty": 0.5, "metadata": {"chat_id": "x"}, "tools": [],
            "messages": [{"role": "system", "content": "You are a helpful assistant."},
                         {"role": "user", "content": "What is the fuel burn of the A320neo in 2023?"},
                         {"role": "assistant", "content": "In 2023 ... [1]", "name": "sightline"},
                         {"role": "user", "content": [{"type": "text", "text": "and the 737 MAX 8?"},
                                                      {"type": "image_url", "image_url": {"url": "data:,"}}]}]}
    parsed = parse_chat_request(body)
    assert parsed.profile == parsed.ask.context.profile == "sightline-extractive" and parsed.stream
    assert parsed.ask.query == "and the 737 MAX 8?"
    assert parsed.ask.history == ["What is the fuel burn of the A320neo in 2023?"]  # user turns only


def test_sightline_options_go_to_the_question():
    parsed = parse_chat_request({"model": "sightline", "messages": [USER],
                                 "sightline": {"kb": "manuals", "now": "2025-07-01", "trace": "none"}})
    assert parsed.ask.kbs == ["manuals"] and parsed.ask.context.now.isoformat() == "2025-07-01"
    assert parsed.ask.context.trace_level == "none" and not parsed.stream


@pytest.mark.parametrize(("body", "field", "words"), [
    ([], "body", "JSON object"),
    ({"messages": [USER]}, "model", "required"),
    ({"model": 4, "messages": [USER]}, "model", "string"),
    ({"model": "sightline"}, "messages", "required"),
    ({"model": "sightline", "messages": []}, "messages", "empty"),
    ({"model": "sightline", "messages": {"role": "user"}}, "messages", "list"),
    ({"model": "sightline", "messages": ["hi"]}, "messages[0]", "object"),
    ({"model": "sightline", "messages": [{"role": "robot", "content": "x"}]}, "messages[0].role", "one of"),
    ({"model": "sightline", "messages": [{"role": "user"}]}, "messages[0].content", "required"),
    ({"model": "sightline", "messages": [{"role": "user", "content": 42}]}, "messages[0].content", "string"),
    ({"model": "sightline", "messages": [{"role": "user", "content": [{"text": "x"}]}]}, "messages[0].content[0]",
     "type"),
    ({"model": "sightline", "messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]},
     "messages[0].content[0].text", "string"),
    ({"model": "sightline", "messages": [USER, {"role": "assistant", "content": "x"}]}, "messages[1].role",
     "last message"),
    ({"model": "sightline", "messages": [{"role": "user", "content": " \n\t"}]}, "messages[0].content", "empty"),
    ({"model": "sightline", "messages": [{"role": "user", "content": "x" * 2001}]}, "messages[0].content", "2000"),
    ({"model": "sightline", "messages": [USER] * 65}, "messages", "limit is 64"),
    ({"model": "sightline", "messages": [{"role": "system", "content": "x" * 8001}, USER]},
     "messages[0].content", "8000"),
    ({"model": "sightline", "messages": [USER], "temperature": "hot"}, "temperature", "number"),
    ({"model": "sightline", "messages": [USER], "temperature": 3}, "temperature", "between"),
    ({"model": "sightline", "messages": [USER], "max_tokens": "many"}, "max_tokens", "integer"),
    ({"model": "sightline", "messages": [USER], "n": 2}, "n", "one answer"),
    ({"model": "sightline", "messages": [USER], "stream": "yes"}, "stream", "true or false"),
    ({"model": "sightline", "messages": [USER], "user": 7}, "user", "string"),
    ({"model": "sightline", "messages": [USER], "stop": [1]}, "stop", "strings"),
    ({"model": "sightline", "messages": [USER], "stream_options": {"include_usage": 1}},
     "stream_options.include_usage", "true or false"),
    ({"model": "sightline", "messages": [USER], "sightline": {"kb": 3}}, "sightline.kb", "knowledge base"),
    ({"model": "sightline", "messages": [USER], "sightline": {"query": "x"}}, "sightline.query", "unknown option"),
])
def test_bad_requests_name_the_field(body, field, words):
    with pytest.raises(RequestError, match=words) as caught:
        parse_chat_request(body, RequestLimits())
    assert caught.value.field == field and caught.value.http_status == 400


def test_an_unknown_model_is_404_model_not_found_listing_the_known_ones():
    with pytest.raises(UnknownModel, match="sightline, sightline-extractive") as caught:
        parse_chat_request({"model": "gpt-4o", "messages": [USER]})
    assert caught.value.http_status == 404 and caught.value.code == "model_not_found"


def test_a_stream_is_role_deltas_finish_with_the_extra_field_then_done():
    import json

    content = "First. [1] Second. [1]\n\n**Sources**\n\n- [1] *T*"
    events = list(stream_events("chatcmpl-x", 1, "sightline", "sightline-v", content, {"status": "answered"}))
    assert all(e.startswith("data: ") and e.endswith("\n\n") for e in events) and events[-1] == "data: [DONE]\n\n"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks) == content
    assert len(chunks) > 3 and chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["sightline"] == {"status": "answered"}
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == "chatcmpl-x" for c in chunks)
