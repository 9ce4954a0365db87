"""Access control over HTTP, against the real gunicorn service: who sees the restricted documents.

The demo knowledge bases hold two restricted documents: the 2025 salary bands (`acl:
[finance]`) and incident review IR-2025-03 (`acl: [engineering]`). Before access control was
wired, 132 of 144 probe requests cited them to anyone. Here every kind of caller asks about
both at every trace level; only callers in the document's group may see any trace of it:
its id, its text, in the answer, citations, claims, attempts, trace or anywhere else in the
body.
"""

from __future__ import annotations

import json

import pytest

from .conftest import GATEWAY_GROUPS, GATEWAY_USER

pytestmark = pytest.mark.slow

NOW = "2025-07-10"
RESTRICTED = {
    "salary": {"query": "What are the engineering salary bands?", "doc": "policies-salary-bands-2025",
               "text": "52,000", "group": "finance", "key": "finance-app"},
    "incident": {"query": "What did incident review IR-2025-03 find about the E4027 alerts on AU-NEC?",
                 "doc": "reports-incident-review-ir-2025-03", "text": "chafed against a clamp",
                 "group": "engineering", "key": "eng-app"},
}
CALLERS = ("anonymous", "key-other-group", "key-in-group", "gateway-other-group", "gateway-in-group")
TRACE_LEVELS = ("none", "summary", "full")


def _headers(secured, caller: str, case: dict) -> dict:
    return {
        "anonymous": {},
        "key-other-group": {"Authorization": f"Bearer {secured.keys['hr-app']}"},
        "key-in-group": {"Authorization": f"Bearer {secured.keys[case['key']]}"},
        "gateway-other-group": {GATEWAY_GROUPS: "hr", GATEWAY_USER: "dana"},
        "gateway-in-group": {GATEWAY_GROUPS: f"ops, {case['group']}", GATEWAY_USER: "erin"},
    }[caller]


@pytest.mark.parametrize("doc", sorted(RESTRICTED))
def test_restricted_documents_reach_only_callers_in_their_group(secured, doc):
    case = RESTRICTED[doc]
    seen = {}
    for caller in CALLERS:
        for level in TRACE_LEVELS:
            status, headers, body = secured.live.request(
                "POST", "/rag", {"query": case["query"], "now": NOW, "trace": level},
                _headers(secured, caller, case))
            assert status == 200, body
            raw = json.dumps(body, ensure_ascii=False)
            seen[caller, level] = case["doc"] in raw or case["text"] in raw
            if caller.endswith("in-group"):
                cited = {c["chunk_id"].split("#")[0] for c in body["citations"]}
                assert case["doc"] in cited, (caller, level, body["answer"])
            assert headers["x-sightline-caller"] == body["caller"]["name"]
    leaks = [key for key, leaked in seen.items() if leaked and not key[0].endswith("in-group")]
    assert leaks == []
    assert all(seen[c, lvl] for c in CALLERS if c.endswith("in-group") for lvl in TRACE_LEVELS)


def test_hidden_chunks_are_neither_counted_nor_named_in_the_trace(secured):
    case = RESTRICTED["salary"]
    _s, _h, body = secured.live.request("POST", "/rag", {"query": case["query"], "now": NOW, "trace": "full"})
    searches = [op for op in body["operations"]
                if op["op"].startswith("retrieve.") and op["params"]["kb"] == "policies"]
    _s, _h, kbs = secured.live.request("GET", "/kb")
    public_chunks = next(kb["chunks"] for kb in kbs["knowledge_bases"] if kb["name"] == "policies")
    # a search reads what the caller may see, and says nothing of the rest (not even how much)
    assert searches and all(op["input_count"] == public_chunks for op in searches)
    assert not any("ACL" in (op["reason"] or "") for op in body["operations"])
    for op in body["operations"]:
        named = set(op.get("kept") or []) | set(op.get("rejected") or {}) | set((op.get("params") or {}).get(
            "down_weighted", {}))
        assert not any(name.startswith(case["doc"]) for name in named), op["op"]
    assert body["caller"] == {"name": "anonymous", "kind": "anonymous", "groups": []}


