"""OpenTelemetry export, received by a real OTLP/HTTP server (tests/otlp_receiver.py) that decodes the protobuf.

With OTEL_EXPORTER_OTLP_ENDPOINT set, each request is one trace: a root span, a span per stage
entry, a span per operation of the response's trace, each operation under the stage it ran
in; its trace id is the request's (or the caller's, from `traceparent`); the attributes carry
counts, rules, weights, statuses and issues, never a document's words or ids. Unset, the SDK
is not even imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from core.errors import ConfigError
from server import otel
from server.context import new_trace_id
from server.keys import KeyEntry, hash_key, new_key, write_keys
from server.loop import STAGES
from server.otel.attributes import param_attributes
from server.traceparent import otel_trace_id
from tests.live import start_service
from tests.otlp_receiver import ReceivedSpan, Receiver

from .conftest import FUEL_EN, NOW

SALARY = {"query": "What are the engineering salary bands?", "doc": "policies-salary-bands-2025", "text": "52,000"}
PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


@pytest.fixture(scope="module")
def receiver():
    server = Receiver().start()
    yield server
    server.stop()


@pytest.fixture
def otel_on(receiver, monkeypatch):
    """Export on, to the receiver, batches sent every 50 ms; this process's exporter shut down after."""
    for name in ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_PROTOCOL",
                 "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
    receiver.clear()
    yield receiver
    otel.shutdown()


@pytest.fixture
def finance_key(tmp_path, monkeypatch) -> str:
    """A key of group finance in a key file the apps made afterwards read."""
    key = new_key()
    path = tmp_path / "api_keys.yaml"
    write_keys(path, [KeyEntry("finance-app", hash_key(key), ("finance",))])
    monkeypatch.setenv("SIGHTLINE_API_KEYS", str(path))
    return key


def _ask(client, path="/rag", body=None, headers=None):
    response = client.post(path, json=body or {"query": FUEL_EN, "now": NOW}, headers=headers or {})
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response


def _received(receiver: Receiver, trace_id: int) -> list[ReceivedSpan]:
    assert otel.flush()
    return receiver.trace(f"{trace_id:032x}")


def _tree(spans: list[ReceivedSpan]) -> tuple[ReceivedSpan, dict[str, ReceivedSpan]]:
    """The root (no parent among the spans) and every span by id."""
    by_id = {s.span_id: s for s in spans}
    [root] = [s for s in spans if s.parent_span_id not in by_id]
    return root, by_id


def test_a_request_is_one_trace_root_stages_and_operations_with_real_times(make_app, otel_on):
    body = _ask(make_app().test_client()).json
    spans = _received(otel_on, int(body["trace_id"], 16))
    root, by_id = _tree(spans)
    assert (root.name, root.kind, root.parent_span_id) == ("sightline.rag", "SPAN_KIND_SERVER", "")
    assert root.trace_id == body["trace_id"]  # the response's trace id is the trace's id
    assert root.resource["service.name"] == "sightline" and root.scope == "sightline"
    stages = [s for s in spans if s.parent_span_id == root.span_id and s.name.startswith("sightline.")]
    assert {s.name.removeprefix("sightline.") for s in stages} == set(STAGES)
    operations = [s for s in spans if s not in stages and s is not root]
    # one span per operation of the response's trace, each under the stage entry it ran in
    assert Counter(s.name for s in operations) == Counter(op["op"] for op in body["operations"])
    for span in operations:
        parent = by_id[span.parent_span_id]
        assert parent.name == f"sightline.{span.attributes['sightline.stage']}", span.name
        assert parent.start_ns <= span.start_ns <= span.end_ns <= parent.end_ns, span.name
    for stage in stages:
        assert root.start_ns <= stage.start_ns <= stage.end_ns <= root.end_ns
    # a stage's spans add up to its time in the response
    for name in STAGES:
        ms = sum(s.end_ns - s.start_ns for s in stages if s.name == f"sightline.{name}") / 1e6
        assert ms == pytest.approx(body["timing"][name], abs=0.01)
    # attributes: the trace's counts, rules, weights, statuses, issues
    assert root.attributes["sightline.status"] == body["status"]
    assert root.attributes["sightline.config_version"] == body["config_version"]
    assert root.attributes["sightline.caller.name"] == "anonymous" and root.attributes["sightline.now"] == NOW
    assert root.attributes["sightline.issues"] == [i["kind"] for i in body["validation"]["issues"]]
    [route] = [s for s in operations if s.name == "route"]
    assert route.attributes["sightline.task.rule"] == [t["rule"] for t in body["plan"]["tasks"]]
    assert route.attributes["sightline.task.weight"] == [t["weight"] for t in body["plan"]["tasks"]]
    keyword = next(s for s in operations if s.name == "retrieve.keyword")
    assert keyword.attributes["openinference.span.kind"] == "RETRIEVER"
    assert {"sightline.kb", "sightline.input_count", "sightline.output_count", "sightline.kept_count",
            "sightline.rejected_count", "sightline.filters.exclude_status"} <= set(keyword.attributes)
    fused = next(s for s in operations if s.name == "fuse.arms")
    assert fused.attributes["sightline.weights.keyword"] == 1.0
    assert all("sightline.issues" in s.attributes for s in operations if s.name.startswith("validate."))


