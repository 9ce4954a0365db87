"""A real Prometheus server scrapes the real service: every dashboard query returns data,
counters are summed over all gunicorn workers and never reset (even when a worker dies), and
the alert rules load and evaluate.

Prometheus is the Debian package `prometheus`, installed by `.ci/run` (and by hand with
`apt-get install prometheus`, see docs/SERVICE.md); a test never installs software itself, so
without it on PATH the test skips and says how to install it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from orchestration import paths

from .conftest import DATES, FUEL_EN, INVOICE_ZH, NOW, OFF_TOPIC, concurrently, free_port

pytestmark = pytest.mark.slow

DASHBOARD = paths.REPO_ROOT / "config" / "grafana" / "sightline.json"
ALERTS = paths.REPO_ROOT / "config" / "prometheus" / "alerts.yml"
APT = "DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus"


def _prometheus_binary() -> str:
    """The prometheus binary; skips with the install command when it is not on PATH."""
    return shutil.which("prometheus") or pytest.skip(
        f"prometheus is not installed: {APT} (as root; .ci/run does this) to run the dashboard test")


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


class Prometheus:
    def __init__(self, url: str) -> None:
        self.url = url

    def query(self, expr: str) -> list[dict]:
        body = _get(f"{self.url}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
        assert body["status"] == "success", (expr, body)
        return body["data"]["result"]

    def scalar(self, expr: str) -> float:
        result = self.query(expr)
        assert len(result) == 1, (expr, result)
        return float(result[0]["value"][1])

    def wait_scrapes(self, n: int = 3) -> None:
        """Until n more scrapes of the service have happened."""
        expr = 'sum(count_over_time(up{job="sightline"}[10m]))'
        start = self.scalar(expr)
        deadline = time.monotonic() + 30
        while self.scalar(expr) < start + n:
            assert time.monotonic() < deadline, "Prometheus stopped scraping"
            time.sleep(0.3)


@contextlib.contextmanager
def run_prometheus(target_url: str, root, job: str = "sightline"):
    """prometheus scraping `target_url` every second with the shipped alert rules, until the block ends."""
    binary = _prometheus_binary()
    port = free_port()
    target = target_url.split("//", 1)[1]
    config = root / "prometheus.yml"
    config.write_text(json.dumps({  # JSON is YAML
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": [str(ALERTS)],
        "scrape_configs": [{"job_name": job, "static_configs": [{"targets": [target]}]}],
    }))
    log = (root / "prometheus.log").open("wb")
    process = subprocess.Popen([binary, f"--config.file={config}", f"--storage.tsdb.path={root / 'data'}",
                                f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"prometheus exited: {(root / 'prometheus.log').read_text()[-3000:]}")
            try:
                targets = _get(f"{url}/api/v1/targets")["data"]["activeTargets"]
                if targets and all(t["health"] == "up" for t in targets):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, (root / "prometheus.log").read_text()[-3000:]
            time.sleep(0.3)
        yield Prometheus(url)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@pytest.fixture(scope="module")
def prometheus(live, tmp_path_factory):
    """prometheus scraping the live service every second, with the shipped alert rules."""
    with run_prometheus(live.url, tmp_path_factory.mktemp("prometheus")) as server:
        yield server


def dashboard_queries(row: str | None = None) -> list[tuple[str, str]]:
    """(panel title, PromQL) of every panel target (of one row's panels, when given), variables filled in."""
    dashboard = json.loads(DASHBOARD.read_text())
    out = []
    current = None
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            current = panel["title"]
        if row is not None and current != row:
            continue
        for target in panel.get("targets", []):
            expr = target["expr"].replace("$__rate_interval", "1m").replace("$job", "sightline")
            out.append((panel["title"], expr))
    return out


def _traffic(live) -> None:
    queries = [FUEL_EN, DATES, OFF_TOPIC, INVOICE_ZH]
    calls = [lambda q=q: live.request("POST", "/rag", {"query": q, "now": NOW, "trace": "none"}) for q in queries]
    calls.append(lambda: live.request("POST", "/rag", b'{"query": 1}', {"Content-Type": "application/json"}))
    results = concurrently(calls, threads=2)
    assert [status for status, _h, _b in results] == [200, 200, 200, 200, 400]


def _worker_pids(live) -> set[int]:
    seen: set[int] = set()
    for _ in range(20):
        seen |= {body["worker"] for _s, _h, body in concurrently([lambda: live.admin("GET", "/admin/router")] * 4)}
        if len(seen) >= 2:
            return seen
    return seen


def test_dashboard_queries_return_data_and_counters_sum_over_workers(live, prometheus):
    prometheus.wait_scrapes(2)
    _traffic(live)
    prometheus.wait_scrapes(2)
    # a worker dies and is replaced: its counts must stay in the totals, its live gauges must go
    pids = _worker_pids(live)
    assert len(pids) == 2
    dead = min(pids)
    os.kill(dead, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while dead in _worker_pids(live) or len(_worker_pids(live)) < 2:
        assert time.monotonic() < deadline, "gunicorn did not replace the worker"
        time.sleep(0.5)
    files = os.listdir(live.metrics_dir)
    # its counters and histograms went into the archive files, its live gauges went: no file of it is left
    assert not any(f.endswith(f"_{dead}.db") for f in files), files
    assert {"counter_archive.db", "histogram_archive.db"} <= set(files)
    _traffic(live)
    prometheus.wait_scrapes(3)

    for title, expr in dashboard_queries():
        assert prometheus.query(expr), f"panel '{title}' has no data: {expr}"

    assert prometheus.scalar('sum(sightline_requests_total{job="sightline"})') == live.rag_requests
    assert prometheus.scalar('sum(sightline_request_seconds_count{job="sightline"})') == live.rag_requests
    for name in ("sightline_requests_total", "sightline_request_seconds_count", "sightline_stage_seconds_count",
                 "sightline_validation_issues_total", "sightline_retries_total"):
        assert prometheus.scalar(f'sum(resets({name}{{job="sightline"}}[10m])) or vector(0)') == 0, name
    assert prometheus.scalar('sum(sightline_retries_total{job="sightline"})') > 0
    assert prometheus.scalar('sum(sightline_validation_issues_total{job="sightline"})') > 0
    version = prometheus.query('max by (version) (sightline_router_config) > 0')
    assert len(version) == 1 and version[0]["metric"]["version"] == live.admin("GET", "/admin/router")[2]["version"]
    # every worker answers a scrape with the same totals (Prometheus keeps one keep-alive
    # connection, so one worker may answer all its scrapes: scrape on fresh connections too)
    totals_by_worker: dict[int, set[float]] = {}
    for round_ in range(20):
        ids = [f"scrape-{round_}-{i}" for i in range(4)]
        scrapes = concurrently([lambda rid=rid: live.request("GET", "/metrics", headers={"X-Request-ID": rid})
                                for rid in ids])
        time.sleep(0.2)  # the access log line is written after the response
        served_by = {line.get("request_id"): line["pid"] for line in live.log_lines()
                     if line.get("logger") == "gunicorn.access" and line.get("path") == "/metrics"}
        for rid, (_s, _h, text) in zip(ids, scrapes, strict=True):
            totals_by_worker.setdefault(served_by[rid], set()).add(_sample_sum(text, "sightline_requests_total"))
        if len(totals_by_worker) >= 2:
            break
    assert len(totals_by_worker) >= 2, totals_by_worker
    assert all(totals == {float(live.rag_requests)} for totals in totals_by_worker.values()), totals_by_worker


def _sample_sum(text: str, name: str) -> float:
    """The sum of one metric's samples in an exposition text."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name + "{") or line.startswith(name + " "))


def test_alert_rules_load_and_evaluate(prometheus):
    time.sleep(2)  # two evaluation rounds
    groups = _get(f"{prometheus.url}/api/v1/rules")["data"]["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    assert len(rules) >= 5
    for rule in rules:
        assert rule["health"] == "ok", (rule["name"], rule.get("lastError"))
    names = {rule["name"] for rule in rules}
    assert {"SightlineRouterReloadFailed", "SightlineValidationIssueRateJump", "SightlineLatencyP95OverBudget"} <= names
