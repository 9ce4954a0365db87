"""Fixtures of the service tests: a config directory copy, one warmed AnswerLoop, app factories.

Nothing here touches the repository's config/: the router file the tests edit is a copy in a
temporary directory.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from orchestration import paths

NOW = "2025-07-01"
FUEL_EN = "Compare the fuel burn of the A320 and the B737 in 2023"
INVOICE_EN = "Who handles an invoice that does not match the contract and what is the process?"
INVOICE_ZH = "发票金额与合同不一致，应该找哪个部门处理，流程是什么？"
E4027 = "What triggers error code E4027?"
Q2_ZH = "2025 年第二季度已关闭的测试报告有哪些？"
DATES = "Compare the A320neo and 737 MAX 8 manuals: which was effective earlier?"
OFF_TOPIC = "What is the boiling point of mercury on Mars?"


@pytest.fixture(scope="session")
def config_copy(tmp_path_factory) -> Path:
    """The repository's config/ copied to a temp dir (tests edit router.yaml there)."""
    target = tmp_path_factory.mktemp("config") / "config"
    shutil.copytree(paths.REPO_ROOT / "config", target)
    return target


@pytest.fixture(scope="session")
def answer_loop(demo_kbs, config_copy):
    """One warmed AnswerLoop over the demo knowledge bases, router config from the copy."""
    from orchestration.router.config import load_router_config
    from server.loop import AnswerLoop

    config = load_router_config(config_copy / "router.yaml", known_kbs=list(demo_kbs.knowledge_bases))
    loop = AnswerLoop(kb_config=demo_kbs, router_config=config)
    loop.warm_up()
    return loop


@pytest.fixture
def make_app(answer_loop, config_copy, tmp_path, monkeypatch):
    """create_app(**settings) over the shared loop with its own router.yaml copy; restores the loop after."""
    from server.app import create_app
    from server.settings import ServiceSettings

    original = answer_loop.router_config
    router = tmp_path / "router.yaml"
    shutil.copy(config_copy / "router.yaml", router)

    def factory(token: str | None = None, **values):
        if token:
            monkeypatch.setenv("SIGHTLINE_ADMIN_TOKEN", token)
        else:
            monkeypatch.delenv("SIGHTLINE_ADMIN_TOKEN", raising=False)
        settings = replace(ServiceSettings(router_file=str(router), router_reload_seconds=0), **values)
        return create_app(settings, loop=answer_loop)

    factory.router = router
    yield factory
    answer_loop.set_router_config(original)


@pytest.fixture
def client(make_app):
    return make_app().test_client()


# --- the real service under gunicorn ---------------------------------------------------------

ADMIN_TOKEN = "test-admin-token-0123456789"


class Live:
    """A running `sightline serve` (gunicorn, 2 workers) and a small HTTP client for it.

    Attributes:
        url: http://127.0.0.1:<port>.
        config_dir: its SIGHTLINE_CONFIG_DIR (a copy; tests edit router.yaml there).
        log: the file holding its stdout and stderr (JSON lines).
        rag_requests: POST /rag requests sent through `post_rag` (the metrics must sum to it).
    """

    def __init__(self, url: str, config_dir: Path, log: Path, process, metrics_dir: Path) -> None:
        self.url, self.config_dir, self.log, self.process = url, config_dir, log, process
        self.metrics_dir = metrics_dir
        self.rag_requests = 0
        self._count_lock = __import__("threading").Lock()

    @property
    def router(self) -> Path:
        return self.config_dir / "router.yaml"

    def request(self, method: str, path: str, body: bytes | str | dict | None = None,
                headers: dict | None = None, timeout: float = 60.0):
        """(status, headers, parsed JSON or text) of one request."""
        import http.client
        import json as _json
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        headers = dict(headers or {})
        if isinstance(body, dict):
            body = _json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            body = body.encode()
        if path == "/rag" and method == "POST":
            with self._count_lock:
                self.rag_requests += 1
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            text = data.decode("utf-8")
            kind = response.getheader("Content-Type", "")
            parsed = _json.loads(text) if kind.startswith("application/json") else text
            return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed
        finally:
            conn.close()

    def admin(self, method: str, path: str, body=None, headers=None):
        headers = dict(headers or {}, Authorization=f"Bearer {ADMIN_TOKEN}")
        return self.request(method, path, body, headers)

    def log_lines(self) -> list[dict]:
        import json as _json

        out = []
        for line in self.log.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("{"):
                try:
                    out.append(_json.loads(line))
                except ValueError:
                    pass
        return out


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def live(demo_kbs, tmp_path_factory):
    """`sightline serve --workers 2` on a free loopback port over the demo KBs, for the session."""
    import os
    import signal
    import subprocess
    import sys
    import time
    import urllib.request

    root = tmp_path_factory.mktemp("live")
    config_dir = root / "config"
    shutil.copytree(paths.REPO_ROOT / "config", config_dir)
    port = free_port()
    log = root / "service.log"
    env = dict(os.environ, SIGHTLINE_CONFIG_DIR=str(config_dir), SIGHTLINE_DATA_DIR=str(demo_kbs.data_dir),
               SIGHTLINE_ADMIN_TOKEN=ADMIN_TOKEN, PROMETHEUS_MULTIPROC_DIR=str(root / "prometheus"),
               SIGHTLINE_RELOAD_SECONDS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.pop("SIGHTLINE_SERVICE_CONFIG", None)
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1",
                                    "--port", str(port), "--workers", "2"], cwd=paths.REPO_ROOT, env=env,
                                   stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        if process.poll() is not None:
            pytest.fail(f"the service exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url + "/readyz", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the service did not become ready in 120 s:\n{log.read_text()[-4000:]}")
        time.sleep(0.5)
    yield Live(url, config_dir, log, process, root / "prometheus")
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def concurrently(calls, threads: int = 4) -> list:
    """Run zero-argument callables on a few threads; results in order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda call: call(), calls))