def test_a_traceparent_puts_the_request_under_the_callers_span(make_app, otel_on):
    response = _ask(make_app().test_client(), headers={"traceparent": PARENT, "X-Request-ID": "req-under-parent"})
    spans = _received(otel_on, int(PARENT.split("-")[1], 16))
    root, _ = _tree(spans)
    assert root.parent_span_id == PARENT.split("-")[2] and root.name == "sightline.rag"
    assert {s.trace_id for s in spans} == {PARENT.split("-")[1]}
    assert root.attributes["sightline.trace_id"] == response.json["trace_id"] == "req-under-parent"


def test_a_request_id_that_is_no_trace_id_is_hashed_to_one(make_app, otel_on):
    _ask(make_app().test_client(), headers={"X-Request-ID": "req-otel-1"})
    root, _ = _tree(_received(otel_on, otel_trace_id("req-otel-1")))
    assert root.attributes["sightline.trace_id"] == "req-otel-1"


def test_a_chat_request_is_a_sightline_chat_trace(make_app, otel_on):
    body = {"model": "sightline-extractive", "messages": [{"role": "user", "content": FUEL_EN}],
            "sightline": {"now": NOW}}
    response = _ask(make_app().test_client(), "/v1/chat/completions", body)
    root, _ = _tree(_received(otel_on, int(response.headers["X-Request-ID"], 16)))
    assert root.name == "sightline.chat" and root.attributes["sightline.profile"] == "sightline-extractive"


def test_the_ui_ask_page_s_request_is_a_sightline_ui_server_trace(make_app, otel_on):
    response = _ask(make_app().test_client(), "/ui/answer")
    root, _ = _tree(_received(otel_on, int(response.headers["X-Request-ID"], 16)))
    assert (root.name, root.kind) == ("sightline.ui", "SPAN_KIND_SERVER")
    assert root.attributes["sightline.endpoint"] == "ui"


def test_a_request_the_loop_refuses_is_one_error_span(make_app, otel_on):
    response = make_app().test_client().post("/rag", json={"query": FUEL_EN, "kb": "nope"})
    assert response.status_code == 404
    [root] = _received(otel_on, int(response.headers["X-Request-ID"], 16))
    assert (root.status, root.attributes["sightline.error.code"]) == ("STATUS_CODE_ERROR", "unknown_kb")
    assert root.attributes["sightline.error.http_status"] == 404


@pytest.mark.parametrize("caller", ["anonymous", "finance"])
def test_a_restricted_documents_words_and_id_never_leave_in_a_span(make_app, otel_on, finance_key, caller):
    headers = {"Authorization": f"Bearer {finance_key}"} if caller == "finance" else {}
    body = _ask(make_app().test_client(), body={"query": SALARY["query"], "now": NOW}, headers=headers).json
    cited = {c["chunk_id"].split("#")[0] for c in body["citations"]}
    assert (SALARY["doc"] in cited) == (caller == "finance")  # the finance caller's answer quotes it
    spans = _received(otel_on, int(body["trace_id"], 16))
    exported = json.dumps([[s.name, s.attributes] for s in spans], ensure_ascii=False)
    assert SALARY["doc"] not in exported and SALARY["text"] not in exported
    assert SALARY["query"] not in exported  # nor the question, nor the answer
    assert not any(isinstance(v, str) and len(v) > 40 and v in body["answer"]
                   for s in spans for v in s.attributes.values())


