"""An LLM outage costs N timeouts, not one per request: the circuit breaker over the real answer loop.

The default profile's composer points at the stand-in server (tests/llm_standin.py), scripted
to hang; each request is timed end to end (perceive, retrieve, compose, validate).
"""

from __future__ import annotations

import datetime as dt
import time

import pytest

from orchestration.compose.llm import LLMSettings
from server.bootstrap import profile_composers
from server.context import RequestContext
from server.loop import AnswerLoop, AskRequest
from tests.live import start_service
from tests.llm_standin import Reply
from tests.server.test_llm_faults import E5102, GOOD_E5102, NOW, OPERATOR

TIMEOUT = 1.0
FAILURES = 3
COOLDOWN = 3.0


def breaker_loop(answer_loop, url: str) -> AnswerLoop:
    """The shared loop's parts, the default profile's LLM at `url` behind a breaker of FAILURES / COOLDOWN."""
    llm = LLMSettings(base_url=url, model="standin-1", timeout=TIMEOUT, budget_seconds=2 * TIMEOUT,
                      circuit_failures=FAILURES, circuit_cooldown_seconds=COOLDOWN)
    return AnswerLoop(answer_loop.kb_config, answer_loop.router_config, answer_loop.retriever, answer_loop.executor,
                      answer_loop.perception, answer_loop.router, answer_loop.composer, answer_loop.validator,
                      composers=profile_composers(answer_loop.composer, llm))


def timed(loop: AnswerLoop) -> tuple[float, dict]:
    started = time.monotonic()
    context = RequestContext.create(NOW, caller=OPERATOR)
    body = loop.answer(AskRequest(query=E5102, max_retries=0, context=context)).to_body("full")
    return time.monotonic() - started, body


def test_a_hanging_model_costs_n_timeouts_then_answers_at_once_until_one_probe_after_the_cooldown(
        answer_loop, standin):
    loop = breaker_loop(answer_loop, standin.url)
    breaker = loop.composer_for("sightline").breaker
    standin.script(*[Reply(delay=3 * TIMEOUT)] * FAILURES)  # the model hangs
    rows = []
    for n in range(FAILURES + 3):
        seconds, body = timed(loop)
        rows.append((n + 1, round(seconds, 3), body["composer"]["fallback"], len(standin.requests)))
        assert body["status"] == "answered" and body["composer"]["used"] == "extractive", body["composer"]
    print("\nrequest  seconds  fallback  calls to the model so far")
    for row in rows:
        print(f"{row[0]:7d}  {row[1]:7.3f}  {row[2]:<12}  {row[3]}")
    for n, seconds, fallback, calls in rows[:FAILURES]:
        assert fallback == "timeout" and calls == n and TIMEOUT <= seconds < TIMEOUT + 1.0, rows
    for _n, seconds, fallback, calls in rows[FAILURES:]:
        assert fallback == "circuit_open" and calls == FAILURES and seconds < 0.5, rows
    _seconds, body = timed(loop)
    detail = body["composer"]["detail"]
    assert f"the LLM circuit is open after {FAILURES} consecutive failed calls (last: timeout)" in detail
    assert body["composer"]["llm_calls"] == 0
    compose = next(op for op in body["operations"] if op["op"] == "compose")
    assert compose["reason"].startswith("the LLM answer was not used (circuit_open: the LLM circuit is open"), compose
    assert breaker.describe()["state"] == "open"

    # after the cool-down: one probe goes to the model; it answers, so the circuit closes
    time.sleep(COOLDOWN)
    standin.script(Reply(GOOD_E5102))
    seconds, body = timed(loop)
    assert len(standin.requests) == 1 and body["composer"]["used"] == "llm", body["composer"]
    assert breaker.describe()["state"] == "closed" and breaker.consecutive_failures == 0
    print(f"probe after {COOLDOWN:g} s: {seconds:.3f} s, answered by the model")


def test_a_failed_probe_opens_the_circuit_again(answer_loop, standin):
    loop = breaker_loop(answer_loop, standin.url)
    standin.script(*[Reply(status=503)] * (FAILURES + 1))
    for _ in range(FAILURES):
        assert timed(loop)[1]["composer"]["fallback"] == "http_5xx"
    assert timed(loop)[1]["composer"]["fallback"] == "circuit_open"
    time.sleep(COOLDOWN)
    assert timed(loop)[1]["composer"]["fallback"] == "http_5xx"   # the probe, failed
    seconds, body = timed(loop)
    assert body["composer"]["fallback"] == "circuit_open" and seconds < 0.5
    assert len(standin.requests) == FAILURES + 1
    assert loop.composer_for("sightline").breaker.describe()["opens"] == 2


@pytest.mark.slow
def test_the_service_shows_the_open_circuit_in_readyz_and_its_metrics(demo_kbs, standin, tmp_path):
    """`sightline serve` (one worker) with a hanging model: /readyz checks.llm and the circuit metrics."""
    env = {"SIGHTLINE_LLM_BASE_URL": standin.url, "SIGHTLINE_LLM_MODEL": standin.model,
           "SIGHTLINE_LLM_TIMEOUT": "1", "SIGHTLINE_LLM_BUDGET": "2",
           "SIGHTLINE_LLM_CIRCUIT_FAILURES": "2", "SIGHTLINE_LLM_CIRCUIT_COOLDOWN": "60"}
    live = start_service(demo_kbs, tmp_path, workers=1, env=env)
    try:
        status, _h, ready = live.admin("GET", "/readyz")
        assert status == 200 and ready["checks"]["llm"] | {"worker": 0} == {
            "state": "closed", "consecutive_failures": 0, "last_failure": None, "opens_after_failures": 2,
            "opened_at": None, "retry_at": None, "cooldown_seconds": 60.0, "opens": 0, "worker": 0}
        standin.script(*[Reply(delay=3)] * 2)
        question = {"query": E5102, "now": NOW.isoformat(), "trace": "none", "max_retries": 0}
        seconds = []
        for _ in range(4):
            started = time.monotonic()
            status, _h, body = live.request("POST", "/rag", question)
            seconds.append(round(time.monotonic() - started, 3))
            assert status == 200 and body["status"] == "answered", body
        assert body["composer"]["fallback"] == "circuit_open" and len(standin.requests) == 2, (seconds, body)
        assert min(seconds[:2]) >= 1.0 and max(seconds[2:]) < 0.5, seconds
        status, _h, ready = live.admin("GET", "/readyz")
        llm = ready["checks"]["llm"]
        assert status == 200 and ready["ready"], ready  # an open circuit still answers (extractively)
        assert (llm["state"], llm["consecutive_failures"], llm["last_failure"], llm["opens"]) == (
            "open", 2, "timeout", 1)
        opened, retry = (dt.datetime.fromisoformat(llm[k]) for k in ("opened_at", "retry_at"))
        assert retry - opened == dt.timedelta(seconds=60)
        _s, _h, text = live.request("GET", "/metrics")
        samples = dict(line.rsplit(" ", 1) for line in text.splitlines() if line.startswith("sightline_"))
        assert float(samples["sightline_llm_circuit_state"]) == 2.0
        assert float(samples["sightline_llm_circuit_opens_total"]) == 1.0
        assert float(samples['sightline_composer_fallbacks_total{reason="circuit_open"}']) == 2.0
    finally:
        live.stop()
