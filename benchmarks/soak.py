"""A bounded soak of a running Sightline service: N client threads POST /rag for T seconds.

    python -m benchmarks.soak --url http://127.0.0.1:8000 --threads 8 --seconds 30 [--key KEY] [--json]

Each thread sends a fixed mix of questions (English and Chinese; answerable, comparative and
unanswerable) with "now": "2025-07-01" and "trace": "summary" until the time is up or the
request cap (--max-requests) is reached, then the script prints: requests, throughput, errors
(non-200 statuses and exceptions, by kind), p50/p95/p99 latency and the RSS of the gunicorn
worker processes at the start and at the end. Workers are found as the children of the
process listening on the URL's port (or of --pid MASTER_PID).

Only loopback services are soaked: a URL whose host is not 127.0.0.0/8, ::1 or localhost is
refused, so the script cannot be pointed at someone else's deployment by mistake.
"""

from __future__ import annotations

import argparse
import http.client
import ipaddress
import json
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

QUESTIONS = (
    "What triggers error code E4027?",
    "Compare the fuel burn of the A320 and the B737 in 2023",
    "发票金额与合同不一致，应该找哪个部门处理，流程是什么？",
    "What is the boiling point of mercury on Mars?",
)
NOW = "2025-07-01"
DEFAULT_MAX_REQUESTS = 100_000


class SoakError(ValueError):
    """A bad argument (e.g. a URL that is not a loopback address)."""


def check_loopback(url: str) -> tuple[str, int]:
    """(host, port) of an http URL on a loopback address; SoakError for anything else."""
    parts = urlsplit(url)
    if parts.scheme != "http":
        raise SoakError(f"refusing {url!r}: only http:// URLs on a loopback address are soaked")
    host = parts.hostname
    if not host:
        raise SoakError(f"refusing {url!r}: no host")
    if host.lower() != "localhost":
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            raise SoakError(f"refusing {url!r}: host {host!r} is not a loopback address "
                            "(use 127.0.0.1, ::1 or localhost)") from None
        if not address.is_loopback:
            raise SoakError(f"refusing {url!r}: host {host} is not a loopback address "
                            "(use 127.0.0.1, ::1 or localhost)")
    try:
        port = parts.port or 80
    except ValueError as exc:
        raise SoakError(f"refusing {url!r}: {exc}") from None
    return host, port


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    requests: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _percentile(sorted_values: list[float], fraction: float) -> float | None:
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def find_workers(port: int, master_pid: int | None = None) -> tuple[list[int], str]:
    """(worker pids, how they were found or why not)."""
    try:
        import psutil
    except ImportError:
        return [], "psutil is not installed"
    try:
        if master_pid is None:
            listeners = set()
            for conn in psutil.net_connections(kind="tcp"):
                if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                    listeners.add(conn.pid)
            if not listeners:
                return [], f"no process visible listening on port {port} (try --pid MASTER_PID)"
            # gunicorn workers inherit the master's socket, and the master may or may not be listed
            # with it: the master is a listener that is the parent of listeners, or the workers' parent
            parents = {pid: psutil.Process(pid).ppid() for pid in listeners}
            masters = {parent for parent in parents.values() if parent in listeners}
            if len(masters) == 1:
                master_pid = masters.pop()
            elif len(set(parents.values())) == 1 and len(listeners) > 1:
                master_pid = next(iter(parents.values()))
            elif len(listeners) == 1:
                # one socket is often reported under one process only: a worker (no children) stands
                # for its master, its parent
                only = psutil.Process(listeners.pop())
                master_pid = only.pid if only.children() else only.ppid()
            else:
                return [], f"several unrelated processes listen on port {port} (pass --pid MASTER_PID)"
        children = psutil.Process(master_pid).children()
    except (psutil.Error, OSError) as exc:
        return [], f"cannot inspect processes: {exc}"
    if not children:
        return [], f"process {master_pid} has no child processes"
    return sorted(child.pid for child in children), f"children of master {master_pid}"


def worker_rss_mb(pids: list[int]) -> dict[int, float | None]:
    import psutil

    out: dict[int, float | None] = {}
    for pid in pids:
        try:
            out[pid] = round(psutil.Process(pid).memory_info().rss / 2**20, 1)
        except psutil.Error:
            out[pid] = None
    return out


