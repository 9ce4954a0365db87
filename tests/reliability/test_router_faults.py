"""Router config faults against the real service: a bad file never takes a worker down or back.

Found by probing: a router.yaml nested deeply enough to make the validator raise
RecursionError was logged as "router watch failed" without `file_error`; a worker started
after that died at boot and gunicorn halted the master, so the whole service was gone until
restarted. After a valid PUT (v2) and a bad disk edit, respawned workers served v1 (6 of 10
answers). `half_life_days: .nan` was accepted. Each is a scenario here.
"""

from __future__ import annotations

import hashlib
import signal
import time

import pytest
import yaml

from core.files import write_atomically

pytestmark = pytest.mark.slow

QUERY = {"query": "What triggers error code E4027?", "now": "2025-07-01", "trace": "none"}
DEEP_RULE = "rules:\n  - name: deep\n    when: " + "[" * 3000 + "]" * 3000 + "\n"
PARSEABLE_DEEP = "rules:\n  - name: deep\n    when: " + "[" * 200 + "]" * 200 + "\n"


def _version(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _replace_a_worker(live) -> None:
    """SIGKILL one worker and wait until gunicorn has started its replacement and it answers."""
    before = live.worker_pids()
    import os

    os.kill(before[0], signal.SIGKILL)
    deadline = time.monotonic() + 60
    while True:
        assert live.process.poll() is None, f"the master exited:\n{live.log.read_text()[-3000:]}"
        pids = live.worker_pids()
        if len(pids) == len(before) and before[0] not in pids:
            try:
                if live.request("GET", "/readyz", timeout=5)[0] == 200:
                    return
            except OSError:
                pass
        assert time.monotonic() < deadline, "the worker was not replaced"
        time.sleep(0.2)


def _wait_every_worker_on(live, version: str, seconds: float = 20) -> None:
    """Wait until every live worker serves router config `version` (a run of requests may all reach one)."""
    live.wait_every_worker(lambda body: body["checks"]["router"]["version"] == version, f"router config {version}",
                           seconds)


def _versions(live, n: int = 10) -> set[str]:
    out = set()
    for _ in range(n):
        status, _h, body = live.request("POST", "/rag", QUERY)
        assert status == 200, body
        out.add(body["config_version"])
    return out


@pytest.fixture
def router_text(secured):
    """The router.yaml text the service started with; restored (by PUT) after the test."""
    original = secured.live.router.read_text()
    yield original
    secured.live.admin("PUT", "/admin/router", original, {"Content-Type": "text/yaml"})
    _wait_every_worker_on(secured.live, _version(original))


@pytest.mark.parametrize("bad", [DEEP_RULE, PARSEABLE_DEEP], ids=["too deep to parse", "too deep to validate"])
def test_a_deeply_nested_router_file_is_refused_and_workers_still_boot(secured, router_text, bad):
    live = secured.live
    good = _version(router_text)
    write_atomically(live.router, bad)
    deadline = time.monotonic() + 15
    while True:  # refused, and /readyz says why
        _s, _h, ready = live.request("GET", "/readyz")
        if ready["checks"]["router"]["file_error"]:
            break
        assert time.monotonic() < deadline, ready
        time.sleep(0.3)
    assert "nest" in ready["checks"]["router"]["file_error"] and ready["ready"]
    _replace_a_worker(live)
    _replace_a_worker(live)
    assert _versions(live) == {good}
    status, _h, error = live.admin("PUT", "/admin/router", bad, {"Content-Type": "text/yaml"})
    assert status == 422 and "nest" in error["error"]["message"]


def test_respawned_workers_serve_the_last_good_put_not_the_boot_config(secured, router_text):
    live = secured.live
    data = yaml.safe_load(router_text)
    data["limits"]["max_retries"] = max(0, int(data["limits"].get("max_retries", 2)) - 1)
    v2 = yaml.safe_dump(data, sort_keys=False)
    status, _h, result = live.admin("PUT", "/admin/router", v2, {"Content-Type": "text/yaml"})
    assert status == 200, result
    _wait_every_worker_on(live, _version(v2), 15)
    write_atomically(live.router, "rules: [this is not a router config\n")
    time.sleep(2.5)  # every worker's watcher sees and refuses it
    for _ in range(3):
        _replace_a_worker(live)
    assert _versions(live) == {_version(v2)}


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_non_finite_numbers_in_the_router_config_are_refused(secured, router_text, value):
    bad = router_text.replace("credibility:", f"credibility:\n  half_life_days: {value}", 1) \
        if "half_life_days" not in router_text else \
        "\n".join(line.split(":")[0] + f": {value}" if line.strip().startswith("half_life_days:") else line
                  for line in router_text.splitlines())
    status, _h, error = secured.live.admin("PUT", "/admin/router", bad, {"Content-Type": "text/yaml"})
    assert status == 422, error
    assert "half_life_days" in error["error"]["message"] and "finite" in error["error"]["message"]
