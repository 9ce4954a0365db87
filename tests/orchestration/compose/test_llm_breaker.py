"""The LLM circuit breaker's state machine, driven by an injected clock (no sleeping, no server)."""

from __future__ import annotations

import threading

import pytest

from core.errors import CircuitOpen, ConfigError, UpstreamError, UpstreamTimeout
from orchestration.compose.llm import LLMSettings
from orchestration.compose.llm.breaker import CircuitBreaker
from server.settings import load_settings


class Clock:
    """Monotonic seconds the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ok() -> str:
    return "reply"


def hang() -> str:
    raise UpstreamTimeout("the LLM server did not reply within 3.00 s")


def refused(breaker: CircuitBreaker) -> str:
    """The CircuitOpen message of a call the breaker does not let through (the call is not made)."""
    sent = []
    with pytest.raises(CircuitOpen) as caught:
        breaker.call(lambda: sent.append(1) or "reply")
    assert sent == [] and caught.value.reason == "circuit_open"
    return caught.value.message


@pytest.fixture()
def clock():
    return Clock()


@pytest.fixture()
def breaker(clock):
    return CircuitBreaker(failures=3, cooldown_seconds=30, clock=clock, wall=lambda: 1_750_000_000.0 + clock.now)


def test_closed_until_n_consecutive_failures_then_open_without_calling(breaker, clock):
    for n in (1, 2):
        with pytest.raises(UpstreamTimeout):
            breaker.call(hang)
        assert (breaker.state, breaker.consecutive_failures) == ("closed", n)
    with pytest.raises(UpstreamTimeout):
        breaker.call(hang)  # the third failure is a real call; it opens the circuit
    assert breaker.state == "open" and breaker.opens == 1
    clock.now += 29.9
    message = refused(breaker)
    assert "open after 3 consecutive failed calls (last: timeout)" in message and "next try in 0.1 s" in message
    described = breaker.describe()
    assert described | {"opened_at": None, "retry_at": None} == {
        "state": "open", "consecutive_failures": 3, "last_failure": "timeout", "opens_after_failures": 3,
        "opened_at": None, "retry_at": None, "cooldown_seconds": 30, "opens": 1}
    assert (described["opened_at"], described["retry_at"]) == ("2025-06-15T15:23:20+00:00",
                                                               "2025-06-15T15:23:50+00:00")


def test_a_success_resets_the_count(breaker):
    for _ in range(2):
        with pytest.raises(UpstreamError):
            breaker.call(hang)
    assert breaker.call(ok) == "reply"
    assert (breaker.state, breaker.consecutive_failures) == ("closed", 0)
    for _ in range(2):
        with pytest.raises(UpstreamError):
            breaker.call(hang)
    assert breaker.state == "closed"  # 2 + 2 failures, never 3 in a row


def open_it(breaker: CircuitBreaker) -> None:
    for _ in range(breaker.failures):
        with pytest.raises(UpstreamError):
            breaker.call(hang)
    assert breaker.state == "open"


def test_after_the_cooldown_one_probe_goes_to_the_model_and_its_success_closes(breaker, clock):
    open_it(breaker)
    clock.now += 30
    assert breaker.describe()["state"] == "half_open"  # the next call is the probe
    assert breaker.call(ok) == "reply"
    assert breaker.describe() | {"opened_at": None} == {
        "state": "closed", "consecutive_failures": 0, "last_failure": "timeout", "opens_after_failures": 3,
        "opened_at": None, "retry_at": None, "cooldown_seconds": 30, "opens": 1}


def test_a_failed_probe_opens_again_for_a_new_cooldown(breaker, clock):
    open_it(breaker)
    clock.now += 31
    with pytest.raises(UpstreamTimeout):
        breaker.call(hang)  # the probe
    assert breaker.state == "open" and breaker.opens == 2 and breaker.consecutive_failures == 4
    clock.now += 29
    assert "next try in 1.0 s" in refused(breaker)
    clock.now += 1
    assert breaker.call(ok) == "reply" and breaker.state == "closed"


def test_while_the_probe_is_in_flight_other_calls_are_refused(breaker, clock):
    open_it(breaker)
    clock.now += 30
    entered, release = threading.Event(), threading.Event()
    results = []

    def slow_probe() -> str:
        entered.set()
        release.wait(5)
        return "probe reply"

    thread = threading.Thread(target=lambda: results.append(breaker.call(slow_probe)))
    thread.start()
    assert entered.wait(5)
    assert breaker.state == "half_open"
    assert "half open: one probe call to the model is in flight" in refused(breaker)
    release.set()
    thread.join(5)
    assert results == ["probe reply"] and breaker.state == "closed"


def test_the_listener_hears_every_change_and_each_opening(breaker, clock):
    heard = []
    breaker.listener = lambda state, opened: heard.append((state, opened))
    open_it(breaker)
    clock.now += 30
    with pytest.raises(UpstreamError):
        breaker.call(hang)
    clock.now += 30
    breaker.call(ok)
    assert heard == [("open", True), ("half_open", False), ("open", True), ("half_open", False), ("closed", False)]


def test_an_unexpected_error_counts_and_frees_the_probe(breaker, clock):
    open_it(breaker)
    clock.now += 30

    def broken() -> str:
        raise RuntimeError("bug")

    with pytest.raises(RuntimeError):
        breaker.call(broken)
    assert breaker.state == "open" and breaker.last_failure == "error"
    clock.now += 30
    assert breaker.call(ok) == "reply"


@pytest.mark.parametrize(("values", "message"), [
    ({"circuit_failures": 0}, r"circuit_failures \(consecutive failed calls that open the circuit\) must be an "
                              r"integer from 1 to 1000, got 0"),
    ({"circuit_failures": 2.5}, "circuit_failures .* got 2.5"),
    ({"circuit_cooldown_seconds": 0}, r"circuit_cooldown_seconds .* must be a number of seconds > 0"),
    ({"circuit_cooldown_seconds": float("inf")}, "circuit_cooldown_seconds .* got inf"),
])
def test_llm_settings_refuse_a_bad_breaker_setting(values, message):
    with pytest.raises(ValueError, match=message):
        LLMSettings(**{"base_url": "http://127.0.0.1:1/v1", "model": "m"} | values)


URL = "http://127.0.0.1:11434/v1"


def test_service_settings_read_the_breaker_from_the_llm_section_and_the_environment(tmp_path):
    path = tmp_path / "service.yaml"
    path.write_text(f"llm:\n  base_url: {URL}\n  model: m\n  circuit_failures: 3\n  circuit_cooldown_seconds: 10\n")
    llm = load_settings(path, env={}).llm
    assert (llm.circuit_failures, llm.circuit_cooldown_seconds) == (3, 10.0)
    assert llm.describe()["circuit_failures"] == 3
    llm = load_settings(path, env={"SIGHTLINE_LLM_CIRCUIT_COOLDOWN": "2.5"}).llm
    assert llm.circuit_cooldown_seconds == 2.5
    assert LLMSettings(base_url=URL, model="m").circuit_failures == 5  # the default


@pytest.mark.parametrize(("yaml", "env", "message"), [
    ("  circuit_failures: 0\n", {},
     r"service.yaml: llm: circuit_failures: must be an integer between 1 and 1000, got 0"),
    ("", {"SIGHTLINE_LLM_CIRCUIT_FAILURES": "many"}, r"SIGHTLINE_LLM_CIRCUIT_FAILURES: llm.circuit_failures"),
    ("  circuit_cooldown_seconds: -1\n", {},
     r"llm: circuit_cooldown_seconds: must be a finite number > 0 and <= 86400, got -1"),
])
def test_service_settings_refuse_a_bad_breaker_setting_naming_it(tmp_path, yaml, env, message):
    path = tmp_path / "service.yaml"
    path.write_text(f"llm:\n  base_url: {URL}\n  model: m\n{yaml}")
    with pytest.raises(ConfigError, match=message):
        load_settings(path, env=env)