def test_a_ratio_sampler_samples_sightlines_own_trace_ids_at_its_ratio():
    """The ratio sampler reads a trace id's low 64 bits: a uuid4 fixes the top two of them, and at a
    ratio below 0.5 no request was ever sampled."""
    from opentelemetry.sdk.trace.sampling import TraceIdRatioBased

    sampler = TraceIdRatioBased(0.25)
    ids = [otel_trace_id(new_trace_id()) for _ in range(4000)]
    sampled = sum(sampler.should_sample(None, trace_id, "sightline.rag").decision.is_sampled() for trace_id in ids)
    assert 0.2 < sampled / len(ids) < 0.3


def test_parameters_leave_through_allow_lists_only():
    params = {"query": "salary bands", "tokens": ["salari", "band"], "down_weighted": {"doc#0": "x0.7"},
              "term_weights": {"salary": 2.0}, "hints": [{"action": "add_task", "reason": "quoted text"}],
              "kb": "policies", "k": 100, "shared_idf": True, "weights": {"keyword": 1.0, "t1": 0.5},
              "filters": {"time_start": "2023-01-01", "exclude_status": ["draft"], "keep_undated": False},
              "reason": "free text", "status": {"draft": 0.6}, "half_life_days": 1095, "entity": "A320"}
    assert param_attributes(params) == {
        "sightline.kb": "policies", "sightline.k": 100, "sightline.shared_idf": True,
        "sightline.weights.keyword": 1.0, "sightline.weights.t1": 0.5,
        "sightline.filters.time_start": "2023-01-01", "sightline.filters.exclude_status": ["draft"],
        "sightline.filters.keep_undated": False}


def test_an_unreachable_collector_never_fails_a_request(make_app, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")  # discard port: nothing listens
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    try:
        assert _ask(make_app().test_client()).json["status"] in ("answered", "partial")
    finally:
        otel.shutdown()


@pytest.mark.parametrize("variable", ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"])
def test_a_protocol_it_cannot_send_stops_the_start(monkeypatch, variable):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
    monkeypatch.setenv(variable, "grpc")
    try:
        with pytest.raises(ConfigError, match=f"{variable}: 'grpc' is not supported.*4318") as error:
            otel.configure()
        assert error.value.field == variable
        monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
        otel.configure()  # off: nothing to check
        assert not otel.enabled()
    finally:
        otel.shutdown()


def test_off_the_sdk_is_never_imported():
    code = ("import sys\nfrom server import otel\nfrom server.http import app, chat\nfrom server import service\n"
            "assert not otel.enabled()\notel.export(None)\notel.export_failure(None, RuntimeError())\n"
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry.sdk')))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_gunicorn_workers_export_and_send_what_is_queued_when_they_exit(demo_kbs, tmp_path, receiver):
    """Under `sightline serve`: each worker exports after the fork; a batch delay longer than the
    test means the spans arrive only because each worker flushes on exit (gunicorn's worker_exit)."""
    receiver.clear()
    live = start_service(demo_kbs, tmp_path, workers=2, env={
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_BSP_SCHEDULE_DELAY": "600000"})
    try:
        ids = []
        for n in range(4):
            status, headers, body = live.request("POST", "/rag", {"query": FUEL_EN, "now": NOW, "trace": "none"},
                                                 {"traceparent": PARENT} if n == 3 else {})
            assert status == 200, body
            ids.append(body["trace_id"])
    finally:
        live.stop()
    spans = receiver.wait_for(lambda got: len({s.trace_id for s in got}) >= 4)
    roots = [s for s in spans if s.name == "sightline.rag"]
    assert sorted(r.attributes["sightline.trace_id"] for r in roots) == sorted(ids)
    assert {r.trace_id for r in roots} == {*ids[:3], PARENT.split("-")[1]}
    assert all(len([s for s in spans if s.trace_id == r.trace_id]) > len(STAGES) for r in roots)  # stages, operations
