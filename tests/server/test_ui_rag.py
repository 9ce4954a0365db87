"""POST /rag keeps the full trace of every answer for /ui/trace/<id>, over the real loop (in-process)."""

from __future__ import annotations

import pytest

from server.traces import TraceLimits, TraceStore

from .conftest import FUEL_EN, NOW, OFF_TOPIC


@pytest.fixture
def client(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path))  # the trace store: <data dir>/traces
    return make_app().test_client()


def _record(tmp_path, trace_id):
    return TraceStore(tmp_path / "traces", TraceLimits()).get(trace_id)


def test_rag_keeps_the_full_trace_whatever_level_it_answers_with(client, tmp_path):
    reply = client.post("/rag", json={"query": FUEL_EN, "now": NOW, "trace": "none"}).json
    assert reply["operations"] == [] and reply["attempts"] == []
    record = _record(tmp_path, reply["trace_id"])
    assert record.owner == {"name": "anonymous", "kind": "anonymous", "groups": []}
    body = record.content["body"]
    assert body["operations"] and body["attempts"][0]["plan"]["tasks"] and body["answer"] == reply["answer"]
    candidate = body["attempts"][0]["candidates"][0]
    assert candidate["chunk_id"] == body["attempts"][0]["evidence"][0] and candidate["ranks"] and candidate["fused"] > 0
    cited = record.content["chunks"][reply["citations"][0]["chunk_id"]]
    assert reply["citations"][0]["snippet"] in cited["text"]  # the whole chunk, to highlight the span in
    assert set(record.content["builds"]) == {t["kb"] for t in body["plan"]["tasks"]}


def test_the_trace_page_of_a_real_answer_marks_each_claim_in_its_chunk(client):
    reply = client.post("/rag", json={"query": FUEL_EN, "now": NOW}).json
    page = client.get(f"/ui/trace/{reply['trace_id']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert html.count('<mark class="support" id="span-') >= len([c for c in reply["claims"] if c["text"]]) - 1
    assert 'id="attempt-0"' in html and "retrieve.keyword" in html and reply["config_version"] in html


def test_a_refusal_s_page_shows_the_closest_chunks_text(client, tmp_path):
    reply = client.post("/rag", json={"query": OFF_TOPIC, "now": NOW}).json
    assert reply["status"] == "insufficient"
    record = _record(tmp_path, reply["trace_id"])
    closest = record.content["body"]["attempts"][-1]["evidence"][:1]
    assert closest and set(closest) <= set(record.content["chunks"])
    html = client.get(f"/ui/trace/{reply['trace_id']}").get_data(as_text=True)
    assert 'id="refusal"' in html and f'<li data-chunk="{closest[0]}">' in html


def test_an_anonymous_caller_s_trace_holds_no_restricted_document(client, tmp_path):
    reply = client.post("/rag", json={"query": "What are the engineering salary bands?", "now": NOW}).json
    stored = "".join(path.read_text() for path in (tmp_path / "traces").iterdir())
    assert reply["trace_id"] in stored
    assert "policies-salary-bands-2025" not in stored and "52,000" not in stored


def test_summary_replies_leave_the_candidates_and_scoring_out(client):
    reply = client.post("/rag", json={"query": FUEL_EN, "now": NOW, "trace": "summary"}).json
    assert reply["attempts"] and not {"plan", "candidates", "scoring"} & set(reply["attempts"][0])
