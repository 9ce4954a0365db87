"""The MCP server with the SDK's own client, over streamable HTTP at /mcp of the real Flask app.

The app (create_app over the session's warmed loop) is served by werkzeug on a loopback port, so
the SDK's `streamable_http_client` talks HTTP to the same view gunicorn runs; the gunicorn
service is tried in tests/reliability/test_mcp_service.py and stdio in test_mcp_stdio.py.
What an agent would notice: the three tools listed with their schemas, `ask` answering exactly
as POST /rag answers the same question for the same key, `search` with scores, errors it can
read and correct, and no restricted document for a key outside its group, through any tool.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from werkzeug.serving import make_server
from werkzeug.wsgi import LimitedStream

from server.mcp.server import tool_list

from .conftest import FUEL_EN, INVOICE_ZH, NOW, OFF_TOPIC

SALARY = {"query": "What are the engineering salary bands?", "doc": "policies-salary-bands-2025", "text": "52,000"}


def like_gunicorn(app):
    """The app with its input stream ending at Content-Length, as gunicorn hands it over (werkzeug's
    development server gives the socket itself, and the body read waits for 64 KB that never come)."""
    def wsgi(environ, start_response):
        length = int(environ.get("CONTENT_LENGTH") or 0)
        environ["wsgi.input"] = LimitedStream(environ["wsgi.input"], length)
        return app(environ, start_response)

    return wsgi


@pytest.fixture
def served(make_app, api_keys) -> Iterator[tuple[str, object]]:
    """(URL, app): the app with the key file, served over HTTP on a free loopback port."""
    app = make_app()
    server = make_server("127.0.0.1", 0, like_gunicorn(app), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}", app
    finally:
        server.shutdown()
        thread.join()


def mcp_session(url: str, key: str | None, work, mode: str = "auto"):
    """Run `work(client)` in an MCP client session to url/mcp with `key` (None: anonymous); its value."""
    async def run():
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            async with Client(streamable_http_client(url + "/mcp", http_client=http), mode=mode) as client:
                return await work(client)

    return anyio.run(run)


def call(url: str, key: str | None, tool: str, arguments: dict, mode: str = "auto"):
    """One tool call in a session of its own: the CallToolResult."""
    async def work(client):
        return await client.call_tool(tool, arguments)

    return mcp_session(url, key, work, mode)


def rag(app, key: str | None, body: dict) -> dict:
    """POST /rag through the app's test client, as the caller of `key`."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    response = app.test_client().post("/rag", json=body, headers=headers)
    assert response.status_code == 200, response.json
    return response.json


def test_the_tools_are_announced_with_their_schemas_and_limits():
    tools = {tool.name: tool for tool in tool_list()}
    assert list(tools) == ["ask", "search", "list_knowledge_bases"]
    assert tools["ask"].input_schema["required"] == ["question"]
    assert set(tools["ask"].input_schema["properties"]) == {"question", "kb", "now"}
    assert set(tools["search"].input_schema["properties"]) == {"question", "kb", "now", "top_k"}
    assert tools["ask"].input_schema["properties"]["question"]["maxLength"] == 2000
    assert tools["ask"].output_schema["required"] == ["trace_id", "status", "answer", "short_answer", "citations",
                                                      "unavailable_kbs"]
    assert all(tool.annotations.read_only_hint for tool in tools.values())


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_an_agent_lists_the_tools_in_either_protocol_era(served, mode):
    url, _app = served

    async def work(client):
        return [tool.name for tool in (await client.list_tools()).tools]

    assert mcp_session(url, None, work, mode) == ["ask", "search", "list_knowledge_bases"]


@pytest.mark.parametrize("question", [FUEL_EN, INVOICE_ZH, OFF_TOPIC])
@pytest.mark.parametrize("caller", [None, "finance-app"])
def test_ask_answers_exactly_as_rag_does_for_the_same_question_and_caller(served, api_keys, question, caller):
    url, app = served
    key = api_keys[caller] if caller else None
    result = call(url, key, "ask", {"question": question, "now": NOW})
    assert not result.is_error, result.content
    body = rag(app, key, {"query": question, "now": NOW})
    got = result.structured_content
    assert {k: got[k] for k in ("status", "answer", "citations")} == \
        {k: body[k] for k in ("status", "answer", "citations")}
    assert len(got["trace_id"]) == 32 and got["trace_id"] != body["trace_id"]
    assert json.loads(result.content[0].text) == got  # the same result as text, for clients without structure


