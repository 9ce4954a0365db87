"""Perception on MultiHop-RAG dev queries: source extraction and time windows against the evidence.

    python -m evaluation.perception_multihop [--data DIR] [--queries FILE] [--no-ner] [--show N] [--json]

Reads ../shared/eval/multihop_rag (never copied into the repo). Figures:
- comparison + temporal queries: fraction naming at least one source, and fraction whose
  extracted source set equals the set of the evidence's sources (plus the ceiling: queries whose
  evidence sources all appear, by name or alias, in the text);
- queries with an explicit date (an independent regex: month-name dates, ISO dates,
  "Month YYYY"): fraction whose window contains every evidence publication date;
- filters wrongly raised on news queries (status / doc_type), and actions per question type.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from datetime import date, datetime
from pathlib import Path

from perception.agent import PerceptionAgent
from perception.sources import SourceMatcher

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "eval"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
EXPLICIT_DATE = re.compile(rf"\b(?:{_MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}"
                           rf"|\b(?:{_MONTHS})\s+\d{{4}}\b")


def load_jsonl(path: Path) -> list[dict]:
    """Every JSON object of a JSONL file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def evidence_date(value: str) -> date:
    """The date of an evidence `published_at` ("2023-09-28T12:00:00+00:00" or "2023-11-27 08:45:59...")."""
    return date.fromisoformat(value[:10])


def stated_dates(text: str) -> set[date]:
    """Full dates written in the text ("October 7, 2023", "2023-10-07"), read independently of
    the agent, to check the window against the evidence dates a query actually states."""
    out = set()
    for m in EXPLICIT_DATE.finditer(text):
        raw = re.sub(r"(?<=\d)(?:st|nd|rd|th)", "", m.group(0)).replace(",", "")
        for fmt in ("%B %d %Y", "%Y-%m-%d"):
            try:
                out.add(datetime.strptime(raw, fmt).date())
            except ValueError:
                pass
    return out


def evaluate(queries: list[dict], sources: list[str], use_ner: bool, show: int = 0) -> dict:
    """Run the agent over the queries and compute the figures (see the module docstring).

    Args:
        queries: MultiHop-RAG query records.
        sources: the distinct `source` values of the corpus.
        use_ner: with or without statistical NER.
        show: print up to this many failures of each kind to stderr.

    Returns:
        A dict of figures.
    """
    agent = PerceptionAgent(use_ner=use_ner, known_sources=sources)
    agent.warm_up()
    matcher = SourceMatcher(sources)   # for the ceiling: which evidence sources the text names at all
    now = date(2024, 1, 1)
    src_total = src_named = src_equal = ceiling = 0
    date_total = date_all = date_any = date_window = stated_total = stated_ok = 0
    filters = collections.Counter()
    actions: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    failures: dict[str, list] = collections.defaultdict(list)
    started = time.perf_counter()
    for q in queries:
        p = agent.run(q["text"], now)
        qtype = q["question_type"]
        actions[qtype][p.action] += 1
        if p.constraints.status:
            filters["status"] += 1
        if p.constraints.doc_type:
            filters["doc_type"] += 1
        evidence = q.get("evidence") or []
        if qtype in ("comparison_query", "temporal_query"):
            src_total += 1
            want = {e["source"] for e in evidence}
            got = set(p.constraints.source)
            src_named += bool(got)
            src_equal += got == want
            mentioned = {s for hit in matcher.find(q["text"]) for s in hit.sources}
            ceiling += want <= mentioned
            if got != want:
                kind = ("source_missing_in_query" if not want <= mentioned
                        else "source_extra" if got > want else "source_other")
                failures[kind].append((q["_id"], q["text"], sorted(want), sorted(got)))
        if evidence and EXPLICIT_DATE.search(q["text"]):
            date_total += 1
            days = [evidence_date(e["published_at"]) for e in evidence]
            window = p.constraints.time
            date_window += window is not None
            inside = [window is not None and window.contains(d) for d in days]
            date_all += all(inside)
            date_any += any(inside)
            stated = stated_dates(q["text"])
            for d in days:
                if d in stated:
                    stated_total += 1
                    stated_ok += window is not None and window.contains(d)
            if not all(inside):
                failures["date"].append((q["_id"], q["text"], [d.isoformat() for d in days],
                                         window.to_dict() if window else None))
    elapsed = time.perf_counter() - started
    if show:
        for kind, items in sorted(failures.items()):
            print(f"\n== {kind}: {len(items)}", file=sys.stderr)
            for item in items[:show]:
                print("  ", item, file=sys.stderr)
    return {
        "queries": len(queries), "use_ner": use_ner, "ner_available": agent.ner_available,
        "seconds": round(elapsed, 2),
        "source": {"queries": src_total, "named_at_least_one": round(src_named / max(src_total, 1), 4),
                   "set_equals_evidence": round(src_equal / max(src_total, 1), 4),
                   "ceiling_evidence_sources_named": round(ceiling / max(src_total, 1), 4),
                   "failures": {k: len(v) for k, v in failures.items() if k.startswith("source")}},
        "date": {"queries_with_explicit_date": date_total,
                 "window_found": round(date_window / max(date_total, 1), 4),
                 "window_contains_all_evidence_dates": round(date_all / max(date_total, 1), 4),
                 "window_contains_any_evidence_date": round(date_any / max(date_total, 1), 4),
                 "stated_evidence_dates": stated_total,
                 "window_contains_stated_evidence_dates": round(stated_ok / max(stated_total, 1), 4)},
        "false_filters": {"status": filters["status"], "doc_type": filters["doc_type"]},
        "actions": {k: dict(v.most_common()) for k, v in sorted(actions.items())},
    }


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; prints the figures (JSON with --json)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared eval directory")
    ap.add_argument("--queries", type=Path, default=None, help="a query file in the dev split's format")
    ap.add_argument("--no-ner", action="store_true", help="rules only")
    ap.add_argument("--show", type=int, default=0, help="print up to N failures of each kind")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    folder = args.data / "multihop_rag"
    queries = load_jsonl(args.queries or folder / "queries_dev.jsonl")
    sources = sorted({d.get("metadata", {}).get("source") for d in load_jsonl(folder / "corpus.jsonl")} - {None})
    result = evaluate(queries, sources, use_ner=not args.no_ner, show=args.show)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    s, d = result["source"], result["date"]
    print(f"MultiHop-RAG perception ({result['queries']} queries, NER {'on' if result['ner_available'] else 'off'}, "
          f"{result['seconds']} s)")
    print(f"  comparison+temporal queries: {s['queries']}")
    print(f"    name at least one source:        {s['named_at_least_one']:.1%}")
    print(f"    source set == evidence sources:  {s['set_equals_evidence']:.1%}"
          f"   (ceiling, evidence sources all named in the text: {s['ceiling_evidence_sources_named']:.1%})")
    print(f"    failures by kind: {s['failures']}")
    print(f"  queries with an explicit date: {d['queries_with_explicit_date']}")
    print(f"    window found:                    {d['window_found']:.1%}")
    print(f"    window contains every evidence date: {d['window_contains_all_evidence_dates']:.1%}"
          f"   (any: {d['window_contains_any_evidence_date']:.1%})")
    print(f"    window contains the evidence dates the query states: "
          f"{d['window_contains_stated_evidence_dates']:.1%} of {d['stated_evidence_dates']}")
    print(f"  status / doc_type raised on news queries: {result['false_filters']}")
    print(f"  actions: {json.dumps(result['actions'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
