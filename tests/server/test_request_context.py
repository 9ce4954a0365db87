"""One request, one context: its date, caller and trace are built once in server/ and every layer reads them.

The layers below server/ never read the clock (tests/test_architecture.py); these tests check
the other half: every layer of one request receives the very date the context holds, even for a
request that arrives a moment before midnight UTC while the clock moves on to the next day.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import FrozenInstanceError

import pytest

from server import context as context_module
from server.callers import ANONYMOUS, Caller
from server.context import Arrival, RequestContext
from server.http.chat import parse_chat_request
from server.http.schemas import parse_ask_request
from server.loop import AskRequest
from server.traceparent import TraceParent, otel_trace_id

from .conftest import FUEL_EN

BEFORE_MIDNIGHT = dt.datetime(2025, 7, 10, 23, 59, 59, 999000, tzinfo=dt.UTC)
AFTER_MIDNIGHT = dt.datetime(2025, 7, 11, 0, 0, 0, 500000, tzinfo=dt.UTC)


def _ns(moment: dt.datetime) -> int:
    return round(moment.timestamp() * 1e9)


@pytest.fixture
def midnight(monkeypatch):
    """The clock: the first reading a moment before midnight UTC, every later one after it."""
    readings = []

    def now(cls) -> Arrival:
        readings.append(len(readings))
        return cls(_ns(BEFORE_MIDNIGHT if len(readings) == 1 else AFTER_MIDNIGHT), time.perf_counter())

    monkeypatch.setattr(context_module.Arrival, "now", classmethod(now))
    return readings


@pytest.fixture
def seen(answer_loop, monkeypatch):
    """The `now` each layer of the shared loop receives, by layer, as the loop calls them."""
    dates: dict[str, list[dt.date]] = {"perception": [], "retrieval": [], "validation": []}

    def spy(owner, name: str, layer: str, position: int):
        original = getattr(owner, name)

        def wrapped(*args, **kwargs):
            dates[layer].append(kwargs["now"] if "now" in kwargs else args[position])
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapped)

    spy(answer_loop.perception, "run", "perception", 1)
    spy(answer_loop.executor, "run", "retrieval", 2)
    spy(answer_loop.validator, "run_with_timing", "validation", 3)
    return dates


@pytest.mark.parametrize("path, body", [
    ("/rag", {"query": FUEL_EN}),
    ("/v1/chat/completions", {"model": "sightline-extractive", "messages": [{"role": "user", "content": FUEL_EN}],
                              "sightline": {"trace": "full"}}),
])
def test_every_layer_of_a_request_reads_its_one_date_even_across_midnight(client, midnight, seen, path, body):
    response = client.post(path, json=body)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    reply = response.json if path == "/rag" else response.json["sightline"]
    assert len(midnight) == 1  # the clock was read once, when the request arrived
    day = BEFORE_MIDNIGHT.date()
    assert all(seen[layer] and set(seen[layer]) == {day} for layer in seen), seen
    dated = [op["params"]["now"] for op in reply["operations"] if "now" in op["params"]]
    assert dated and set(dated) == {day.isoformat()}  # perceive and every credibility step


def test_a_request_that_gives_its_date_is_answered_for_that_date(client, seen):
    response = client.post("/rag", json={"query": FUEL_EN, "now": "2024-02-29"})
    assert response.status_code == 200
    assert {d for dates in seen.values() for d in dates} == {dt.date(2024, 2, 29)}


def test_the_context_carries_the_caller_and_request_id_to_the_result(make_app, answer_loop, monkeypatch):
    results = []
    answer = answer_loop.answer
    monkeypatch.setattr(answer_loop, "answer", lambda ask: results.append(answer(ask)) or results[-1])
    client = make_app().test_client()
    response = client.post("/rag", json={"query": FUEL_EN, "now": "2025-07-01", "trace": "summary"},
                           headers={"X-Request-ID": "req-42"})
    assert response.status_code == 200 and response.json["trace_id"] == "req-42"
    [result] = results
    context = result.context
    assert (context.trace_id, context.caller, context.trace_level, context.endpoint, context.now) == (
        "req-42", ANONYMOUS, "summary", "rag", dt.date(2025, 7, 1))
    assert result.caller == response.json["caller"] and result.trace_id == "req-42"


def test_a_context_cannot_be_changed_once_built():
    context = RequestContext.create(dt.date(2025, 7, 1))
    with pytest.raises(FrozenInstanceError):
        context.now = dt.date(2025, 7, 2)  # type: ignore[misc]


def test_a_request_has_no_loose_date_or_groups_beside_its_context():
    with pytest.raises(TypeError, match="now"):
        AskRequest(query="x", now=dt.date(2025, 7, 1))  # type: ignore[call-arg]
    ask = AskRequest(query="x")
    with pytest.raises(AttributeError):
        ask.acl_groups = ("finance",)  # type: ignore[attr-defined]  # would have been ignored: slots refuse it


def test_a_context_is_the_arrival_date_unless_given_and_one_clock_reading(midnight):
    made = RequestContext.create()
    assert made.now == BEFORE_MIDNIGHT.date() and made.arrival.wall_ns == _ns(BEFORE_MIDNIGHT)
    assert RequestContext.create(dt.date(2020, 1, 1), arrival=made.arrival).now == dt.date(2020, 1, 1)
    assert len(midnight) == 1
    assert len(made.trace_id) == 32 and made.caller == ANONYMOUS and made.acl_groups == ()
    assert RequestContext.create(caller=Caller("ops", "operator", unrestricted=True)).acl_groups is None


def test_the_body_sets_the_date_and_trace_level_of_the_context_it_is_given():
    base = RequestContext.create(caller=Caller("billing", "key", ("finance",)), trace_id="abc", endpoint="rag")
    ask = parse_ask_request({"query": "q", "now": "2025-01-31", "trace": "none"}, context=base)
    assert ask.context == RequestContext(dt.date(2025, 1, 31), "abc", base.arrival, base.caller, "none",
                                         base.profile, "rag")
    assert parse_ask_request({"query": "q"}, context=base).context.now == base.now


def test_the_chat_model_is_the_contexts_profile():
    base = RequestContext.create(trace_id="abc", endpoint="chat")
    parsed = parse_chat_request({"model": "sightline-extractive", "messages": [{"role": "user", "content": "q"}],
                                 "sightline": {"now": "2025-03-01"}}, context=base)
    assert (parsed.ask.context.profile, parsed.ask.context.now, parsed.ask.context.trace_id) == (
        "sightline-extractive", dt.date(2025, 3, 1), "abc")


@pytest.mark.parametrize("header, expected", [
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
     TraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1)),
    (" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 ",
     TraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 0)),
    ("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later",  # a later version's extra field
     TraceParent("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1)),
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", None),  # version 00 has nothing after
    ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", None),
    ("00-00000000000000000000000000000000-00f067aa0ba902b7-01", None),
    ("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", None),
    ("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", None),  # upper case is not W3C
    ("00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", None),
    ("", None), (None, None),
])
def test_traceparent_is_read_as_w3c_trace_context_says(header, expected):
    assert TraceParent.parse(header) == expected


def test_the_otel_trace_id_is_the_request_id_when_it_is_one_else_a_stable_hash():
    own = "4bf92f3577b34da6a3ce929d0e0e4736"
    assert otel_trace_id(own) == int(own, 16)
    assert otel_trace_id(own.upper()) == int(own, 16)
    hashed = otel_trace_id("req-42")
    assert hashed == otel_trace_id("req-42") != otel_trace_id("req-43") and 0 < hashed < 2 ** 128
    assert otel_trace_id("0" * 32) != 0
