"""The real service: `sightline serve` (gunicorn, 2 workers, preloaded) driven over HTTP.

One service for the whole session (tests/server/conftest.py `live`). The tests in this file
run in order: scenarios and errors first, then a router weight edit that every worker must
pick up, then a broken edit that is refused while requests keep succeeding.
"""

from __future__ import annotations

import hashlib
import re
import time

import pytest
import yaml

from core.files import write_atomically

from .conftest import DATES, E4027, FUEL_EN, INVOICE_EN, INVOICE_ZH, NOW, OFF_TOPIC, Q2_ZH, concurrently

pytestmark = pytest.mark.slow

SCENARIOS = [  # query, the statuses the demo data gives
    (FUEL_EN, {"answered"}),
    (INVOICE_EN, {"answered"}),
    (INVOICE_ZH, {"answered", "partial"}),
    (E4027, {"answered"}),
    (Q2_ZH, {"answered", "partial"}),
    (DATES, {"partial", "answered"}),
    (OFF_TOPIC, {"insufficient"}),
]


def _version(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()[:12]


def _workers_state(live, want: int = 2, tries: int = 40) -> dict[int, dict]:
    """GET /admin/router from both workers (concurrent calls, so both get one): {pid: state}."""
    seen: dict[int, dict] = {}
    for _ in range(tries):
        for status, _h, body in concurrently([lambda: live.admin("GET", "/admin/router")] * 4):
            assert status == 200, body
            seen[body["worker"]] = body
        if len(seen) >= want:
            return seen
    pytest.fail(f"only reached workers {sorted(seen)}")


def _wait_all_workers(live, predicate, seconds: float = 15.0) -> dict[int, dict]:
    deadline = time.monotonic() + seconds
    while True:
        state = _workers_state(live)
        if all(predicate(s) for s in state.values()):
            return state
        if time.monotonic() > deadline:
            pytest.fail(f"workers did not converge: {[(p, s['version'], s['last_error']) for p, s in state.items()]}")
        time.sleep(0.5)


def _served_by(live, request_ids: list[str]) -> set[int]:
    """Which worker pids served these requests, from the JSON log lines."""
    pids = {line["request_id"]: line["pid"] for line in live.log_lines()
            if line.get("logger") == "sightline.http" and line.get("request_id") in request_ids}
    assert set(pids) == set(request_ids)
    return set(pids.values())


# --- basics ----------------------------------------------------------------------------------

def test_health_ready_kb_and_openapi(live):
    assert live.request("GET", "/healthz")[0] == 200
    status, _h, ready = live.request("GET", "/readyz")
    assert status == 200 and ready["ready"]
    status, _h, kbs = live.request("GET", "/kb")
    assert status == 200 and {kb["name"] for kb in kbs["knowledge_bases"]} == {"manuals", "policies", "reports"}
    assert all(kb["chunks"] > 0 and kb["built_at"] for kb in kbs["knowledge_bases"])
    status, _h, doc = live.request("GET", "/openapi.json")
    assert status == 200 and "/rag" in doc["paths"]


def test_demo_scenarios(live):
    calls = [lambda q=q, i=i: live.request("POST", "/rag", {"query": q, "now": NOW, "trace": "summary"},
                                      {"X-Request-ID": f"scenario-{i}"})
             for i, (q, _s) in enumerate(SCENARIOS)]
    results = concurrently(calls, threads=2)
    for i, ((query, statuses), (status, headers, body)) in enumerate(zip(SCENARIOS, results, strict=True)):
        assert status == 200, (query, body)
        assert headers["x-request-id"] == body["trace_id"] == f"scenario-{i}"
        assert body["status"] in statuses, (query, body["status"], body["validation"])
        assert set(body["timing"]) == {"perceive", "route", "retrieve", "compose", "validate", "total"}
        assert body["config_version"] == body["plan"]["config_version"]
        if body["status"] == "insufficient":
            assert body["citations"] == [] and "Insufficient information" in body["answer"]
        else:
            assert body["citations"]
            for citation in body["citations"]:
                assert citation["source"] and citation["title"] and citation["snippet"]
                assert citation["updated_at"] or citation["published_at"]
        assert all("params" not in op and "rejected_count" in op for op in body["operations"])
    assert len(_served_by(live, [f"scenario-{i}" for i in range(len(SCENARIOS))])) == 2  # both workers answered


def test_every_log_line_of_a_request_carries_its_id(live):
    status, headers, body = live.request("POST", "/rag", {"query": E4027, "now": NOW, "trace": "none"},
                                         {"X-Request-ID": "trace-me-1"})
    assert status == 200 and headers["x-request-id"] == "trace-me-1"
    time.sleep(0.2)
    mine = [line for line in live.log_lines() if line.get("request_id") == "trace-me-1"]
    assert {line["logger"] for line in mine} >= {"sightline.http", "gunicorn.access"}
    access = next(line for line in mine if line["logger"] == "gunicorn.access")
    assert access["path"] == "/rag" and access["status"] == 200 and access["ms"] > 0


# --- errors over HTTP ------------------------------------------------------------------------

@pytest.mark.parametrize("method, path, body, status, code, field", [
    ("POST", "/rag", b'{"query": "fuel', 400, "bad_request", "body"),
    ("POST", "/rag", b'{"query": ["fuel"]}', 400, "bad_request", "query"),
    ("POST", "/rag", b'{"query": "fuel", "top_k": 1000}', 400, "bad_request", "top_k"),
    ("POST", "/rag", b'{"query": "' + b"q" * 2001 + b'"}', 400, "bad_request", "query"),
    ("POST", "/rag", b'{"query": "fuel", "kb": "regs"}', 404, "unknown_kb", "kb"),
    ("POST", "/rag", b'{"query": "' + b"q" * 70000 + b'"}', 413, "payload_too_large", "body"),
    ("GET", "/rag", None, 405, "method_not_allowed", None),
    ("DELETE", "/kb", None, 405, "method_not_allowed", None),
    ("GET", "/no/such/page", None, 404, "not_found", None),
])
def test_errors_are_json_with_the_right_status(live, method, path, body, status, code, field):
    got, headers, error = live.request(method, path, body, {"Content-Type": "application/json"} if body else None)
    assert got == status
    assert headers["content-type"].startswith("application/json"), error
    assert error["error"]["code"] == code and error["error"].get("field") == field
    assert headers["x-request-id"]
    if code == "unknown_kb":
        assert "known: manuals, policies, reports" in error["error"]["message"]
    if field == "query" and status == 400 and b"q" * 2001 in body:
        assert "limit is 2000" in error["error"]["message"]


def test_admin_needs_the_bearer_token(live):
    assert live.request("GET", "/admin/router")[0] == 401
    status, headers, body = live.request("GET", "/admin/router", headers={"Authorization": "Bearer wrong"})
    assert status == 401 and body["error"]["code"] == "unauthorized" and "Bearer" in headers["www-authenticate"]
    assert live.request("POST", "/admin/reload", headers={"Authorization": "Basic eDp5"})[0] == 401


# --- live router edits -----------------------------------------------------------------------

def _broad_weight(body: dict) -> set[float]:
    return {task["weight"] for task in body["plan"]["tasks"] if task["rule"] == "broad"}


def test_router_weight_edit_reaches_every_worker(live):
    original = live.router.read_text(encoding="utf-8")
    before = _version(original)
    state = _workers_state(live)
    assert {s["version"] for s in state.values()} == {before}
    data = yaml.safe_load(original)
    broad = next(rule for rule in data["rules"] if rule["name"] == "broad")
    assert broad["emit"][0]["weight"] != 0.35
    broad["emit"][0]["weight"] = 0.35
    edited = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    write_atomically(live.router, edited)  # what an operator's editor (or a config deploy) does
    after = _version(edited)
    _wait_all_workers(live, lambda s: s["version"] == after)
    ids = [f"after-edit-{i}" for i in range(4)]
    results = concurrently([lambda i=i: live.request("POST", "/rag", {"query": INVOICE_EN, "now": NOW, "trace": "none"},
                                                     {"X-Request-ID": i}) for i in ids], threads=2)
    for status, _h, body in results:
        assert status == 200
        assert body["config_version"] == after
        assert _broad_weight(body) == {0.35}
    changed = [line for line in live.log_lines() if line.get("event") == "router_reload" and line.get("result") == "ok"
               and line.get("version_after") == after]
    assert {line["pid"] for line in changed} == set(state)  # each worker logged its own swap
    assert all(line["version_before"] == before and line["time"] for line in changed)


def test_broken_router_edit_is_refused_and_requests_keep_succeeding(live):
    good = live.router.read_text(encoding="utf-8")
    good_version = _version(good)
    broken = re.sub(r"kb: ['\"]\*['\"]", "kb: regs", good, count=1)  # earlier tests may re-dump the file
    assert broken != good
    write_atomically(live.router, broken)
    state = _wait_all_workers(live, lambda s: s["last_error"] is not None)
    for worker in state.values():
        assert worker["version"] == good_version
        assert "unknown kb 'regs'" in worker["last_error"] or "regs" in worker["last_error"]
    ask = {"query": INVOICE_EN, "now": NOW, "trace": "none"}
    results = concurrently([lambda: live.request("POST", "/rag", ask)] * 3, threads=2)
    assert all(status == 200 and body["config_version"] == good_version for status, _h, body in results)
    status, _h, body = live.admin("POST", "/admin/reload")
    assert status == 422 and body["error"]["code"] == "config_rejected" and "regs" in body["error"]["message"]
    refused = [line for line in live.log_lines()
               if line.get("event") == "router_reload" and line.get("result") == "error"]
    assert {line["pid"] for line in refused} >= set(state)
    assert all("regs" in line["reason"] for line in refused)
    # PUT refuses the broken text without writing, then puts the good one back
    status, _h, body = live.admin("PUT", "/admin/router", broken, {"Content-Type": "text/yaml"})
    assert status == 422 and "regs" in body["error"]["message"]
    assert live.router.read_text(encoding="utf-8") == broken
    status, _h, body = live.admin("PUT", "/admin/router", good, {"Content-Type": "application/yaml"})
    assert status == 200, body
    assert body["result"] in ("ok", "unchanged") and body["version_after"] == good_version
    assert live.router.read_text(encoding="utf-8") == good
    _wait_all_workers(live, lambda s: s["version"] == good_version and s["last_error"] is None)


def test_put_router_checks_if_match_and_media_type(live):
    text = live.router.read_text(encoding="utf-8")
    status, _h, body = live.admin("PUT", "/admin/router", text,
                                  {"Content-Type": "text/yaml", "If-Match": "000000000000"})
    assert status == 412 and body["error"]["code"] == "precondition_failed"
    status, _h, body = live.admin("PUT", "/admin/router", text, {"Content-Type": "application/json"})
    assert status == 415
    status, _h, body = live.admin("PUT", "/admin/router", text,
                                  {"Content-Type": "text/yaml", "If-Match": _version(text)})
    assert status == 200 and body["result"] == "unchanged"
    status, _h, body = live.admin("POST", "/admin/reload")
    assert status == 200 and body["result"] == "unchanged"
