"""The real service under gunicorn, started for tests: `start_service()` and its `Live` handle.

Every test that needs `sightline serve` (2 gunicorn workers, preloaded, real models and
indexes) goes through `start_service`, which copies config/ to a temporary directory (tests
edit router.yaml and api_keys.yaml there, never the repository's) and waits for /readyz.
`tests/server/conftest.py` keeps one such service for the session (fixture `live`); tests
that kill workers or damage builds start their own.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from orchestration import paths

ADMIN_TOKEN = "test-admin-token-0123456789-abcdefghijklmnop"  # 44 characters: tokens under 32 are refused


class Live:
    """A running `sightline serve` and a small HTTP client for it.

    Attributes:
        url: http://127.0.0.1:<port>.
        config_dir: its SIGHTLINE_CONFIG_DIR (a copy; tests edit router.yaml there).
        data_dir: its SIGHTLINE_DATA_DIR.
        log: the file holding its stdout and stderr (JSON lines).
        rag_requests: POST /rag requests sent through `request` (the metrics must sum to it).
    """

    def __init__(self, url: str, config_dir: Path, log: Path, process, metrics_dir: Path,
                 data_dir: Path | None = None) -> None:
        self.url, self.config_dir, self.log, self.process = url, config_dir, log, process
        self.metrics_dir = metrics_dir
        self.data_dir = data_dir
        self.rag_requests = 0
        self._count_lock = threading.Lock()

    @property
    def router(self) -> Path:
        return self.config_dir / "router.yaml"

    @property
    def port(self) -> int:
        return int(urlsplit(self.url).port)

    def request(self, method: str, path: str, body: bytes | str | dict | None = None,
                headers: dict | None = None, timeout: float = 60.0):
        """(status, headers, parsed JSON or text) of one request."""
        parts = urlsplit(self.url)
        headers = dict(headers or {})
        if isinstance(body, dict):
            body = json.dumps(body).encode()
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
            parsed = json.loads(text) if kind.startswith("application/json") else text
            return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed
        finally:
            conn.close()

    def admin(self, method: str, path: str, body=None, headers=None):
        headers = dict(headers or {}, Authorization=f"Bearer {ADMIN_TOKEN}")
        return self.request(method, path, body, headers)

    def log_lines(self) -> list[dict]:
        out = []
        for line in self.log.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out

    def worker_pids(self) -> list[int]:
        """The gunicorn worker processes (children of the master)."""
        import psutil

        return sorted(child.pid for child in psutil.Process(self.process.pid).children())

    def readyz_of_each_worker(self, seconds: float = 30.0) -> dict[int, dict]:
        """{worker pid: its /readyz body} for every live worker.

        Requests land on whichever worker the kernel wakes, often the same one many times over, so
        this asks until every live worker has answered (a fixed number of requests could see one).
        """
        deadline = time.monotonic() + seconds
        bodies: dict[int, dict] = {}
        while True:
            status, _h, body = self.admin("GET", "/readyz")
            assert status in (200, 503) and "worker" in body, body  # 503: that worker is not ready (body says why)
            bodies[body["worker"]] = body
            workers = set(self.worker_pids())
            if workers <= set(bodies):
                return {pid: bodies[pid] for pid in workers}
            assert time.monotonic() < deadline, f"only workers {sorted(bodies)} of {sorted(workers)} answered /readyz"
            time.sleep(0.05)

    def wait_every_worker(self, agrees, what: str, seconds: float = 20.0) -> dict[int, dict]:
        """Wait until `agrees(body)` holds for the /readyz body of every live worker (each asked
        through `readyz_of_each_worker`); those bodies. Fails the test, naming `what`, after `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            bodies = self.readyz_of_each_worker()
            if all(agrees(body) for body in bodies.values()):
                return bodies
            assert time.monotonic() < deadline, f"timed out waiting for every worker: {what}"
            time.sleep(0.3)

    def wait_ready(self, seconds: float = 120.0) -> None:
        """Block until /readyz answers 200 (fails the test with the log tail otherwise)."""
        import pytest

        deadline = time.monotonic() + seconds
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"the service exited with {self.process.returncode}:\n{self.log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(self.url + "/readyz", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.process.kill()
                pytest.fail(f"the service did not become ready in {seconds:.0f} s:\n{self.log.read_text()[-4000:]}")
            time.sleep(0.3)

    def stop(self) -> None:
        """SIGTERM the master and wait (SIGKILL after 30 s)."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


HAPROXY_INSTALL = "apt-get install haproxy"


def haproxy_missing() -> bool:
    """Whether the haproxy binary is absent (on PATH or in /usr/sbin); tests behind the proxy skip then."""
    return shutil.which("haproxy", path=os.pathsep.join((os.environ.get("PATH", ""), "/usr/sbin"))) is None


def start_proxy(config_dir: Path, upstream_port: int, log: Path, request_timeout: float | None = None):
    """Start `sightline proxy` (HAProxy, config/haproxy/sightline.cfg) on a free loopback port in
    front of the service on `upstream_port`; wait until it accepts. (process, port); the caller
    terminates the process."""
    port = free_port()
    env = dict(os.environ, SIGHTLINE_CONFIG_DIR=str(config_dir))
    command = [sys.executable, "-m", "server.cli", "proxy", "--listen", f"127.0.0.1:{port}",
               "--upstream", f"127.0.0.1:{upstream_port}"]
    if request_timeout is not None:
        command += ["--request-timeout", str(request_timeout)]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=paths.REPO_ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                process.wait()
                raise RuntimeError(f"sightline proxy did not start:\n{log.read_text()}") from None
            time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_service(kb_config, root: Path, workers: int = 2, env: dict | None = None,
                  wait: bool = True, config_dir: Path | None = None) -> Live:
    """Start `sightline serve` over `kb_config`'s data directory; config copied under `root`.

    Args:
        kb_config: a KBConfig whose data_dir holds built knowledge bases (e.g. `demo_kbs`).
        root: a fresh temporary directory for the config copy, the log and the metrics.
        workers: gunicorn workers.
        env: extra environment variables for the service.
        wait: block until /readyz is 200.
        config_dir: use this config directory instead of a fresh copy of the repository's.
    """
    if config_dir is None:
        config_dir = root / "config"
        shutil.copytree(paths.REPO_ROOT / "config", config_dir)
    port = free_port()
    log = root / "service.log"
    full_env = dict(os.environ, SIGHTLINE_CONFIG_DIR=str(config_dir), SIGHTLINE_DATA_DIR=str(kb_config.data_dir),
                    SIGHTLINE_ADMIN_TOKEN=ADMIN_TOKEN, PROMETHEUS_MULTIPROC_DIR=str(root / "prometheus"),
                    SIGHTLINE_RELOAD_SECONDS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    full_env.pop("SIGHTLINE_SERVICE_CONFIG", None)
    full_env.pop("SIGHTLINE_API_KEYS", None)
    for name in [n for n in full_env if n.startswith("SIGHTLINE_LLM_")]:  # no LLM unless the test asks for one
        full_env.pop(name)
    full_env.update(env or {})
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--host", "127.0.0.1",
                                    "--port", str(port), "--workers", str(workers)], cwd=paths.REPO_ROOT,
                                   env=full_env, stdout=out, stderr=subprocess.STDOUT)
    live = Live(f"http://127.0.0.1:{port}", config_dir, log, process, root / "prometheus", Path(kb_config.data_dir))
    if wait:
        live.wait_ready()
    return live
