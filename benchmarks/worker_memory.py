"""Memory of a running gunicorn service, per process: PSS from /proc/<pid>/smaps_rollup.

    python -m benchmarks.worker_memory --pid MASTER_PID | --pidfile FILE
        [--url http://127.0.0.1:8000 (--scale-report REPORT.json | --questions-from FILE)]
        [--warm 10] [--concurrency 2] [--now 2025-07-10] [--json OUT.json]

What it promises:
- The processes are the gunicorn master (`--pid`, or the number in `--pidfile`, e.g. gunicorn's
  `--pid` file) and its children, the workers, as they are when each reading is taken.
- Each reading is the kernel's `/proc/<pid>/smaps_rollup` as it is, in MB: Rss, Pss (a page
  mapped by k processes counts 1/k in each), Pss_Anon, Pss_File, Pss_Shmem, Shared_* and
  Private_*; USS is psutil's `memory_full_info().uss` (the pages only this process maps). CPU
  seconds per process are read too, so the spread of the load over the workers shows. A number
  that cannot be read (a process gone, no permission) makes the script fail; none is guessed.
- With `--url`, it first POSTs `--warm` questions to `/rag` (the "after warm-up" reading), then
  the load (the "after load" reading), `--concurrency` requests at a time, one connection each,
  so the kernel hands them to whichever worker accepts. Latency is each HTTP call's wall time,
  reply read, as this client sees it; p50/p95 by `evaluation.stats.percentile`. A reply other
  than 200 counts as an error (counted, and the run exits 1).
- `--scale-report` replays `benchmarks/scale.py`'s worker stage for the KB that report
  describes (seed 0): its 50 `AnswerLoop` questions and its retrieval queries, the same texts
  in the same order (the generator's state depends on the KB's chunk count, which the report
  holds). Its first, untimed question leads the warm-up; the rest of the warm-up is questions of
  the same forms from another seed, so no load question is asked twice.
Without `--url` it takes one reading. Prints a Markdown table; `--json` writes every figure.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psutil

from evaluation.stats import percentile

FIELDS = ("Rss", "Pss", "Pss_Anon", "Pss_File", "Pss_Shmem", "Shared_Clean", "Shared_Dirty", "Private_Clean",
          "Private_Dirty")
TABLE = ("Rss", "Pss", "Pss_Anon", "Pss_File", "USS")


# --- reading the kernel's figures ----------------------------------------------------------------

def parse_smaps_rollup(text: str) -> dict[str, int]:
    """`Key: N kB` lines of a smaps_rollup file -> {key: kB} (the header line is skipped)."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].endswith(":") and parts[2] == "kB":
            out[parts[0][:-1]] = int(parts[1])
    if "Rss" not in out or "Pss" not in out:
        raise ValueError(f"not a smaps_rollup file (no Rss or Pss line): {text[:200]!r}")
    return out


def read_rollup(pid: int | str = "self") -> dict[str, int]:
    """/proc/<pid>/smaps_rollup in kB."""
    return parse_smaps_rollup(Path(f"/proc/{pid}/smaps_rollup").read_text())


def service_pids(master: int) -> list[tuple[str, int]]:
    """(role, pid): the master, then its children (gunicorn's workers) by pid."""
    children = sorted(c.pid for c in psutil.Process(master).children())
    return [("master", master)] + [(f"worker {i + 1}", pid) for i, pid in enumerate(children)]


def reading(master: int) -> list[dict[str, Any]]:
    """Every process of the service now: smaps_rollup fields and USS in MB, CPU seconds."""
    rows = []
    for role, pid in service_pids(master):
        rollup = read_rollup(pid)
        process = psutil.Process(pid)
        cpu = process.cpu_times()
        row: dict[str, Any] = {"role": role, "pid": pid}
        row.update({key: round(rollup.get(key, 0) / 1024, 1) for key in FIELDS})
        row["USS"] = round(process.memory_full_info().uss / 2**20, 1)
        row["cpu_s"] = round(cpu.user + cpu.system, 2)
        rows.append(row)
    return rows


# --- the questions -------------------------------------------------------------------------------

def scale_questions(chunks: int, queries: int = 200, questions: int = 50, seed: int = 0
                    ) -> tuple[list[str], list[str]]:
    """`benchmarks/scale.py`'s worker stage's texts for a KB of `chunks` chunks (`worker_texts`):
    (its questions + 1, the first untimed, as `_loop_times` asks them; its `queries` retrieval
    queries)."""
    from benchmarks.scale import worker_texts

    texts, _rows, asked, _sampler = worker_texts(chunks, queries, questions, seed)
    return asked, texts


