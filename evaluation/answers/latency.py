"""The answer model's cost per request, side by side: the MultiHop-RAG dev queries through two
loops over the same KB, the default (lexical ranking, rules) and SIGHTLINE_ANSWER_MODEL's (model,
cross-encoder, refusal), alternating query by query so both see the same machine state.

`python -m evaluation.answers.latency [--limit N] [--rounds R]`: per stage, median and p95 ms of
each loop, and the compose stage's share of the total (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evaluation.datasets import load_queries, set_folder
from evaluation.multihop_loop import _query_date, build_loop
from evaluation.runner import eval_kb_config
from orchestration.compose.ranker import LearnedRanker
from server.context import RequestContext
from server.loop import AskRequest

STAGES = ("perceive", "retrieve", "compose", "validate", "total")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.latency", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "eval")
    parser.add_argument("--limit", type=int, default=300, help="queries (default 300)")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the queries (default 2)")
    args = parser.parse_args(argv)
    config = eval_kb_config(args.data).only("multihop")
    loops = {"default": build_loop(config, "multihop"), "answer_model": build_loop(config, "multihop")}
    composer = loops["answer_model"].composer
    composer.ranker = LearnedRanker(composer.settings)
    composer.warm_up()
    queries = load_queries("multihop", set_folder("multihop", args.data))[:args.limit]
    times: dict[str, dict[str, list[float]]] = {name: {s: [] for s in STAGES} for name in loops}
    for round_ in range(args.rounds):
        for i, query in enumerate(queries):
            order = list(loops) if (i + round_) % 2 == 0 else list(loops)[::-1]
            for name in order:
                body = loops[name].run(AskRequest(query=query.text, context=RequestContext.create(
                    _query_date(query), trace_level="summary", endpoint="eval")))
                for stage in STAGES:
                    times[name][stage].append(body["timing"][stage])
    out = {name: {stage: {"median_ms": round(float(np.median(v)), 2), "p95_ms": round(float(np.percentile(v, 95)), 2)}
                  for stage, v in stages.items()} for name, stages in times.items()}
    for name in out:
        out[name]["compose_share_of_total"] = round(float(np.sum(times[name]["compose"]) /
                                                          np.sum(times[name]["total"])), 3)
    print(json.dumps({"queries": len(queries), "rounds": args.rounds, "loops": out}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
