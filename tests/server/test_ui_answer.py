"""POST /ui/answer, over the real loop (in-process): /rag's request, caller, errors and answering,
answered with the trace page rendered from the answer in memory, so the /ui ask page needs no
second request and works on any host, with the trace store on or off."""

from __future__ import annotations

import logging
import re

import pytest
from prometheus_client import REGISTRY

from server.http.ui import CSP, STORE, STORED_HEADER

from .conftest import FUEL_EN, NOW, OFF_TOPIC

SALARY = {"query": "What are the engineering salary bands?", "doc": "policies-salary-bands-2025", "text": "52,000"}
FIXED_CLOCK = 1_751_371_200.0  # 2025-07-01T12:00:00Z: the store's clock, so both pages say the same time


@pytest.fixture
def app(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path))  # the trace store: <data dir>/traces
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


class _Records(logging.Handler):
    """Keeps the records it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _found(pattern: str, html: str, group: int = 0) -> str:
    match = re.search(pattern, html, re.S)
    assert match, pattern
    return match.group(group)


def _result(html: str) -> str:
    """The page's <main id="result"> element: what the ask page's script puts in place."""
    return _found(r'<main id="result">.*?</main>', html)


def _text(html: str) -> str:
    """The visible text of some HTML, whitespace collapsed (entities left as written)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _trace_id(html: str) -> str:
    return _found(r'<article class="trace" id="trace" data-trace-id="([^"]+)"', html, 1)


def _requests(status: str, endpoint: str) -> float:
    return REGISTRY.get_sample_value("sightline_requests_total", {"status": status, "endpoint": endpoint}) or 0.0


# --- the page of the answer, from the answering host's memory ----------------------------------------

def test_the_reply_is_the_answer_s_trace_page_and_says_the_trace_was_stored(client, app):
    response = client.post("/ui/answer", json={"query": FUEL_EN, "now": NOW}, headers={"X-Request-ID": "ui-1"})
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers[STORED_HEADER] == "true" and response.headers["X-Sightline-Status"] == "answered"
    html = response.get_data(as_text=True)
    assert _trace_id(html) == response.headers["X-Request-ID"] == "ui-1"
    record = app.extensions[STORE].get("ui-1")
    body = record.content["body"]
    assert record.owner == {"name": "anonymous", "kind": "anonymous", "groups": []}
    claim = next(c["text"] for c in body["claims"] if c["text"])
    assert " ".join(claim.split()[:5]) in _text(_result(html))  # the answer's text is on the page
    assert 'id="attempt-0"' in html and "retrieve.keyword" in html and body["config_version"] in html
    assert ", stored " in _text(_result(html))


def test_with_the_store_off_the_page_is_still_the_answer_and_says_it_was_not_stored(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path))
    client = make_app(traces_max_entries=0).test_client()
    response = client.post("/ui/answer", json={"query": FUEL_EN, "now": NOW})
    assert response.status_code == 200 and response.headers[STORED_HEADER] == "false"
    result = _text(_result(response.get_data(as_text=True)))
    assert "Answer answered" in result and "not stored: this page cannot be reopened" in result
    assert not (tmp_path / "traces").exists()
    trace_id = response.headers["X-Request-ID"]
    assert client.get(f"/ui/trace/{trace_id}").status_code == 404
    ask = _text(client.get("/ui").get_data(as_text=True))
    assert "shown here but not kept" in ask and "not shown here" not in ask


@pytest.mark.parametrize("query", [FUEL_EN, OFF_TOPIC])
def test_the_page_equals_the_one_the_stored_trace_shows(client, app, query):
    app.extensions[STORE].clock = lambda: FIXED_CLOCK
    answered = client.post("/ui/answer", json={"query": query, "now": NOW})
    assert answered.headers[STORED_HEADER] == "true"
    trace_id = answered.headers["X-Request-ID"]
    reopened = client.get(f"/ui/trace/{trace_id}")
    assert reopened.status_code == 200
    assert _result(answered.get_data(as_text=True)) == _result(reopened.get_data(as_text=True))


def test_a_reply_is_counted_under_its_own_endpoint_label(client):
    before = {key: _requests(*key) for key in (("answered", "ui"), ("rejected", "ui"), ("answered", "rag"))}
    assert client.post("/ui/answer", json={"query": FUEL_EN, "now": NOW}).status_code == 200
    assert client.post("/ui/answer", json={"query": ""}).status_code == 400
    assert _requests("answered", "ui") == before[("answered", "ui")] + 1
    assert _requests("rejected", "ui") == before[("rejected", "ui")] + 1
    assert _requests("answered", "rag") == before[("answered", "rag")]