def other_questions(n: int, seed: int = 1000) -> list[str]:
    """`n` questions of scale.py's forms from another seed (warm-up that repeats no load question)."""
    from benchmarks.scale import QUESTION_FORMS, Sampler, vocabulary

    sampler = Sampler(*vocabulary(), seed=seed)
    return [QUESTION_FORMS[i % len(QUESTION_FORMS)].format(*(" ".join(sampler.content(1 + i % 2)) for _ in range(2)))
            for i in range(n)]


def workload(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """(warm-up texts, load texts)."""
    if args.scale_report:
        report = json.loads(args.scale_report.read_text(encoding="utf-8"))
        latency = report["worker"]["latency"]
        asked, texts = scale_questions(report["build"]["chunks"], queries=latency["keyword"]["n"] + 1,
                                       questions=latency["loop"]["n"])
        return [asked[0]] + other_questions(max(0, args.warm - 1)), asked[1:] + texts
    lines = [line.strip() for line in args.questions_from.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines[:args.warm], lines[args.warm:]


# --- the load -----------------------------------------------------------------------------------------

def ask(url: str, query: str, now: str | None, timeout: float = 60.0) -> tuple[float, int]:
    """POST /rag once on a new connection: (ms, HTTP status)."""
    body = json.dumps({"query": query, **({"now": now} if now else {})}).encode("utf-8")
    request = urllib.request.Request(url.rstrip("/") + "/rag", data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Connection": "close"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            reply.read()
            status = reply.status
    except urllib.error.HTTPError as exc:
        exc.read()
        status = exc.code
    return (time.perf_counter() - started) * 1000, status


def send(url: str, texts: list[str], now: str | None, concurrency: int) -> dict[str, Any]:
    """Every text once, `concurrency` at a time: latency p50/p95 (ms), errors, seconds."""
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        done = list(pool.map(lambda text: ask(url, text, now), texts))
    ms = [m for m, status in done if status == 200]
    return {"n": len(done), "errors": sum(status != 200 for _, status in done),
            "p50_ms": round(percentile(ms, 0.5), 1) if ms else None,
            "p95_ms": round(percentile(ms, 0.95), 1) if ms else None,
            "seconds": round(time.perf_counter() - started, 1)}


# --- the report ----------------------------------------------------------------------------------------

def table(readings: dict[str, list[dict[str, Any]]]) -> str:
    """Markdown: one row per process and reading, MB."""
    lines = ["| reading | process | pid | " + " | ".join(TABLE) + " | CPU s |",
             "|---|---|---:|" + "---:|" * (len(TABLE) + 1)]
    for when, rows in readings.items():
        for row in rows:
            lines.append(f"| {when} | {row['role']} | {row['pid']} | "
                         + " | ".join(f"{row[key]:,.0f}" for key in TABLE) + f" | {row['cpu_s']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--pid", type=int, help="the gunicorn master's pid")
    who.add_argument("--pidfile", type=Path, help="a file holding it (gunicorn --pid FILE)")
    parser.add_argument("--url", help="the service, e.g. http://127.0.0.1:8000: warm it up and load it first")
    questions = parser.add_mutually_exclusive_group()
    questions.add_argument("--scale-report", type=Path, help="benchmarks/scale.py's --json: replay its questions")
    questions.add_argument("--questions-from", type=Path, help="a text file, one question a line (--warm first)")
    parser.add_argument("--warm", type=int, default=10, help="warm-up requests before the first reading")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--now", default="2025-07-10", help="the requests' `now` (scale.py's NOW)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args(argv)
    if args.url and not (args.scale_report or args.questions_from):
        parser.error("--url needs --scale-report or --questions-from")
    master = args.pid or int(args.pidfile.read_text().strip())
    figures: dict[str, Any] = {"master": master, "readings": {}, "load_average": {}}
    if args.url:
        warm, load = workload(args)
        figures["warm_up"] = send(args.url, warm, args.now, args.concurrency)
        figures["readings"]["after warm-up"] = reading(master)
        figures["load_average"]["after warm-up"] = [round(x, 2) for x in os.getloadavg()]
        figures["load"] = send(args.url, load, args.now, args.concurrency)
        figures["readings"]["after load"] = reading(master)
        figures["load_average"]["after load"] = [round(x, 2) for x in os.getloadavg()]
    else:
        figures["readings"]["now"] = reading(master)
        figures["load_average"]["now"] = [round(x, 2) for x in os.getloadavg()]
    print(table(figures["readings"]))
    for stage in ("warm_up", "load"):
        if stage in figures:
            s = figures[stage]
            print(f"{stage}: {s['n']} requests, {s['errors']} errors, p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms, "
                  f"{s['seconds']} s", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 1 if any(figures.get(s, {}).get("errors") for s in ("warm_up", "load")) else 0


if __name__ == "__main__":
    raise SystemExit(main())
