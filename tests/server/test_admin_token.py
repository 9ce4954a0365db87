"""The admin token: refused when guessable, stripped of whitespace, failed attempts slowed per address."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from core.errors import ConfigError
from orchestration import paths
from server.admin_token import MIN_TOKEN_CHARS, read_admin_token
from server.auth_throttle import FailureThrottle

GOOD = "k" * 20 + "-good-admin-token-0123"  # 41 characters


@pytest.mark.parametrize("token", ["Zq7", "Q" * (MIN_TOKEN_CHARS - 1)])
def test_a_short_token_is_refused_saying_why_and_how_to_make_one(token):
    with pytest.raises(ConfigError) as refused:
        read_admin_token({"SIGHTLINE_ADMIN_TOKEN": token})
    message = refused.value.message
    assert f"at least {MIN_TOKEN_CHARS}" in message and "secrets.token_urlsafe(32)" in message
    assert token not in message.replace("SIGHTLINE_ADMIN_TOKEN", "")  # the token itself is never echoed


def test_whitespace_around_the_token_is_stripped_inside_it_is_refused():
    assert read_admin_token({"SIGHTLINE_ADMIN_TOKEN": f"  {GOOD}\n"}) == GOOD
    with pytest.raises(ConfigError, match="whitespace or control characters inside"):
        read_admin_token({"SIGHTLINE_ADMIN_TOKEN": GOOD[:20] + " " + GOOD[20:]})
    assert read_admin_token({}) is None and read_admin_token({"SIGHTLINE_ADMIN_TOKEN": "  "}) is None


def test_serve_refuses_to_start_with_a_short_token_in_one_line():
    env = dict(os.environ, SIGHTLINE_ADMIN_TOKEN="a")
    result = subprocess.run([sys.executable, "-m", "server.cli", "serve", "--port", "1"], cwd=paths.REPO_ROOT,
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "at least 32" in lines[0] and "Traceback" not in result.stderr


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_failures_past_the_free_ones_lock_the_address_out_for_doubling_times():
    clock = _Clock()
    throttle = FailureThrottle(free=3, base_seconds=1, max_seconds=8, clock=clock)
    assert [throttle.failed("10.0.0.1") for _ in range(3)] == [0, 0, 0]
    assert throttle.retry_after("10.0.0.1") == 0
    assert [throttle.failed("10.0.0.1") for _ in range(5)] == [1, 2, 4, 8, 8]
    assert throttle.retry_after("10.0.0.1") == 8 and throttle.retry_after("10.0.0.2") == 0
    clock.now += 8
    assert throttle.retry_after("10.0.0.1") == 0
    throttle.succeeded("10.0.0.1")
    assert throttle.failed("10.0.0.1") == 0  # a success starts the count again


def test_the_throttle_forgets_quiet_addresses_and_stays_bounded():
    clock = _Clock()
    throttle = FailureThrottle(free=1, forget_seconds=60, max_clients=100, clock=clock)
    throttle.failed("a")
    assert throttle.failed("a") == 1
    clock.now += 61
    assert throttle.retry_after("a") == 0 and throttle.failed("a") == 0
    for n in range(500):
        throttle.failed(f"spray-{n}")
    assert len(throttle._records) == 100


# --- over HTTP, in-process ---------------------------------------------------------------------

def test_a_token_set_with_whitespace_around_it_still_lets_the_admin_in(make_app):
    client = make_app(token=f" {GOOD}\n").test_client()
    assert client.get("/admin/router", headers={"Authorization": f"Bearer {GOOD}"}).status_code == 200


def test_a_short_token_stops_the_app_from_starting(make_app):
    with pytest.raises(ConfigError, match="at least 32"):
        make_app(token="short-token")


def test_repeated_failures_from_one_address_get_429_and_are_counted(make_app):
    from server import metrics

    client = make_app(token=GOOD).test_client()
    wrong = {"Authorization": "Bearer " + "w" * 40}

    def counted(reason: str) -> float:
        return metrics.AUTH_FAILURES.labels(reason)._value.get()

    # a request without a token guesses nothing: it does not lock its address out
    assert [client.get("/admin/router").status_code for _ in range(8)] == [401] * 8
    assert client.get("/admin/router", headers={"Authorization": f"Bearer {GOOD}"}).status_code == 200
    bad_before, throttled_before = counted("bad_admin_token"), counted("admin_throttled")
    statuses = [client.get("/admin/router", headers=wrong).status_code for _ in range(6)]
    assert statuses == [401] * 6  # five free, the sixth locks the address out for 1 s
    locked = client.get("/admin/router", headers={"Authorization": f"Bearer {GOOD}"})
    assert locked.status_code == 429 and locked.json["error"]["code"] == "too_many_attempts"
    assert int(locked.headers["Retry-After"]) >= 1
    other = client.get("/admin/router", headers={"Authorization": f"Bearer {GOOD}"},
                       environ_base={"REMOTE_ADDR": "10.9.8.7"})
    assert other.status_code == 200  # another address is not held back
    assert counted("bad_admin_token") == bad_before + 6 and counted("admin_throttled") == throttled_before + 1