def test_a_reply_gets_rag_s_request_log_line(client):
    handler = _Records()
    logger = logging.getLogger("sightline.http")
    logger.addHandler(handler)
    try:
        client.post("/ui/answer", json={"query": FUEL_EN, "now": NOW}, headers={"X-Request-ID": "ui-log-1"})
    finally:
        logger.removeHandler(handler)
    record = next(r for r in handler.records if getattr(r, "event", None) == "request")
    line = vars(record)
    assert record.getMessage() == "ui 200" and line["path"] == "/ui/answer" and line["method"] == "POST"
    assert line["answer_status"] == "answered" and line["attempts"] >= 1 and line["config_version"] and line["timing"]


def test_the_reply_carries_the_pages_security_headers(client):
    response = client.post("/ui/answer", json={"query": FUEL_EN, "now": NOW})
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == CSP
    assert response.headers["Cache-Control"] == "no-store" and response.headers["X-Frame-Options"] == "DENY"


# --- /rag's callers, limits and errors (JSON, not pages) ----------------------------------------------

@pytest.mark.parametrize("request_kwargs", [
    {"data": b"{", "content_type": "application/json"},  # malformed JSON
    {"json": {"query": "   "}},  # no text
    {"json": {"query": "x", "bogus": 1}},  # an unknown field
    {"json": {"query": "x", "top_k": 0}},  # under a limit
    {"json": {"query": "x", "kb": "nope"}},  # an unknown knowledge base: 404
    {"json": ["query"]},  # not an object
])
def test_a_bad_request_gets_rag_s_json_error(client, request_kwargs):
    rag = client.post("/rag", **request_kwargs)
    ui = client.post("/ui/answer", **request_kwargs)
    assert rag.status_code in (400, 404)
    assert (ui.status_code, ui.mimetype, ui.json) == (rag.status_code, "application/json", rag.json)


def test_an_unknown_key_gets_rag_s_401(api_keys, client):
    headers = {"Authorization": "Bearer sl_unknown_key_0123456789abcdef"}
    rag = client.post("/rag", json={"query": FUEL_EN}, headers=headers)
    ui = client.post("/ui/answer", json={"query": FUEL_EN}, headers=headers)
    assert (ui.status_code, ui.mimetype, ui.json) == (401, "application/json", rag.json)
    assert ui.json["error"]["code"] == "unknown_key" and ui.headers["WWW-Authenticate"] == rag.headers[
        "WWW-Authenticate"]


def test_get_is_refused_as_on_rag(client):
    response = client.get("/ui/answer")
    assert response.status_code == 405 and response.json["error"]["code"] == "method_not_allowed"


def test_an_anonymous_answer_page_never_holds_a_restricted_document(api_keys, client):
    anonymous = client.post("/ui/answer", json={"query": SALARY["query"], "now": NOW})
    assert anonymous.status_code == 200
    page = anonymous.get_data(as_text=True)
    assert SALARY["doc"] not in page and SALARY["text"] not in page and "Salary Bands" not in page
    finance = client.post("/ui/answer", json={"query": SALARY["query"], "now": NOW},
                          headers={"Authorization": f"Bearer {api_keys['finance-app']}"})
    assert SALARY["doc"] in finance.get_data(as_text=True)  # the group's key sees it: the test can tell


# --- behind round robin: the page comes from the host that answered ----------------------------------

def test_behind_round_robin_the_page_needs_no_second_host(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path / "host-a"))  # each host its own trace store
    host_a = make_app().test_client()
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path / "host-b"))
    host_b = make_app().test_client()
    answered = host_a.post("/ui/answer", json={"query": FUEL_EN, "now": NOW})
    assert answered.status_code == 200 and answered.headers[STORED_HEADER] == "true"
    trace_id = _trace_id(answered.get_data(as_text=True))
    assert 'id="answer"' in answered.get_data(as_text=True)
    # what the ask page did before: a second request, which round robin sends to the other host
    elsewhere = host_b.get(f"/ui/trace/{trace_id}")
    assert elsewhere.status_code == 404 and "trace_not_found" in elsewhere.get_data(as_text=True)
    assert host_a.get(f"/ui/trace/{trace_id}").status_code == 200
