"""The demo questions on the local and the milvus backend, side by side: answers and latency.

    python -m benchmarks.backend_latency [--repeat 5] [--json OUT.json]

Builds the demo knowledge bases twice in a scratch directory, once per backend (milvus: one
milvus-lite file, in this process), then asks the demo questions (benchmarks/otel_overhead.py's
eight) through `AnswerLoop.answer` on each, `--repeat` passes interleaved, after one untimed
pass each. Prints each question's status on both, whether the answers are equal, per backend
the median of the retrieval stage and of the whole request in ms, and how many arm searches
(engine calls on milvus) a request runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.otel_overhead import NOW, QUESTIONS
from orchestration.kb.config import KBConfig, load_kb_config


def _loop(config: KBConfig) -> Any:
    """A warmed AnswerLoop over `config`'s knowledge bases (the shipped router config)."""
    from server.bootstrap import build_loop

    loop = build_loop(kb_config=config)
    loop.warm_up()
    return loop


def _ask(loop: Any, question: str) -> Any:
    from server.context import RequestContext
    from server.loop import AskRequest

    return loop.answer(AskRequest(query=question, context=RequestContext.create(NOW)))


def answers(config: KBConfig) -> list[dict[str, str]]:
    """Each demo question's status and answer text, asked anonymously on `config`'s KBs."""
    loop = _loop(config)
    return [{"status": r.status, "text": r.text} for r in (_ask(loop, q) for q in QUESTIONS)]


def build(root: Path) -> dict[str, KBConfig]:
    """The demo KBs built under `root` for each backend: {"local": config, "milvus": config}."""
    from orchestration.kb.ingest import ingest
    from orchestration.retrieval.embedder import get_embedder

    shipped = load_kb_config()
    local = replace(shipped, data_dir=root / "local")
    milvus = shipped.on_milvus(root / "milvus", str(root / "milvus.db"))
    embedder = get_embedder(shipped.embedder)
    for config in (local, milvus):
        for settings in config.knowledge_bases.values():
            ingest(settings, config.kb_dir(settings.name), embedder, progress=False)
    return {"local": local, "milvus": milvus}


def measure(configs: dict[str, KBConfig], repeat: int) -> dict[str, Any]:
    """Statuses, equal answers, and the median retrieval and request ms per backend."""
    loops = {name: _loop(config) for name, config in configs.items()}
    first = {name: [_ask(loop, q) for q in QUESTIONS] for name, loop in loops.items()}  # untimed
    timings: dict[str, dict[str, list[float]]] = {name: {"retrieve": [], "total": []} for name in loops}
    for _ in range(repeat):
        for name, loop in loops.items():
            for question in QUESTIONS:
                result = _ask(loop, question)
                timings[name]["retrieve"].append(result.timing.get("retrieve", 0.0))
                timings[name]["total"].append(result.timing["total"])
    searches = [_searches(r) for r in first["local"]]
    return {
        "engine_searches_per_request": {"median": statistics.median(searches), "max": max(searches)},
        "questions": [{"question": q, **{n: first[n][i].status for n in loops},
                       "same_answer": len({first[n][i].text for n in loops}) == 1}
                      for i, q in enumerate(QUESTIONS)],
        "median_ms": {n: {k: round(statistics.median(v), 2) for k, v in t.items()} for n, t in timings.items()},
        "requests_per_backend": repeat * len(QUESTIONS),
    }


def _searches(result: Any) -> int:
    """The arm searches a request runs: one per `retrieve.*` operation, two when it is filtered
    (the second, ACL only, names the rejected candidates)."""
    return sum(1 + bool(o.params.get("filters")) for o in result.operations if o.op.startswith("retrieve."))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        figures = measure(build(Path(scratch)), args.repeat)
    for row in figures["questions"]:
        print(f"{row['local']:>12} {row['milvus']:>12} {'same' if row['same_answer'] else 'DIFFERENT':>9}  "
              f"{row['question']}")
    for name, medians in figures["median_ms"].items():
        print(f"{name:>7}: retrieve {medians['retrieve']} ms, request {medians['total']} ms (median of "
              f"{figures['requests_per_backend']})")
    print(f"arm searches per request: {figures['engine_searches_per_request']}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