def test_kb_counts_show_each_caller_only_what_it_may_see(secured):
    def documents(headers):
        status, _h, body = secured.live.request("GET", "/kb", headers=headers)
        assert status == 200, body
        return {kb["name"]: kb["documents"] for kb in body["knowledge_bases"]}

    anonymous = documents({})
    finance = documents({"Authorization": f"Bearer {secured.keys['finance-app']}"})
    engineering = documents({GATEWAY_GROUPS: "engineering"})
    assert finance["policies"] == anonymous["policies"] + 1 and finance["reports"] == anonymous["reports"]
    assert engineering["reports"] == anonymous["reports"] + 1 and engineering["policies"] == anonymous["policies"]


@pytest.mark.parametrize("authorization, reason", [
    ("Bearer sl_this-key-was-never-issued-0000000000", "unknown_key"),
    ("Bearer short", "malformed_key"),
    ("Basic dXNlcjpwYXNz", "malformed_key"),
])
def test_a_bad_key_is_401_with_a_json_error_and_counted(secured, authorization, reason):
    def failures() -> float:
        _s, _h, text = secured.live.request("GET", "/metrics")
        line = next(line for line in text.splitlines()
                    if line.startswith(f'sightline_auth_failures_total{{reason="{reason}"}}'))
        return float(line.split()[-1])

    before = failures()
    for path, method, body in (("/rag", "POST", {"query": "What triggers E4027?"}), ("/kb", "GET", None)):
        status, headers, error = secured.live.request(method, path, body, {"Authorization": authorization})
        assert status == 401
        assert error["error"]["code"] == reason and error["error"]["field"] == "Authorization"
        bearer_error = "invalid_token" if reason == "unknown_key" else "invalid_request"
        assert headers["www-authenticate"].startswith(f'Bearer realm="sightline", error="{bearer_error}"')
    assert failures() == before + 2


def test_every_log_line_names_the_caller_and_never_the_key(secured):
    key = secured.keys["finance-app"]
    _s, headers, body = secured.live.request("POST", "/rag", {"query": "What triggers E4027?", "now": NOW},
                                             {"Authorization": f"Bearer {key}", "X-Request-ID": "who-asked-1"})
    lines = [line for line in secured.live.log_lines() if line.get("request_id") == "who-asked-1"]
    assert lines and all(line["caller"] == "finance-app" for line in lines)
    assert key not in secured.live.log.read_text(encoding="utf-8", errors="replace")
    assert body["caller"] == {"name": "finance-app", "kind": "key", "groups": ["finance"]}


def test_a_removed_key_stops_working_without_a_restart(secured):
    import os
    import subprocess
    import sys
    import time

    from orchestration import paths

    from .conftest import add_key

    key = add_key(secured.keys_file, "short-lived", "finance")
    auth = {"Authorization": f"Bearer {key}"}
    deadline = time.monotonic() + 15
    while secured.live.request("GET", "/kb", headers=auth)[0] != 200:
        assert time.monotonic() < deadline, "a new key was not picked up"
        time.sleep(0.3)
    subprocess.run([sys.executable, "-m", "server.cli", "keys", "remove", "short-lived"], cwd=paths.REPO_ROOT,
                   env=dict(os.environ, SIGHTLINE_API_KEYS=secured.keys_file), check=True, capture_output=True)
    from pathlib import Path

    import yaml

    left = len(yaml.safe_load(Path(secured.keys_file).read_text(encoding="utf-8"))["keys"])
    # every worker, asked through its own /readyz (a run of requests may all reach one), holds the keys left
    secured.live.wait_every_worker(lambda body: body["checks"]["api_keys"]["keys"] == left,
                                   "the removed key dropped", 15)
    statuses = {secured.live.request("GET", "/kb", headers=auth)[0] for _ in range(6)}
    assert statuses == {401}, f"a removed key still works: {statuses}"
