"""`sightline eval` and `sightline bench`."""

from __future__ import annotations

import argparse
import json


def cmd_eval(args: argparse.Namespace) -> int:
    from evaluation.runner import require_backend_for, run_sets

    require_backend_for(args.sets, args.backend)  # before any set runs
    sets = [s for s in args.sets if s != "docs"]
    results = run_sets(sets, data_dir=args.data, queries=args.queries, limit=args.limit,
                       out_dir=args.out, progress=not args.json, split=args.split, backend=args.backend) if sets else []
    if "docs" in args.sets:  # the real-documentation dev set (evaluation/docsets.py)
        from evaluation.docsets import run_docs_eval

        results.append(run_docs_eval(data_dir=args.data, queries=args.queries, limit=args.limit,
                                     out_dir=args.out, progress=not args.json))
    if args.json:
        payload = results[0] if len(results) == 1 else results
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """`sightline bench peers ...`: Sightline's hybrid against txtai and Haystack on an eval set
    (benchmarks/peers); any other arguments: the synthetic index benchmark (benchmarks/retrieval)."""
    if args.bench_args[:1] == ["peers"]:
        from benchmarks.peers import main as peers_main

        return peers_main(args.bench_args[1:])
    from benchmarks.retrieval import main as bench_main

    return bench_main(args.bench_args)
