"""Ingest embedding rate (chunks/s) of `sightline ingest` with different `--workers` / `--device`, side by side.

    python -m benchmarks.ingest_rate [--data FILE] [--limit N] [--runs R] [--setting "--workers 1" ...] [--json]

Each run is a fresh `sightline ingest FILE --kb ingestbench --rebuild --json` in a new data and
config directory, so no vector is reused from an earlier build; runs of the settings alternate
(1, 2, 1, 2, ...) so a change in the machine's load falls on both. Reports, per setting, the
median embedding rate (the report's `embedded / embed_seconds`, the chunks/s an ingest prints),
the median wall time of the whole command, and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"
KB = "ingestbench"


def subset(source: Path, limit: int | None, folder: Path) -> Path:
    """The first `limit` documents of a JSONL file (all of it when `limit` is None), as a file in `folder`."""
    if limit is None:
        return source
    target = folder / f"{source.stem}-{limit}.jsonl"
    with source.open(encoding="utf-8") as src, target.open("w", encoding="utf-8") as out:
        for number, line in enumerate(src):
            if number >= limit:
                break
            out.write(line)
    return target


def one_run(corpus: Path, setting: str, scratch: Path, config_yaml: str | None = None) -> dict:
    """One fresh ingest of `corpus` with the extra arguments `setting`, a copy of config/ and the data
    under `scratch` (an empty folder): the report's figures and the command's wall seconds."""
    config = scratch / "config"
    shutil.copytree(REPO / "config", config)
    (config / "knowledge_bases.yaml").write_text(
        config_yaml or (REPO / "config" / "knowledge_bases.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    env = dict(os.environ, SIGHTLINE_CONFIG_DIR=str(config), SIGHTLINE_DATA_DIR=str(scratch / "var"))
    command = [sys.executable, "-m", "server.cli", "ingest", str(corpus), "--kb", KB, "--rebuild", "--json",
               *shlex.split(setting)]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"ingest failed ({setting}): {done.stderr.strip()[-2000:]}")
    report = json.loads(done.stdout)[0]
    return {"chunks": report["embedded"], "embed_seconds": report["embed_seconds"],
            "rate": report["embedded"] / report["embed_seconds"], "wall": wall,
            "build_dir": report["build_dir"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a JSONL corpus (default: SciFact's)")
    parser.add_argument("--limit", type=int, help="only its first N documents")
    parser.add_argument("--runs", type=int, default=3, help="runs per setting (default 3)")
    parser.add_argument("--setting", action="append", help='extra ingest arguments, e.g. "--workers 2" '
                                                           '(repeatable; default: --workers 1 and --workers 2)')
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    settings = args.setting or ["--workers 1", "--workers 2"]
    load_before = os.getloadavg()
    runs: dict[str, list[dict]] = {s: [] for s in settings}
    with tempfile.TemporaryDirectory(prefix="ingestbench-data-") as folder:
        corpus = subset(args.data, args.limit, Path(folder))
        for number in range(args.runs):
            for setting in settings:
                with tempfile.TemporaryDirectory(prefix="ingestbench-") as scratch:
                    result = one_run(corpus, setting, Path(scratch))
                runs[setting].append(result)
                print(f"run {number + 1} {setting}: {result['chunks']} chunks, {result['rate']:.1f} chunks/s, "
                      f"{result['wall']:.1f}s wall", file=sys.stderr)
    figures = {s: {"chunks": r[0]["chunks"], "runs": len(r),
                   "chunks_per_s_median": round(statistics.median(x["rate"] for x in r), 2),
                   "chunks_per_s": [round(x["rate"], 2) for x in r],
                   "wall_s_median": round(statistics.median(x["wall"] for x in r), 1)} for s, r in runs.items()}
    out = {"data": str(args.data), "limit": args.limit, "cores": os.cpu_count(), "settings": figures,
           "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()]}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for setting, fig in figures.items():
            print(f"{setting:>16}: {fig['chunks_per_s_median']:7.1f} chunks/s median of {fig['runs']} "
                  f"({fig['chunks']} chunks), wall {fig['wall_s_median']}s")
        print(f"load average before {out['load_before']}, after {out['load_after']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
