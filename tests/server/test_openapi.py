"""GET /openapi.json stays true: every route is documented, real responses match the schemas."""

from __future__ import annotations

import re

import pytest

from server.http.openapi import build_openapi
from server.http.schemas import FIELDS, RequestLimits

from .conftest import DATES, NOW
from .schema_check import errors

TOKEN = "openapi-token-long-enough-to-be-accepted-0123"


@pytest.fixture
def app(make_app):
    return make_app(token=TOKEN)


@pytest.fixture
def doc(app):
    return app.test_client().get("/openapi.json").json


def _validate(doc, schema_name, body):
    problems = errors(body, {"$ref": f"#/components/schemas/{schema_name}"}, doc)
    assert not problems, problems[:10]


def test_every_route_and_method_is_documented(app, doc):
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower()))
    documented = {(path, method) for path, item in doc["paths"].items() for method in item}
    assert routes == documented


def test_request_schema_names_every_field_and_limit(doc):
    request = doc["components"]["schemas"]["RagRequest"]
    assert set(request["properties"]) == set(FIELDS)
    assert request["required"] == ["query"]
    limits = RequestLimits()
    assert request["properties"]["query"]["maxLength"] == limits.max_query_chars
    assert request["properties"]["top_k"]["maximum"] == limits.max_top_k
    assert request["properties"]["max_retries"]["maximum"] == limits.max_retries
    assert str(limits.max_body_bytes) in doc["paths"]["/rag"]["post"]["requestBody"]["description"]


def test_limits_in_the_document_follow_the_settings():
    doc = build_openapi(RequestLimits(max_query_chars=300, max_top_k=7))
    assert doc["components"]["schemas"]["RagRequest"]["properties"]["query"]["maxLength"] == 300
    assert doc["components"]["schemas"]["RagRequest"]["properties"]["top_k"]["maximum"] == 7


@pytest.mark.parametrize("trace", ["full", "summary", "none"])
def test_real_rag_responses_validate(app, doc, trace):
    response = app.test_client().post("/rag", json={"query": DATES, "now": NOW, "trace": trace})
    assert response.status_code == 200
    _validate(doc, "RagResponse", response.json)
    assert "200" in doc["paths"]["/rag"]["post"]["responses"]


def test_other_responses_validate(app, doc):
    client = app.test_client()
    auth = {"Authorization": f"Bearer {TOKEN}"}
    _validate(doc, "Health", client.get("/healthz").json)
    _validate(doc, "Ready", client.get("/readyz").json)
    _validate(doc, "KnowledgeBases", client.get("/kb").json)
    _validate(doc, "RouterState", client.get("/admin/router", headers=auth).json)
    _validate(doc, "ReloadResult", client.post("/admin/reload", headers=auth).json)
    for response in (client.post("/rag", data=b"{", content_type="application/json"), client.get("/rag"),
                     client.post("/rag", json={"query": "x", "kb": "nope"}), client.get("/admin/router")):
        _validate(doc, "Error", response.json)
        documented = {code for op in doc["paths"][response.request.path].values() for code in op["responses"]}
        assert str(response.status_code) in documented


@pytest.mark.parametrize("query", ["\x1c", "\x00\x1f", "\ufeff ", "\u3000\t", "\x85", "a", "\x1cA", "é", "发票"])
def test_the_schema_and_the_server_agree_on_what_an_empty_query_is(client, doc, query):
    """Schemathesis sent "\\x1c": the schema's `\\S` let it through, the server called it empty (400)."""
    import re

    pattern = doc["components"]["schemas"]["RagRequest"]["properties"]["query"]["pattern"]
    # \x1c-\x1f are whitespace to Python, not to JSON Schema's ECMA-262 `\s`: the pattern must exclude them itself
    assert all(ch in pattern for ch in ("\\u0000-\\u001f", "\\u007f-\\u009f", "\\ufeff"))
    schema_valid = re.search(pattern, query) is not None
    status = client.post("/rag", json={"query": query, "now": NOW, "trace": "none"}).status_code
    assert (status == 200) == schema_valid and status in (200, 400)


def test_real_chat_responses_validate(app, doc):
    client = app.test_client()
    chat = {"model": "sightline", "messages": [{"role": "user", "content": DATES}], "sightline": {"now": NOW}}
    for trace in ("full", "none"):
        response = client.post("/v1/chat/completions", json={**chat, "sightline": {"now": NOW, "trace": trace}})
        assert response.status_code == 200
        _validate(doc, "ChatCompletion", response.json)
    streamed = client.post("/v1/chat/completions", json={**chat, "stream": True})
    assert streamed.status_code == 200 and streamed.mimetype == "text/event-stream"
    assert "text/event-stream" in doc["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    _validate(doc, "ModelList", client.get("/v1/models").json)
    _validate(doc, "Model", client.get("/v1/models/sightline-extractive").json)
    for response in (client.post("/v1/chat/completions", data=b"{", content_type="application/json"),
                     client.post("/v1/chat/completions", json={**chat, "model": "gpt-4o"}),
                     client.post("/v1/chat/completions", json=chat, headers={"Authorization": "Bearer x"}),
                     client.get("/v1/models/gpt-4o")):
        _validate(doc, "OpenAIError", response.json)
        path = "/v1/models/{model}" if response.request.path.startswith("/v1/models/") else response.request.path
        documented = {code for op in doc["paths"][path].values() for code in op["responses"]}
        assert str(response.status_code) in documented, (path, response.status_code)
