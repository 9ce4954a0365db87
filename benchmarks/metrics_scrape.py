"""Scrape time of /metrics as gunicorn workers die and are replaced, with and without the archive.

    python -m benchmarks.metrics_scrape [--dead 0,10,30,50] [--runs 30] [--json]

Each dead worker is a forked process that records what a serving worker records (the real
metric definitions of server/metrics.py: every label set initialised, some requests, stage
and retrieval times) and exits. For each count the script times the scrape (`exposition()`,
median of --runs) over the files as prometheus_client leaves them (two files per dead
worker, kept forever) and after `mark_dead` folded them into the archive, and checks the
two scrapes give the same totals.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _record_like_a_worker() -> None:
    from server import metrics

    kbs = ("manuals", "policies", "reports")
    metrics.initialise(dict.fromkeys(kbs, 100), "v1", kbs)
    for i in range(20):
        metrics.REQUESTS.labels("answered", "rag").inc()
        metrics.REQUEST_SECONDS.labels("rag").observe(0.05 + i / 1000)
        for stage in metrics.STAGES:
            metrics.STAGE_SECONDS.labels(stage).observe(0.004)
        for kb in kbs:
            metrics.RETRIEVAL_SECONDS.labels("keyword", kb).observe(0.0004)
            metrics.RETRIEVAL_SECONDS.labels("vector", kb).observe(0.001)
        metrics.VALIDATION_ISSUES.labels("citation", "unsupported_claim").inc()


def _spawn_dead_workers(count: int) -> list[int]:
    pids = []
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            try:
                _record_like_a_worker()
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        pids.append(pid)
    return pids


def _median_scrape_ms(runs: int) -> tuple[float, bytes]:
    from server.metrics import exposition

    times, text = [], b""
    for _ in range(runs):
        started = time.perf_counter()
        text, _kind = exposition()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), text


def _totals(text: bytes) -> dict[str, float]:
    out = {}
    for line in text.decode().splitlines():
        if line.startswith("sightline_") and not line.startswith(("sightline_router_config", "sightline_kb_chunks")):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def measure(dead_counts: list[int], runs: int) -> list[dict]:
    """One row per dead-worker count: files and median scrape ms, kept as is vs archived."""
    from server.metrics import mark_dead

    rows = []
    directory = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    for count in dead_counts:
        for path in directory.glob("*"):
            path.unlink()
        pids = _spawn_dead_workers(count)
        for pid in pids:  # what prometheus_client's own mark_process_dead leaves: counters and histograms
            for path in directory.glob(f"gauge_live*_{pid}.db"):
                path.unlink()
        kept_files = len(list(directory.glob("*.db")))
        kept_ms, kept_text = _median_scrape_ms(runs)
        for pid in pids:
            mark_dead(pid)
        archived_files = len(list(directory.glob("*.db")))
        archived_ms, archived_text = _median_scrape_ms(runs)
        assert _totals(kept_text) == _totals(archived_text), "the archive changed a total"
        rows.append({"dead_workers": count, "files_kept": kept_files, "scrape_ms_kept": round(kept_ms, 2),
                     "files_archived": archived_files, "scrape_ms_archived": round(archived_ms, 2)})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dead", default="0,10,30,50", help="comma-separated dead-worker counts")
    parser.add_argument("--runs", type=int, default=30, help="scrapes timed per count (median)")
    parser.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    args = parser.parse_args(argv)
    try:
        counts = [int(part) for part in args.dead.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--dead must be comma-separated integers, got {args.dead!r}")
    if any(c < 0 for c in counts) or args.runs < 1:
        parser.error("--dead counts must be >= 0 and --runs >= 1")
    with tempfile.TemporaryDirectory(prefix="sightline-metrics-") as directory:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory  # before prometheus_client is imported
        rows = measure(counts, args.runs)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'dead workers':>12} {'files kept':>10} {'scrape ms':>9} {'files archived':>14} {'scrape ms':>9}")
    for row in rows:
        print(f"{row['dead_workers']:>12} {row['files_kept']:>10} {row['scrape_ms_kept']:>9} "
              f"{row['files_archived']:>14} {row['scrape_ms_archived']:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
