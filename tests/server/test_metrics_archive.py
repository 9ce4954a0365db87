"""Dead workers' metric files fold into one archive per type: totals kept, files bounded."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest, multiprocess

from server.metrics_archive import archive_dead_worker

REPO = Path(__file__).resolve().parents[2]

WORKER = textwrap.dedent("""
    import sys
    from prometheus_client import Counter, Gauge, Histogram
    requests = Counter("demo_requests", "requests", ["status"])
    seconds = Histogram("demo_seconds", "seconds", buckets=(0.1, 1.0))
    live = Gauge("demo_live", "live", multiprocess_mode="livemax")
    n = int(sys.argv[1])
    for i in range(n):
        requests.labels("ok" if i % 3 else "error").inc()
        seconds.observe(0.05 if i % 2 else 0.5)
    live.set(n)
""")


def _run_worker(directory: Path, n: int) -> int:
    proc = subprocess.run([sys.executable, "-c", WORKER, str(n)], cwd=REPO, check=True,
                          env=dict(os.environ, PROMETHEUS_MULTIPROC_DIR=str(directory)), capture_output=True)
    assert proc.returncode == 0
    return int(next(p.name.rsplit("_", 1)[1][:-3] for p in directory.glob("counter_*.db")
                    if p.name != "counter_archive.db"))


def _scrape(directory: Path) -> dict[str, float]:
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(directory))
    out = {}
    for line in generate_latest(registry).decode().splitlines():
        if line.startswith("demo_") and not line.startswith("demo_live"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def test_archiving_dead_workers_keeps_every_total_and_leaves_two_files(tmp_path):
    expected: dict[str, float] = {}
    for n in (5, 7, 11):
        pid = _run_worker(tmp_path, n)
        before = _scrape(tmp_path)
        multiprocess.mark_process_dead(pid, str(tmp_path))
        merged = archive_dead_worker(tmp_path, pid)
        assert merged == [f"counter_{pid}.db", f"histogram_{pid}.db"]
        assert _scrape(tmp_path) == before  # the worker's counts are still in the totals
        expected = before
    assert expected['demo_requests_total{status="ok"}'] + expected['demo_requests_total{status="error"}'] == 23
    assert expected["demo_seconds_count"] == 23
    assert expected['demo_seconds_bucket{le="0.1"}'] == 2 + 3 + 5  # odd i observed 0.05
    assert expected['demo_seconds_bucket{le="+Inf"}'] == 23
    assert sorted(p.name for p in tmp_path.glob("*.db")) == ["counter_archive.db", "histogram_archive.db"]


def test_a_worker_that_recorded_nothing_merges_nothing(tmp_path):
    assert archive_dead_worker(tmp_path, 12345) == []
    assert list(tmp_path.glob("*.db")) == []
