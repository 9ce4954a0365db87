"""`sightline mcp` over stdio with the SDK's own client, as Claude Desktop or an agent framework starts it.

The client launches `python -m server.cli mcp` with an API key in SIGHTLINE_API_KEY (how an
agent's config passes it) over the demo knowledge bases; the server answers as the key's caller,
exactly as POST /rag answers that key. Who may start the command with a key or with --groups is
checked without starting it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from core.errors import SightlineError
from server.cli.mcp import _caller

from .conftest import FUEL_EN, NOW

REPO = Path(__file__).resolve().parents[2]
SALARY = {"query": "What are the engineering salary bands?", "doc": "policies-salary-bands-2025"}


def test_stdio_serves_the_tools_as_the_key_s_caller_and_answers_as_rag(demo_kbs, config_copy, make_app, api_keys):
    key = api_keys["finance-app"]
    params = StdioServerParameters(command=sys.executable, args=["-m", "server.cli", "mcp"], cwd=str(REPO), env={
        "SIGHTLINE_API_KEY": key, "SIGHTLINE_API_KEYS": os.environ["SIGHTLINE_API_KEYS"],
        "SIGHTLINE_DATA_DIR": str(demo_kbs.data_dir), "SIGHTLINE_CONFIG_DIR": str(config_copy),
        "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO),
        # the ranker the in-process /rag below answers with (server/bootstrap.py reads it)
        "SIGHTLINE_ANSWER_MODEL": os.environ.get("SIGHTLINE_ANSWER_MODEL", "0")})

    async def session():
        async with Client(params, read_timeout_seconds=300) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            asked = {q: (await client.call_tool("ask", {"question": q, "now": NOW})).structured_content
                     for q in (FUEL_EN, SALARY["query"])}
            found = (await client.call_tool("search", {"question": SALARY["query"], "now": NOW})).structured_content
            bad = await client.call_tool("ask", {"question": FUEL_EN, "kb": ["nope"]})
            return names, asked, found, bad

    names, asked, found, bad = anyio.run(session)
    assert names == ["ask", "search", "list_knowledge_bases"]
    client = make_app().test_client()
    for question, got in asked.items():
        body = client.post("/rag", json={"query": question, "now": NOW},
                           headers={"Authorization": f"Bearer {key}"}).json
        assert {k: got[k] for k in ("status", "answer", "citations")} == \
            {k: body[k] for k in ("status", "answer", "citations")}, question
    assert SALARY["doc"] in {c["chunk_id"].split("#")[0] for c in asked[SALARY["query"]]["citations"]}
    assert SALARY["doc"] in {r["doc_id"] for r in found["results"]}
    assert bad.is_error and bad.structured_content["error"]["code"] == "unknown_kb"


def _args(groups: tuple[str, ...] = (), all_groups: bool = False) -> argparse.Namespace:
    return argparse.Namespace(groups=groups, all_groups=all_groups)


def test_the_stdio_caller_is_the_key_s_or_the_operator_s_never_both(api_keys):
    assert _caller(_args(("finance",)), "").to_dict() == {"name": "operator", "kind": "operator",
                                                           "groups": ["finance"]}
    assert _caller(_args(all_groups=True), "").acl_groups is None
    assert _caller(_args(), api_keys["eng-app"]).to_dict() == {"name": "eng-app", "kind": "key",
                                                               "groups": ["engineering"]}
    with pytest.raises(SightlineError, match="SIGHTLINE_API_KEY is set and so is --groups"):
        _caller(_args(("finance",)), api_keys["eng-app"])
    with pytest.raises(SightlineError, match="SIGHTLINE_API_KEY: the API key is not known"):
        _caller(_args(), "sl_" + "x" * 43)
