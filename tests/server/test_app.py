"""The Flask app in-process (test client): endpoints, trace levels, request ids, readiness."""

from __future__ import annotations

import pytest

from server.http.schemas import parse_ask_request
from server.loop import shape_trace

from .conftest import FUEL_EN, INVOICE_EN, NOW


@pytest.fixture(scope="module")
def fuel(answer_loop):
    """The loop's own full response to the fuel comparison (to compare the HTTP one against)."""
    return answer_loop.run(parse_ask_request({"query": FUEL_EN, "now": NOW}))


def test_healthz_and_readyz(client):
    assert client.get("/healthz").json["status"] == "ok"
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json["ready"] is True
    assert set(ready.json["checks"]["knowledge_bases"]) == {"manuals", "policies", "reports"}
    assert ready.json["checks"]["router"]["version"]


def test_kb_lists_counts_and_build_dates(client):
    body = client.get("/kb").json
    names = [kb["name"] for kb in body["knowledge_bases"]]
    assert names == ["manuals", "policies", "reports"]
    for kb in body["knowledge_bases"]:
        assert kb["chunks"] > 0 and kb["documents"] > 0 and kb["built_at"] and kb["ready"]


def test_rag_answers_with_citations_and_timing(client, fuel):
    response = client.post("/rag", json={"query": FUEL_EN, "now": NOW})
    assert response.status_code == 200, response.json
    body = response.json
    assert body["status"] == "answered"
    assert body["trace_id"] == response.headers["X-Request-ID"]
    assert body["answer"] == fuel["answer"]
    assert [c["chunk_id"] for c in body["citations"]] == [c["chunk_id"] for c in fuel["citations"]]
    for citation in body["citations"]:
        assert citation["source"] and citation["title"] and citation["updated_at"] and citation["snippet"]
    assert set(body["timing"]) == {"perceive", "route", "retrieve", "compose", "validate", "total"}
    assert body["config_version"] == fuel["config_version"]
    assert body["perception"]["action"] == "compare"
    assert body["plan"]["tasks"] and body["operations"] and body["attempts"]


@pytest.mark.parametrize("level", ["none", "summary", "full"])
def test_shaping_a_full_response_matches_the_loops_own_trace_levels(answer_loop, fuel, level):
    own = answer_loop.run(parse_ask_request({"query": FUEL_EN, "now": NOW, "trace": level}))
    trimmed = shape_trace(fuel, level)
    assert trimmed["attempts"] == own["attempts"]
    assert [sorted(o) for o in trimmed["operations"]] == [sorted(o) for o in own["operations"]]
    assert [o["op"] for o in trimmed["operations"]] == [o["op"] for o in own["operations"]]
    assert set(trimmed) == set(own)


def test_request_id_is_echoed_or_generated(client):
    given = client.post("/rag", json={"query": INVOICE_EN, "now": NOW, "trace": "none"},
                        headers={"X-Request-ID": "chat-42.a"})
    assert given.headers["X-Request-ID"] == "chat-42.a" == given.json["trace_id"]
    assert given.json["attempts"] == [] and given.json["operations"] == []
    bad = client.get("/healthz", headers={"X-Request-ID": "no spaces <allowed>"})
    assert bad.headers["X-Request-ID"] != "no spaces <allowed>" and len(bad.headers["X-Request-ID"]) == 32
    assert client.get("/nowhere").headers["X-Request-ID"]


def test_metrics_count_answers_stages_and_retrieval(client):
    from prometheus_client import REGISTRY

    def value(name, **labels):
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before = value("sightline_requests_total", status="answered", endpoint="rag")
    stage_before = value("sightline_stage_seconds_count", stage="retrieve")
    client.post("/rag", json={"query": INVOICE_EN, "now": NOW, "trace": "none"})
    assert value("sightline_requests_total", status="answered", endpoint="rag") == before + 1
    assert value("sightline_stage_seconds_count", stage="retrieve") == stage_before + 1
    text = client.get("/metrics").get_data(as_text=True)
    for name in ("sightline_requests_total", "sightline_request_seconds_bucket", "sightline_stage_seconds_bucket",
                 "sightline_retrieval_seconds_bucket", "sightline_router_reloads_total",
                 "sightline_router_config", "sightline_kb_chunks"):
        assert name in text
    assert 'sightline_retrieval_seconds_count{kb="policies",search="keyword"}' in text


def test_not_ready_without_indexes(tmp_path, monkeypatch):
    from server.http.app import create_app
    from server.settings import ServiceSettings

    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path))
    client = create_app(ServiceSettings(workers=1)).test_client()
    assert client.get("/healthz").status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert "sightline ingest" in ready.json["reason"]
    rag = client.post("/rag", json={"query": "anything"})
    assert rag.status_code == 503
    assert rag.json["error"]["code"] == "not_ready"


def test_openapi_is_served(client):
    doc = client.get("/openapi.json").json
    assert doc["openapi"].startswith("3.1")
    assert doc["components"]["schemas"]["RagRequest"]["properties"]["query"]["maxLength"] == 2000
