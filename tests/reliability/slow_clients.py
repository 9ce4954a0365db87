"""A slow-client attack and an ordinary client, measured side by side (used by test_slow_clients.py).

`run_attack` keeps N connections that trickle their headers and N that drip their body one
byte every few seconds open against host:port for `hold` seconds (each one that is closed is
reopened, so the count stays up), while one ordinary client asks four times a second (four
questions in turn, English and Chinese, through the whole answer loop). The report holds what
issue 22 asks to show: connections held, requests served, p95, the 408s and the time each slow
connection took to be closed.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

HEADER_START = b"GET /healthz HTTP/1.1\r\nHost: sightline\r\n"
BODY_HEADERS = (b"POST /rag HTTP/1.1\r\nHost: sightline\r\nContent-Type: application/json\r\n"
                b"Content-Length: 500\r\n\r\n")
QUESTIONS = ("What triggers error code E4027?", "Compare the fuel burn of the A320 and the B737 in 2023",
             "Who handles an invoice that does not match the contract and what is the process?",
             "发票金额与合同不一致，应该找哪个部门处理，流程是什么？")


@dataclass
class SlowReport:
    """What one kind of slow connection got."""

    kind: str
    statuses: Counter = field(default_factory=Counter)  # first status line code ("none": closed silently)
    close_seconds: list[float] = field(default_factory=list)  # connect -> closed by the server

    @property
    def opened(self) -> int:
        return sum(self.statuses.values())


@dataclass
class AttackReport:
    """The whole run: both slow kinds, the ordinary client, the open slow connections over time."""

    hold: float
    slow: dict[str, SlowReport]
    latencies: list[float] = field(default_factory=list)  # seconds, answered requests
    ordinary_statuses: Counter = field(default_factory=Counter)
    held_samples: list[int] = field(default_factory=list)  # open slow connections, once a second

    @property
    def p95(self) -> float:
        return statistics.quantiles(self.latencies, n=20)[-1] if len(self.latencies) >= 2 else float("inf")

    def table(self) -> str:
        """The run as a Markdown table (also printed by the test)."""
        held = self.held_samples[2:-2] or self.held_samples
        served = self.ordinary_statuses.get(200, 0)
        rows = [f"| hold | {self.hold:.0f} s |",
                f"| slow connections held (min / max while held) | {min(held, default=0)} / {max(held, default=0)} |",
                f"| ordinary requests served (200) / sent | {served} / {sum(self.ordinary_statuses.values())} |",
                f"| ordinary p50 / p95 / max | {_ms(statistics.median(self.latencies) if self.latencies else 0)} / "
                f"{_ms(self.p95)} / {_ms(max(self.latencies, default=0))} |"]
        for report in self.slow.values():
            times = sorted(report.close_seconds)
            rows.append(f"| {report.kind}: opened / 408 / other | {report.opened} / {report.statuses.get('408', 0)} / "
                        f"{report.opened - report.statuses.get('408', 0)} |")
            if times:
                rows.append(f"| {report.kind}: closed after min / median / max | {times[0]:.2f} / "
                            f"{statistics.median(times):.2f} / {times[-1]:.2f} s |")
        return "| measure | value |\n|---|---|\n" + "\n".join(rows)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


async def _slow_connection(host: str, port: int, first: bytes, trickle: bytes, every: float,
                           report: SlowReport, open_count: list[int], give_up: float) -> None:
    """One connection: send `first`, then `trickle` every `every` s, until the server answers and closes."""
    started = time.monotonic()
    reader, writer = await asyncio.open_connection(host, port)
    open_count[0] += 1

    async def drip() -> None:
        writer.write(first)
        while True:
            await asyncio.sleep(every)
            writer.write(trickle)
            await writer.drain()

    dripping = asyncio.create_task(drip())
    try:
        reply = await asyncio.wait_for(reader.read(-1), timeout=give_up)
    except (TimeoutError, OSError):
        reply = b""
    finally:
        dripping.cancel()
        open_count[0] -= 1
        writer.close()
    report.close_seconds.append(time.monotonic() - started)
    status = reply.split(b" ", 2)[1].decode() if reply.startswith(b"HTTP/") else "none"
    report.statuses[status] += 1


async def _slot(host: str, port: int, kind: str, report: SlowReport, open_count: list[int],
                stop_opening: float, every: float, give_up: float) -> None:
    """Keep one slow connection of `kind` open until `stop_opening`, reopening each one that is closed."""
    first, trickle = (HEADER_START, b"X-Slow: 1\r\n") if kind == "slow headers" else (BODY_HEADERS, b" ")
    while time.monotonic() < stop_opening:
        try:
            await _slow_connection(host, port, first, trickle, every, report, open_count, give_up)
        except OSError:  # refused: count it, try again shortly
            report.statuses["refused"] += 1
            await asyncio.sleep(0.5)


def _ordinary_client(host: str, port: int, until: float, interval: float, report: AttackReport) -> None:
    """Ask a question every `interval` s until `until` (QUESTIONS in turn), recording status and latency."""
    asked = 0
    while (now := time.monotonic()) < until:
        body = json.dumps({"query": QUESTIONS[asked % len(QUESTIONS)], "now": "2025-07-01", "trace": "none"}).encode()
        asked += 1
        conn = http.client.HTTPConnection(host, port, timeout=30)
        try:
            conn.request("POST", "/rag", body=body, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            response.read()
            report.ordinary_statuses[response.status] += 1
            if response.status == 200:
                report.latencies.append(time.monotonic() - now)
        except OSError as exc:
            report.ordinary_statuses[type(exc).__name__] += 1
        finally:
            conn.close()
        time.sleep(max(0.0, now + interval - time.monotonic()))


async def _attack(host: str, port: int, per_kind: int, hold: float, deadline: float, every: float,
                  report: AttackReport) -> None:
    start = time.monotonic()
    open_count = [0]
    # a slot opens its last connection so that it is closed (at the deadline) by the end of the hold
    stop_opening = start + max(hold - deadline, 0.0)
    slots = [_slot(host, port, kind, report.slow[kind], open_count, stop_opening, every, deadline * 3 + 10)
             for kind in report.slow for _ in range(per_kind)]
    tasks = [asyncio.create_task(slot) for slot in slots]
    while not all(task.done() for task in tasks):
        report.held_samples.append(open_count[0])
        await asyncio.sleep(1.0)
    for task in tasks:
        task.result()  # re-raise what a slot could not handle


def run_attack(host: str, port: int, per_kind: int = 100, hold: float = 60.0, deadline: float = 10.0,
               every: float = 4.0, interval: float = 0.25) -> AttackReport:
    """Hold `per_kind` slow-header and `per_kind` drip-body connections for `hold` s; ask meanwhile.

    Args:
        host, port: the front to attack (the proxy, or gunicorn itself to see the difference).
        per_kind: connections of each kind kept open.
        hold: seconds the attack lasts; the ordinary client asks during all of it.
        deadline: the server's whole-request deadline: each slow connection is opened so it
            can be answered before the hold ends.
        every: seconds between the trickled bytes (a header line, a body byte).
        interval: seconds between the ordinary client's questions.
    """
    report = AttackReport(hold=hold, slow={kind: SlowReport(kind) for kind in ("slow headers", "drip body")})
    ordinary = threading.Thread(target=_ordinary_client,
                                args=(host, port, time.monotonic() + hold, interval, report), daemon=True)
    ordinary.start()
    asyncio.run(_attack(host, port, per_kind, hold, deadline, every, report))
    ordinary.join(timeout=60)
    return report
