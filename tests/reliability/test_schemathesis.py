"""Schemathesis over the real service: every operation of /openapi.json, generated requests, every check.

The schema is loaded from the running `secured` service (gunicorn, 2 workers, API keys, a gateway
header) and each operation is exercised with bounded, derandomized examples (positive and
negative data) as three callers: anonymous (no credentials), the operator (admin bearer token,
admin endpoints) and an API key holder (/rag, /ui/answer and /kb). Every response goes through every
check schemathesis registers (not_a_server_error, status code / content type / headers /
response schema conformance, negative data rejection, positive data acceptance, ...).
No generated request may get a 5xx, and no check may fail.

PUT /admin/router with the admin token may write a router.yaml that validates; the file is
restored (and reloaded) afterwards so the session's other tests see the shipped config.
"""

from __future__ import annotations

import time

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import CHECKS, load_all_checks  # noqa: E402
from schemathesis.core.failures import FailureGroup  # noqa: E402

from tests.live import ADMIN_TOKEN  # noqa: E402

EXAMPLES_PER_MODE = 25          # positive + negative: 50 generated cases per operation and caller
ADMIN_PATHS = {"/admin/router", "/admin/reload"}
KEY_PATHS = {"/rag", "/ui/answer", "/kb", "/v1/chat/completions", "/v1/models"}
# A router.yaml is text, so its schema cannot say which texts are valid configs: a schema-valid body
# may still be refused (422), and a stale If-Match is refused (412) before the body is read, both as
# the document says. Every other status rule of the checks stays at schemathesis' defaults.
CONFIG = """
[[operations]]
include-path = "/admin/router"
include-method = "PUT"
checks.positive_data_acceptance.expected-statuses = ["2XX", "401", "404", "412", "422"]
checks.negative_data_rejection.expected-statuses = ["400", "401", "404", "412", "413", "415", "422"]

# A schema cannot say that the *last* message must be the user's, with a question of at most
# max_query_chars characters that is not only whitespace: a schema-valid conversation may still be 400
# (401 and 404, a key or a knowledge base not known, as by default). One filter only: several
# include-* keys in one entry match an operation that satisfies any of them.
[[operations]]
include-path = "/v1/chat/completions"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "404"]

# MCP's body is one JSON-RPC message of any of the protocol's methods, whose params differ per method,
# and its transport needs an Accept header naming both JSON and event streams: the schema says "a
# JSON-RPC object", so a schema-valid body ({}) may be 400 and a request without that Accept 406, as
# the document says. The protocol itself is tested with the SDK's own client (tests/server/test_mcp.py).
[[operations]]
include-path = "/mcp"
checks.positive_data_acceptance.expected-statuses = ["2XX", "400", "401", "406"]
"""


def _all_checks() -> list:
    load_all_checks()
    return list(CHECKS.get_all())


def _run_operation(operation, base_url: str, headers: dict, stats: dict, failures: dict) -> None:
    checks = _all_checks()
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
        _run_mode(operation, mode, checks, base_url, headers, stats, failures)


def _run_mode(operation, mode: GenerationMode, checks: list, base_url: str, headers: dict, stats: dict,
              failures: dict) -> None:
    """Generated requests of one mode; `run` is its own function so each mode's test binds its own `mode`."""
    @settings(max_examples=EXAMPLES_PER_MODE, derandomize=True, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case):
        stats["requests"] += 1
        try:
            response = case.call(base_url=base_url, headers=headers, timeout=60)
        except Exception as exc:  # a dropped connection is a server failure too
            failures[(operation.label, mode.value, None, type(exc).__name__)] = repr(exc)
            return
        if response.status_code >= 500:
            stats["server_errors"] += 1
        try:
            case.validate_response(response, checks=checks, headers=headers,
                                   transport_kwargs={"base_url": base_url, "headers": headers})
        except FailureGroup as group:
            for failure in group.exceptions:
                kind = (operation.label, mode.value, response.status_code, failure.title)
                if kind not in failures:
                    failures[kind] = f"{group}\n{response.text[:300]}"

    try:
        run()
    except Unsatisfiable:
        # Nothing to negate (an operation without parameters or body): no negative cases exist.
        if mode is GenerationMode.POSITIVE:
            raise


@pytest.mark.slow
def test_every_operation_survives_generated_requests(secured, capsys):
    live = secured.live
    schema = schemathesis.openapi.from_url(live.url + "/openapi.json", config=schemathesis.Config.from_str(CONFIG),
                                           timeout=30)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert operations, "the schema lists no operations"
    router_before = live.router.read_text()
    callers = {"anonymous": {},
               "admin": {"Authorization": f"Bearer {ADMIN_TOKEN}"},
               "api-key": {"Authorization": f"Bearer {secured.keys['finance-app']}"}}
    stats = {"requests": 0, "server_errors": 0}
    failures: dict[tuple, str] = {}
    per_run: list[str] = []
    started = time.monotonic()
    try:
        for caller, headers in callers.items():
            for operation in operations:
                if caller == "admin" and operation.path not in ADMIN_PATHS:
                    continue
                if caller == "api-key" and operation.path not in KEY_PATHS:
                    continue
                before = stats["requests"]
                _run_operation(operation, live.url, headers, stats, failures)
                per_run.append(f"{caller:9s} {operation.label}: {stats['requests'] - before} requests")
    finally:
        if live.router.read_text() != router_before:
            live.router.write_text(router_before)
            live.admin("POST", "/admin/reload")
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\nschemathesis {schemathesis.__version__}: {stats['requests']} generated requests over "
              f"{len(per_run)} operation/caller runs in {elapsed:.1f} s, {stats['server_errors']} server errors, "
              f"{len(failures)} check failures")
        print("  checks: " + ", ".join(getattr(check, "__name__", repr(check)) for check in _all_checks()))
        for line in per_run:
            print("  " + line)
        for label, mode, status, title in failures:
            print(f"  FAILURE {label} [{mode}] -> {status}: {title}")
    report = "\n\n".join(f"{kind}:\n{sample}" for kind, sample in failures.items())
    assert stats["server_errors"] == 0, report
    assert not failures, report


def test_integral_numbers_are_integers(secured):
    """JSON has one number type: 14.0 is the integer 14 (JSON Schema "integer" says so too).

    Found by the test above: POST /rag {"query": "p", "top_k": 14.0} is answered 400
    "'top_k' must be an integer, got float" although the document allows it.
    """
    status, _, body = secured.live.request("POST", "/rag", {"query": "p", "top_k": 14.0, "max_retries": 1.0,
                                                            "trace": "none", "now": "2025-07-01"})
    assert status == 200, body