def test_ask_counts_in_the_request_metrics_as_endpoint_mcp(served):
    from prometheus_client import REGISTRY

    url, _app = served

    def count() -> float:
        return REGISTRY.get_sample_value("sightline_requests_total", {"status": "answered", "endpoint": "mcp"}) or 0

    before = count()
    assert call(url, None, "ask", {"question": FUEL_EN, "now": NOW}).structured_content["status"] == "answered"
    assert count() == before + 1


def test_search_returns_the_ranked_evidence_with_every_score(served):
    url, _app = served
    result = call(url, None, "search", {"question": FUEL_EN, "now": NOW, "kb": ["reports", "manuals"]})
    assert not result.is_error, result.content
    found = result.structured_content
    assert found["tasks"] and all(task["kb"] in ("reports", "manuals") for task in found["tasks"])
    results = found["results"]
    assert results and [r["rank"] for r in results] == list(range(1, len(results) + 1))
    assert all(r["kb"] in ("reports", "manuals") for r in results)
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    first = results[0]
    assert first["chunk_id"].startswith(first["doc_id"]) and first["title"] and first["snippet"]
    assert any(name.endswith(":keyword") for name in first["ranks"]) or \
        any(name.endswith(":vector") for name in first["ranks"])
    assert "acl" not in first["metadata"]


@pytest.mark.parametrize("arguments,field,words", [
    ({}, "question", "'question' is required"),
    ({"question": "   "}, "question", "'question' is empty"),
    ({"question": "fuel?", "kb": ["nope"]}, "kb", "nope"),
    ({"question": "fuel?", "now": "tomorrow"}, "now", "not an ISO date"),
    ({"question": "fuel?", "sources": 3}, "sources", "unknown argument(s) sources"),
    ({"question": "x" * 2001}, "question", "the limit is 2000"),
])
def test_a_bad_argument_is_an_error_result_naming_it(served, arguments, field, words):
    url, _app = served
    result = call(url, None, "ask", arguments)
    assert result.is_error
    error = result.structured_content["error"]
    assert error["field"] == field and words in error["message"], error


def test_an_unknown_tool_is_a_protocol_error(served):
    from mcp.shared.exceptions import MCPError

    url, _app = served

    async def work(client):
        with pytest.raises(MCPError, match="unknown tool 'answer'; the tools are ask, search, list_knowledge_bases"):
            await client.call_tool("answer", {"question": "x"})
        return (await client.call_tool("list_knowledge_bases", {})).is_error  # the session goes on

    assert mcp_session(url, None, work) is False


def test_the_http_edge_refuses_what_rag_refuses(served):
    url, app = served
    client = app.test_client()
    unknown = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                          headers={"Authorization": "Bearer sl_" + "x" * 40, "Accept": "application/json"})
    assert unknown.status_code == 401 and unknown.json["error"]["code"] == "unknown_key"
    too_big = client.post("/mcp", data=b"x" * 70_000, headers={"Content-Type": "application/json"})
    assert too_big.status_code == 413
    for method in ("get", "delete"):
        response = getattr(client, method)("/mcp")
        assert response.status_code == 405 and "POST" in response.headers["Allow"]


def test_list_knowledge_bases_counts_only_what_the_caller_may_read(served, api_keys):
    url, app = served
    anonymous = call(url, None, "list_knowledge_bases", {}).structured_content
    finance = call(url, api_keys["finance-app"], "list_knowledge_bases", {}).structured_content
    kb = app.test_client().get("/kb").json["knowledge_bases"]
    assert anonymous["knowledge_bases"] == kb  # what GET /kb shows the same caller
    counts = {k["name"]: k["chunks"] for k in anonymous["knowledge_bases"]}
    finance_counts = {k["name"]: k["chunks"] for k in finance["knowledge_bases"]}
    assert finance_counts["policies"] > counts["policies"]  # the salary bands
    assert finance_counts["manuals"] == counts["manuals"]


def test_a_restricted_document_reaches_no_caller_outside_its_group_through_any_tool(served, api_keys):
    url, _app = served
    question = {"question": SALARY["query"], "now": NOW}
    calls = [("ask", question), ("search", question), ("search", {**question, "kb": ["policies"], "top_k": 50}),
             ("list_knowledge_bases", {})]
    for caller in (None, "eng-app"):
        for tool, arguments in calls:
            result = call(url, api_keys[caller] if caller else None, tool, arguments)
            raw = json.dumps(result.structured_content, ensure_ascii=False) + result.content[0].text
            assert SALARY["doc"] not in raw and SALARY["text"] not in raw, (caller, tool)
    asked = call(url, api_keys["finance-app"], "ask", question).structured_content
    assert SALARY["doc"] in {c["chunk_id"].split("#")[0] for c in asked["citations"]}
    found = call(url, api_keys["finance-app"], "search", question).structured_content
    assert SALARY["doc"] in {r["doc_id"] for r in found["results"]}
