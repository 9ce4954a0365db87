"""MCP at /mcp of the real gunicorn service, with the SDK's own streamable-HTTP client and real API keys.

`secured` (conftest.py) is `sightline serve` with 2 workers and keys made by `sightline keys add`
(finance-app, eng-app, hr-app). Every caller asks about both restricted documents through every
tool; `ask` must equal POST /rag's reply for the same caller, and no tool may show a restricted
document (id or text) to a caller outside its group.
"""

from __future__ import annotations

import json

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .test_access_control import NOW, RESTRICTED

pytestmark = pytest.mark.slow

CALLERS = (None, "finance-app", "eng-app", "hr-app")
FUEL = "What is the fuel burn of the A320neo in 2023?"


def _tool_replies(url: str, key: str | None, question: str) -> dict[str, dict]:
    """tool name -> structured result of ask, search (twice: default and policies+reports with top_k 50)
    and list_knowledge_bases, in one MCP session as the caller of `key`."""
    async def run():
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            async with Client(streamable_http_client(url + "/mcp", http_client=http)) as client:
                calls = {"ask": ("ask", {"question": question, "now": NOW}),
                         "search": ("search", {"question": question, "now": NOW}),
                         "search-wide": ("search", {"question": question, "now": NOW, "top_k": 50,
                                                    "kb": ["policies", "reports"]}),
                         "list": ("list_knowledge_bases", {})}
                replies = {}
                for name, (tool, arguments) in calls.items():
                    result = await client.call_tool(tool, arguments)
                    assert not result.is_error, result.content
                    replies[name] = result.structured_content
                return replies

    return anyio.run(run)


@pytest.mark.parametrize("caller", CALLERS)
def test_every_tool_shows_a_caller_only_what_its_key_may_read_and_ask_equals_rag(secured, caller):
    key = secured.keys[caller] if caller else None
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    for case in (*RESTRICTED.values(), {"query": FUEL}):
        replies = _tool_replies(secured.live.url, key, case["query"])
        status, _headers, body = secured.live.request("POST", "/rag", {"query": case["query"], "now": NOW}, headers)
        assert status == 200, body
        assert {k: replies["ask"][k] for k in ("status", "answer", "citations")} == \
            {k: body[k] for k in ("status", "answer", "citations")}, (caller, case["query"])
        if "doc" not in case:
            continue
        raw = json.dumps(replies, ensure_ascii=False)
        if caller == case["key"]:
            assert case["doc"] in {c["chunk_id"].split("#")[0] for c in replies["ask"]["citations"]}
            assert case["doc"] in {r["doc_id"] for r in replies["search-wide"]["results"]}
        else:
            assert case["doc"] not in raw and case["text"] not in raw, (caller, case["doc"])


def test_an_unknown_key_is_refused_before_any_tool_runs(secured):
    status, headers, body = secured.live.request(
        "POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"Authorization": "Bearer sl_" + "x" * 43, "Accept": "application/json, text/event-stream"})
    assert status == 401 and body["error"]["code"] == "unknown_key"
    assert headers["www-authenticate"].startswith("Bearer")