def _client(host: str, port: int, headers: dict, deadline: float, budget: list, tally: Tally, offset: int,
            timeout: float) -> None:
    conn: http.client.HTTPConnection | None = None
    turn = offset
    while time.monotonic() < deadline:
        with tally.lock:
            if budget[0] <= 0:
                return
            budget[0] -= 1
        body = json.dumps({"query": QUESTIONS[turn % len(QUESTIONS)], "now": NOW, "trace": "summary"}).encode()
        turn += 1
        started = time.perf_counter()
        kind = None
        try:
            if conn is None:
                conn = http.client.HTTPConnection(host, port, timeout=timeout)
            conn.request("POST", "/rag", body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                kind = f"HTTP {response.status}"
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
        except Exception as exc:  # every failure is counted by kind, the soak goes on
            kind = type(exc).__name__
            if conn is not None:
                conn.close()
            conn = None
        elapsed_ms = (time.perf_counter() - started) * 1000
        with tally.lock:
            tally.requests += 1
            if kind is None:
                tally.latencies_ms.append(elapsed_ms)
            else:
                tally.errors[kind] += 1
    if conn is not None:
        conn.close()


def soak(url: str, threads: int = 4, seconds: float = 10.0, key: str | None = None,
         max_requests: int = DEFAULT_MAX_REQUESTS, master_pid: int | None = None, timeout: float = 60.0) -> dict:
    """Run the soak and return its figures (see the module docstring)."""
    host, port = check_loopback(url)
    if threads < 1 or seconds <= 0 or max_requests < 1:
        raise SoakError("--threads, --seconds and --max-requests must be positive")
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    pids, found = find_workers(port, master_pid)
    rss_start = worker_rss_mb(pids) if pids else {}
    tally, budget = Tally(), [max_requests]
    started = time.monotonic()
    deadline = started + seconds
    workers = [threading.Thread(target=_client, args=(host, port, headers, deadline, budget, tally, index, timeout),
                                daemon=True) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - started
    latencies = sorted(tally.latencies_ms)
    pids_end, _ = find_workers(port, master_pid) if pids else ([], found)
    rss_end = worker_rss_mb(pids_end) if pids_end else {}
    errors = sum(tally.errors.values())
    return {
        "url": url, "threads": threads, "seconds": round(elapsed, 2), "requests": tally.requests,
        "ok": len(latencies), "errors": errors, "errors_by_kind": dict(tally.errors),
        "throughput_rps": round(tally.requests / elapsed, 2) if elapsed > 0 else 0.0,
        "latency_ms": {name: (round(value, 1) if value is not None else None)
                       for name, value in (("p50", _percentile(latencies, 0.50)), ("p95", _percentile(latencies, 0.95)),
                                           ("p99", _percentile(latencies, 0.99)))},
        "workers": {"found": found, "rss_mb_start": rss_start, "rss_mb_end": rss_end},
    }


def format_report(result: dict) -> str:
    lat = result["latency_ms"]
    lines = [
        f"soak {result['url']}: {result['threads']} threads for {result['seconds']} s",
        f"requests     {result['requests']} ({result['ok']} ok)",
        f"throughput   {result['throughput_rps']} req/s",
        f"errors       {result['errors']}" + (f" {result['errors_by_kind']}" if result["errors"] else ""),
        f"latency ms   p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}",
    ]
    workers = result["workers"]
    if workers["rss_mb_start"]:
        start = ", ".join(f"{pid}: {mb} MB" for pid, mb in workers["rss_mb_start"].items())
        end = ", ".join(f"{pid}: {mb} MB" for pid, mb in workers["rss_mb_end"].items()) or "none found"
        lines += [f"worker RSS   start {start}", f"             end   {end}"]
    else:
        lines.append(f"worker RSS   unknown: {workers['found']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the service (loopback only)")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--key", help="an API key, sent as Authorization: Bearer KEY")
    parser.add_argument("--pid", type=int, help="the gunicorn master's pid (default: found from the port)")
    parser.add_argument("--max-requests", type=int, default=DEFAULT_MAX_REQUESTS, help="stop after this many")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        result = soak(args.url, args.threads, args.seconds, args.key, args.max_requests, args.pid)
    except SoakError as exc:
        print(f"soak: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else format_report(result))
    return 0 if result["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
