"""A removed API key stays removed: across a refused edit of the key file and any worker respawn.

Found by probing (issue 22): `keys remove K` was honoured, a typo in api_keys.yaml was refused,
then every killed worker came back with the keys the master loaded at start, and K answered
again (10 of 10 requests 200, citing a finance-restricted document).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from orchestration import paths
from tests.live import start_service
from tests.reliability.conftest import add_key

FINANCE_QUESTION = {"query": "What is the invoice approval limit for travel expenses?", "trace": "none",
                    "max_retries": 0}


def _wait(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while not (value := predicate()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)
    return value


def _ask(live, key: str) -> tuple[int, dict, dict]:
    return live.request("POST", "/rag", FINANCE_QUESTION, {"Authorization": f"Bearer {key}"})


@pytest.mark.slow
def test_a_removed_key_is_refused_after_a_bad_edit_and_every_worker_killed(demo_kbs, tmp_path):
    keys_file = str(tmp_path / "api_keys.yaml")
    revoked = add_key(keys_file, "finance-app", "finance")
    kept = add_key(keys_file, "eng-app", "engineering")
    live = start_service(demo_kbs, tmp_path / "svc", env={"SIGHTLINE_API_KEYS": keys_file})
    try:
        status, headers, _body = _ask(live, revoked)
        assert status == 200 and headers["x-sightline-caller"] == "finance-app"

        subprocess.run([sys.executable, "-m", "server.cli", "keys", "remove", "finance-app"], cwd=paths.REPO_ROOT,
                       env=dict(os.environ, SIGHTLINE_API_KEYS=keys_file), check=True, capture_output=True)
        # honoured by every worker within the reload interval (1 s here): several requests in a row
        _wait(lambda: all(_ask(live, revoked)[0] == 401 for _ in range(6)), 10, "the removal to be honoured")

        with open(keys_file, "a", encoding="utf-8") as handle:  # a typo: the file no longer parses
            handle.write("  - name: [unclosed\n")
        _wait(lambda: all(live.request("GET", "/readyz")[2]["checks"]["api_keys"]["file_error"]
                          for _ in range(6)), 10, "the bad edit to be refused by every worker")

        before = live.worker_pids()
        for pid in before:
            os.kill(pid, signal.SIGKILL)
        _wait(lambda: len(now := live.worker_pids()) == 2 and not set(now) & set(before), 60, "new workers")
        live.wait_ready()

        answers = [_ask(live, revoked) for _ in range(10)]
        assert [status for status, _h, _b in answers] == [401] * 10
        assert all(body["error"]["code"] == "unknown_key" for _s, _h, body in answers)
        status, headers, _body = _ask(live, kept)  # the keys that were not removed still work
        assert status == 200 and headers["x-sightline-caller"] == "eng-app"
        readyz = live.request("GET", "/readyz")[2]
        assert readyz["checks"]["api_keys"]["keys"] == 1 and readyz["checks"]["api_keys"]["file_error"]
    finally:
        live.stop()
