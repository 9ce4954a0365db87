"""The OpenAI-compatible API with the official `openai` client, against the real gunicorn service.

`secured` (tests/reliability/conftest.py) is `sightline serve` with 2 workers and three API
keys; the tests share it with the other reliability tests, so this module starts no service
of its own. What a chat user would notice: an answer with its sources, the same answer
streamed, a restricted document only for a key in its group, clear errors for an unknown
model, a bad body or a bad key, and a follow-up question that keeps the conversation's topic.
"""

from __future__ import annotations

import json

import openai
import pytest

pytestmark = pytest.mark.slow

NOW = "2025-07-01"
FUEL = "What is the fuel burn of the A320neo in 2023?"
SALARY = {"query": "What are the engineering salary bands?", "doc": "policies-salary-bands-2025", "text": "52,000"}


# the client always sends a key; a keyless (anonymous) call omits the header per request
ANONYMOUS = {"Authorization": openai.Omit()}


def _client(secured, key: str | None = None) -> openai.OpenAI:
    """An OpenAI client for the service, with an API key or (key None) for anonymous calls."""
    return openai.OpenAI(base_url=secured.live.url + "/v1", api_key=key or "anonymous", max_retries=0, timeout=60)


def _ask(client, messages, **kw):
    """One chat completion; `now` fixed so ages and relative times do not drift."""
    headers = ANONYMOUS if client.api_key == "anonymous" else None
    return client.chat.completions.create(model=kw.pop("model", "sightline"), messages=messages,
                                          extra_body={"sightline": {"now": NOW}}, extra_headers=headers, **kw)


def test_models_are_the_answer_profiles(secured):
    models = _client(secured).models.list(extra_headers=ANONYMOUS)
    assert [m.id for m in models.data] == ["sightline", "sightline-extractive"]
    assert all(m.owned_by == "sightline" and m.model_extra["description"] for m in models.data)
    assert _client(secured).models.retrieve("sightline-extractive", extra_headers=ANONYMOUS).id == \
        "sightline-extractive"


def test_an_answer_with_sources_plain_and_streamed(secured):
    client = _client(secured)
    raw = client.chat.completions.with_raw_response.create(
        model="sightline", messages=[{"role": "user", "content": FUEL}], extra_body={"sightline": {"now": NOW}},
        extra_headers=ANONYMOUS)
    reply = raw.parse()
    content = reply.choices[0].message.content
    extra = reply.model_extra["sightline"]
    assert reply.choices[0].finish_reason == "stop" and reply.model == "sightline"
    assert "2,290 kg" in content and "[1]" in content
    assert "**Sources**" in content and "Fuel Efficiency Comparison 2023" in content
    assert "2023-09-12 (1 year 9 months old)" in content
    assert extra["status"] == "answered" and extra["citations"] and extra["issues"] == []
    assert extra["perception"]["query"] == FUEL and extra["followup"] is None
    assert raw.headers["X-Sightline-Status"] == "answered"
    assert raw.headers["X-Sightline-Config-Version"] == extra["config_version"]
    assert raw.headers["X-Request-ID"] == extra["trace_id"] and reply.id == f"chatcmpl-{extra['trace_id']}"

    chunks = list(_ask(client, [{"role": "user", "content": FUEL}], model="sightline-extractive", stream=True))
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert streamed == content  # the same answer, deterministic, in pieces
    assert len(chunks) > 3 and chunks[-1].choices[0].finish_reason == "stop"
    assert chunks[-1].model_extra["sightline"]["status"] == "answered"
    assert chunks[-1].model_extra["sightline"]["profile"] == "sightline-extractive"


def test_insufficient_is_a_normal_reply_that_says_so(secured):
    reply = _ask(_client(secured), [{"role": "user", "content": "What is the boiling point of mercury on Mars?"}])
    assert reply.model_extra["sightline"]["status"] == "insufficient"
    assert reply.choices[0].message.content.startswith("Insufficient information")
    assert "**Sources**" not in reply.choices[0].message.content


def test_a_restricted_document_reaches_only_a_key_in_its_group(secured):
    messages = [{"role": "user", "content": SALARY["query"]}]
    seen = {}
    for caller, key in (("anonymous", None), ("hr-app", secured.keys["hr-app"]),
                        ("finance-app", secured.keys["finance-app"])):
        for stream in (False, True):
            client = _client(secured, key)
            if stream:
                chunks = list(_ask(client, messages, stream=True))
                text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                raw = text + json.dumps(chunks[-1].model_extra, ensure_ascii=False)
                extra = chunks[-1].model_extra["sightline"]
            else:
                reply = _ask(client, messages)
                raw = reply.model_dump_json()
                text, extra = reply.choices[0].message.content, reply.model_extra["sightline"]
            assert extra["caller"]["name"] == caller
            seen[caller, stream] = SALARY["doc"] in raw or SALARY["text"] in raw
            if caller == "finance-app":
                assert SALARY["text"] in text and "**Sources**" in text
    assert seen == {("anonymous", False): False, ("anonymous", True): False, ("hr-app", False): False,
                    ("hr-app", True): False, ("finance-app", False): True, ("finance-app", True): True}


