"""Perception latency per query over the MultiHop-RAG dev queries, with and without statistical NER.

    python -m benchmarks.perception_latency [--data DIR] [--limit N] [--json]

Also times short English questions (HotpotQA, RGB en_fact), Chinese queries (RGB
zh_refine_dev, jieba path) and `extract_entities` on
200-word corpus chunks (the ingest path). Each figure is a per-call wall time after one warm-up
pass; the load average is printed because the machine may be shared.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from perception.agent import PerceptionAgent
from perception.entities import EntityRules
from perception.ner import load_pipeline

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
NOW = date(2024, 1, 1)


def load_jsonl(path: Path) -> list[dict]:
    """Every JSON object of a JSONL file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def timings(fn: Callable[[str], object], items: list[str]) -> dict:
    """Median, p90, p99 and mean wall milliseconds of `fn` over `items` (after one warm-up
    pass), and the median and p99 CPU milliseconds of this process (less sensitive to other
    jobs on a shared machine)."""
    for item in items[:50]:
        fn(item)
    gc.collect()
    gc.disable()
    try:
        samples, cpu = [], []
        for item in items:
            started, cpu_started = time.perf_counter(), time.process_time()
            fn(item)
            samples.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - cpu_started) * 1000)
    finally:
        gc.enable()
    samples.sort()
    cpu.sort()
    pick = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))]  # noqa: E731
    return {"n": len(samples), "median_ms": round(statistics.median(samples), 3), "p90_ms": round(pick(0.90), 3),
            "p99_ms": round(pick(0.99), 3), "mean_ms": round(statistics.fmean(samples), 3),
            "cpu_median_ms": round(statistics.median(cpu), 3),
            "cpu_p99_ms": round(cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))], 3)}


def run(data: Path, limit: int | None) -> dict:
    """All figures as a dict."""
    folder = data / "multihop_rag"
    queries = [q["text"] for q in load_jsonl(folder / "queries_dev.jsonl")][:limit]
    corpus = load_jsonl(folder / "corpus.jsonl")
    sources = sorted({d["metadata"]["source"] for d in corpus if d.get("metadata", {}).get("source")})
    chunks = [" ".join(d["text"].split()[:200]) for d in corpus][:limit]
    out: dict = {"load_average": os.getloadavg(), "queries": len(queries)}
    rules = PerceptionAgent(use_ner=False, known_sources=sources)
    rules.warm_up()
    out["rules_only"] = timings(lambda q: rules.run(q, NOW), queries)
    ner = PerceptionAgent(use_ner=True, known_sources=sources)
    ner.warm_up()
    out["ner_available"] = ner.ner_available
    calls = ner._ner.calls if ner.ner_available else 0
    out["with_ner"] = timings(lambda q: ner.run(q, NOW), queries)
    if ner.ner_available:
        runs = ner._ner.calls - calls
        out["ner_ran_on"] = round(runs / (len(queries) + min(50, len(queries))), 4)
        # the reference: the (reduced) spaCy pipeline on every whole query, same moment
        nlp = load_pipeline(ner.config.ner_model)
        out["spacy_alone"] = timings(nlp, queries)
    short = []   # short English questions (HotpotQA, RGB en_fact: ~10-15 words, as users type them)
    for path, key in ((data / "hotpotqa" / "queries.jsonl", "text"), (data / "rgb" / "en_fact.jsonl", "query")):
        if path.exists():
            short += [r[key] for r in load_jsonl(path)]
    if short:
        short = short[:limit]
        out["short_queries"] = len(short)
        out["short_rules_only"] = timings(lambda q: rules.run(q, NOW), short)
        out["short_with_ner"] = timings(lambda q: ner.run(q, NOW), short)
    zh_file = data / "rgb" / "zh_refine_dev.jsonl"
    if zh_file.exists():
        zh = [r["query"] for r in load_jsonl(zh_file)][:limit]
        out["zh_rules"] = timings(lambda q: rules.run(q, NOW), zh)
    extractor = EntityRules(rules.config, sources)
    out["extract_entities_200_words"] = timings(extractor.extract, chunks)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: print the figures (JSON with --json)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared eval directory")
    ap.add_argument("--limit", type=int, default=None, help="use at most N queries / chunks")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    result = run(args.data, args.limit)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"Perception latency, {result['queries']} MultiHop-RAG dev queries "
          f"(load average {', '.join(f'{x:.2f}' for x in result['load_average'])})")
    rows = [("rules only (en)", "rules_only"), ("with NER (en)", "with_ner"),
            ("spaCy ner alone, whole query", "spacy_alone"),
            ("short en, rules only (HotpotQA+RGB)", "short_rules_only"), ("short en, with NER", "short_with_ner"),
            ("rules only (zh, RGB)", "zh_rules"),
            ("extract_entities, 200-word chunk", "extract_entities_200_words")]
    print(f"  {'':34} {'median':>8} {'p90':>8} {'p99':>8} {'mean':>8} {'cpu med':>8} {'cpu p99':>8}  (ms)")
    for label, key in rows:
        if key in result:
            r = result[key]
            print(f"  {label:34} {r['median_ms']:8.3f} {r['p90_ms']:8.3f} {r['p99_ms']:8.3f} {r['mean_ms']:8.3f}"
                  f" {r['cpu_median_ms']:8.3f} {r['cpu_p99_ms']:8.3f}")
    if "ner_ran_on" in result:
        print(f"  NER ran on {result['ner_ran_on']:.1%} of the queries (the others: every capitalised word "
              "was a rule entity, a time phrase or a stopword)")
    if not result["ner_available"]:
        print("  (spaCy model missing: the NER row ran rules-only)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