def test_errors_come_in_openai_shape_with_the_right_status(secured):
    client = _client(secured)
    with pytest.raises(openai.NotFoundError) as unknown:
        _ask(client, [{"role": "user", "content": FUEL}], model="gpt-4o")
    assert unknown.value.status_code == 404 and unknown.value.code == "model_not_found"
    assert "sightline, sightline-extractive" in unknown.value.message
    with pytest.raises(openai.BadRequestError) as empty:
        _ask(client, [])
    assert empty.value.code == "bad_request" and empty.value.param == "messages"
    with pytest.raises(openai.BadRequestError) as last:
        _ask(client, [{"role": "user", "content": FUEL}, {"role": "assistant", "content": "..."}])
    assert last.value.param == "messages[1].role" and "last message" in last.value.message
    with pytest.raises(openai.AuthenticationError) as bad_key:
        _ask(_client(secured, "sk-not-a-sightline-key-000000"), [{"role": "user", "content": FUEL}])
    assert bad_key.value.status_code == 401 and bad_key.value.code == "invalid_api_key"

    live = secured.live
    status, headers, body = live.request("POST", "/v1/chat/completions", b'{"model": "sightline", "messages": [',
                                         {"Content-Type": "application/json"})
    assert status == 400 and set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["type"] == "invalid_request_error" and body["error"]["param"] == "body"
    status, _h, body = live.request("POST", "/v1/chat/completions", {"model": "sightline", "messages": [
        {"role": "user", "content": FUEL}], "temperature": "warm"})
    assert status == 400 and body["error"]["param"] == "temperature"
    big = {"model": "sightline", "messages": [{"role": "user", "content": "x" * 70000}]}
    status, _h, body = live.request("POST", "/v1/chat/completions", big)
    assert status == 413 and body["error"]["code"] == "payload_too_large"


def test_a_follow_up_keeps_the_topic_and_the_trace_says_so(secured):
    client = _client(secured)
    messages = [{"role": "system", "content": "Answer from the manuals."}, {"role": "user", "content": FUEL}]
    first = _ask(client, messages)
    assert "A320neo" in first.choices[0].message.content
    messages += [{"role": "assistant", "content": first.choices[0].message.content},
                 {"role": "user", "content": "and the 737 MAX 8?"}]
    second = _ask(client, messages)
    content, extra = second.choices[0].message.content, second.model_extra["sightline"]
    # about the 737 MAX 8, on the same topic (fuel burn) and year as the first question
    assert extra["status"] == "answered"
    # the asked-for value first (the short answer), then the unit that states it
    assert content.startswith("**2,360 kg** [1]\n\nIn 2023, the 737 MAX 8 burns") and "kg of fuel" in content
    assert extra["short_answer"] == {"text": "2,360 kg", "citation": 1}
    assert extra["perception"]["query"] == "What is the fuel burn of the 737 MAX 8 in 2023?"
    assert extra["perception"]["constraints"]["time"]["start"] == "2023-01-01"
    assert extra["followup"]["from_turn"] == 1 and extra["followup"]["replaced"] == {"A320neo": "737 MAX 8"}
    op = next(o for o in extra["operations"] if o["op"] == "perceive.followup")  # the summary trace (default)
    assert "user turn 1" in op["reason"] and "A320neo -> 737 MAX 8" in op["reason"]
    assert extra["followup"]["carried"] == {"time": "2023", "topic": ["fuel burn"]}


def test_chat_requests_are_counted_by_endpoint(secured):
    _ask(_client(secured), [{"role": "user", "content": FUEL}])
    _s, _h, text = secured.live.request("GET", "/metrics")
    counts = {line.split("{", 1)[1].split("}")[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
              if line.startswith("sightline_requests_total{")}
    chat = {labels: n for labels, n in counts.items() if 'endpoint="chat"' in labels}
    assert chat and sum(n for labels, n in chat.items() if 'status="answered"' in labels) >= 1
    assert sum(n for labels, n in chat.items() if 'status="rejected"' in labels) >= 1  # the errors above
    assert 'sightline_request_seconds_count{endpoint="chat"}' in text
