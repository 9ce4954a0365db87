"""The regression guard: a small fixed subset of SciFact, MultiHop-RAG and RGB (zh), fast enough
for CI, measured through the same code as `sightline eval`, checked against evaluation/floors.yaml.

    python -m evaluation.guard                 # measure and compare with the floors
    python -m evaluation.guard --write-floors  # measure and write new floors (date + commit)

The subsets are chosen by fixed, query-independent rules (file order, article length, lexical
overlap for distractors), written as JSONL into a work folder (never the repo) and ingested
into three small knowledge bases with the per-corpus settings of
config/eval_knowledge_bases.yaml:

  guard_scifact   the first 20 test claims; their relevant abstracts plus, per claim, the 4
                  abstracts sharing most words with it (hard distractors).
  guard_multihop  the first 5 comparison, temporal and inference queries (file order) whose
                  evidence articles are all at most 1,000 words, and the first 10 null queries;
                  the evidence articles plus, per null query, the short article sharing most
                  words with it (so refusing is not trivial).
  guard_rgb_zh    the first 10 zh_refine_dev queries: positives and their first 5 negatives.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from orchestration.kb.config import KBConfig
from orchestration.kb.ingest import ingest
from orchestration.retrieval.embedder import get_embedder

from .datasets import DEFAULT_DATA, load_queries, read_jsonl
from .stats import head_commit

FLOORS = Path(__file__).with_name("floors.yaml")
SCIFACT_QUERIES, SCIFACT_DISTRACTORS = 20, 4
MULTIHOP_PER_TYPE, MULTIHOP_NULL, MULTIHOP_MAX_WORDS = 5, 10, 1000
RGB_QUERIES, RGB_NEGATIVES = 10, 5
_WORD = re.compile(r"[a-z0-9]{4,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _closest(text: str, docs: list[dict], exclude: set[str], n: int) -> list[dict]:
    """The n documents sharing most (4+ letter) words with text; ties by file order."""
    query = _words(text)
    scored = sorted(((len(query & _words(d["title"] + " " + d["text"])), -i, d) for i, d in enumerate(docs)
                     if d["_id"] not in exclude), key=lambda t: (t[0], t[1]), reverse=True)
    return [d for _, _, d in scored[:n]]


def _write_jsonl(path: Path, docs: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for d in docs:
            handle.write(json.dumps({"id": d["_id"], "title": d.get("title", ""), "text": d["text"],
                                     "metadata": d.get("metadata") or {}}, ensure_ascii=False) + "\n")
    return path


def scifact_subset(data_dir: Path, work: Path):
    folder = data_dir / "scifact"
    queries = load_queries("scifact", folder)[:SCIFACT_QUERIES]
    corpus = read_jsonl(folder / "corpus.jsonl")
    relevant = {doc for q in queries for doc in q.relevance}
    chosen = {d["_id"]: d for d in corpus if d["_id"] in relevant}
    for q in queries:
        for d in _closest(q.text, corpus, relevant, SCIFACT_DISTRACTORS):
            chosen.setdefault(d["_id"], d)
    return queries, _write_jsonl(work / "scifact.jsonl", list(chosen.values()))


def multihop_subset(data_dir: Path, work: Path):
    folder = data_dir / "multihop_rag"
    corpus = read_jsonl(folder / "corpus.jsonl")
    by_id = {d["_id"]: d for d in corpus}
    short = lambda doc_id: len(by_id[doc_id]["text"].split()) <= MULTIHOP_MAX_WORDS  # noqa: E731
    picked, per_type = [], {}
    for q in load_queries("multihop", folder):
        if q.type == "null_query":
            take = per_type.get(q.type, 0) < MULTIHOP_NULL
        else:
            take = per_type.get(q.type, 0) < MULTIHOP_PER_TYPE and all(short(d) for d in q.relevance)
        if take:
            picked.append(q)
            per_type[q.type] = per_type.get(q.type, 0) + 1
    chosen = {d: by_id[d] for q in picked for d in q.relevance}
    short_docs = [d for d in corpus if short(d["_id"])]
    for q in picked:
        if q.type == "null_query":
            for d in _closest(q.text, short_docs, set(chosen), 1):
                chosen[d["_id"]] = d
    return picked, _write_jsonl(work / "multihop.jsonl", list(chosen.values()))


def rgb_subset(data_dir: Path, work: Path):
    from .rgb import rgb_queries, write_corpus

    records = read_jsonl(data_dir / "rgb" / "zh_refine_dev.jsonl")[:RGB_QUERIES]
    records = [dict(r, negative=r["negative"][:RGB_NEGATIVES]) for r in records]
    return rgb_queries(records, "zh"), records, write_corpus(records, "zh", work / "rgb_zh.jsonl")


def guard_kb_config(data_dir: Path, work: Path) -> KBConfig:
    """The eval KB settings (chunking, fusion weights) of each corpus, for the guard's KBs."""
    from .runner import eval_kb_config

    base = eval_kb_config(data_dir)
    kbs = {f"guard_{name}": replace(base.get(source), name=f"guard_{name}", paths=())
           for name, source in (("scifact", "scifact"), ("multihop", "multihop"), ("rgb_zh", "rgb_zh"))}
    return replace(base, data_dir=work / "data", knowledge_bases=kbs)


def measure(data_dir: Path | None = None, work: Path | None = None, progress: bool = False) -> dict[str, Any]:
    """Today's figures on the guard subset: {"scifact": {...}, "multihop": {...}, "rgb_zh": {...}}."""
    from orchestration.paths import config_dir
    from orchestration.router.config import load_router_config
    from perception import PerceptionAgent
    from server.bootstrap import build_loop

    from .multihop_loop import run_loop_eval
    from .rgb import run_rgb_lang
    from .runner import run_retrieval_modes

    data_dir = data_dir or DEFAULT_DATA
    own_tmp = None
    if work is None:
        own_tmp = tempfile.TemporaryDirectory(prefix="sightline-guard-")
        work = Path(own_tmp.name)
    started = time.perf_counter()
    sf_queries, sf_path = scifact_subset(data_dir, work)
    mh_queries, mh_path = multihop_subset(data_dir, work)
    zh_queries, _, zh_path = rgb_subset(data_dir, work)
    config = guard_kb_config(data_dir, work)
    embedder = get_embedder(config.embedder)
    builds = {}
    for name, path in (("guard_scifact", sf_path), ("guard_multihop", mh_path), ("guard_rgb_zh", zh_path)):
        report = ingest(config.get(name), config.kb_dir(name), embedder, paths=[path], progress=progress)
        builds[name] = report.chunks
    build_seconds = time.perf_counter() - started

    loop_kbs = config  # one loop per KB, each with the router config of its set
    out: dict[str, Any] = {}
    from orchestration.kb.registry import open_knowledge_bases
    from orchestration.retrieval.search import Retriever

    kb = open_knowledge_bases(config.only("guard_scifact"))["guard_scifact"]
    retriever = Retriever({"guard_scifact": kb}, embedder)
    retriever.warm_up()
    metrics, _, _ = run_retrieval_modes("scifact", "guard_scifact", retriever, sf_queries, progress)
    out["scifact"] = {f"{mode}_{name}": value for mode, values in metrics.items() for name, value in values.items()}

    answerable = [q for q in mh_queries if q.type != "null_query"]
    mh_kb = open_knowledge_bases(config.only("guard_multihop"))["guard_multihop"]
    mh_retriever = Retriever({"guard_multihop": mh_kb}, embedder)
    mh_retriever.warm_up()
    metrics, _, _ = run_retrieval_modes("multihop", "guard_multihop", mh_retriever, answerable, progress)
    router_path = _multihop_router_text()
    try:
        router = load_router_config(router_path, known_kbs=["guard_multihop"])
    finally:
        router_path.unlink()
    loop = build_loop(kb_config=loop_kbs.only("guard_multihop"), router_config=router,
                      perception=PerceptionAgent(use_ner=False))
    loop.warm_up()
    routed = run_loop_eval(loop, "guard_multihop", mh_queries, progress)["metrics"]
    out["multihop"] = {"topk_hits@10": metrics["hybrid"]["hits@10"], "topk_hits@4": metrics["hybrid"]["hits@4"],
                       **{f"router_{k}": v for k, v in routed.items()
                          if k in ("hits@4", "hits@10", "all_evidence@10", "null_refusal", "false_refusal",
                                   "citation_precision")}}

    zh_router = load_router_config(config_dir() / "router.eval.yaml", known_kbs=["guard_rgb_zh"])
    zh_loop = build_loop(kb_config=loop_kbs.only("guard_rgb_zh"), router_config=zh_router,
                         perception=PerceptionAgent(use_ner=False))
    zh_loop.warm_up()
    scored = run_rgb_lang(zh_loop, "zh", zh_queries, progress, kb="guard_rgb_zh")["metrics"]
    out["rgb_zh"] = {k: scored[k] for k in ("accuracy", "false_refusal", "negative_rejection") if k in scored}
    out["_run"] = {"chunks": builds, "build_seconds": round(build_seconds, 1),
                   "total_seconds": round(time.perf_counter() - started, 1),
                   "queries": {"scifact": len(sf_queries), "multihop": len(mh_queries), "rgb_zh": len(zh_queries)}}
    if own_tmp is not None:
        own_tmp.cleanup()
    return out


def _multihop_router_text() -> Path:
    """config/router.multihop.yaml with its KB renamed to the guard's (written to a temp file)."""
    from orchestration.paths import config_dir

    text = (config_dir() / "router.multihop.yaml").read_text(encoding="utf-8")
    text = re.sub(r"(\bkb:\s*)multihop\b", r"\1guard_multihop", text)
    handle = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False, encoding="utf-8")
    handle.write(text)
    handle.close()
    return Path(handle.name)


# Metrics where a higher figure is worse: the guard checks a ceiling instead of a floor.
LOWER_IS_BETTER = {"false_refusal", "router_false_refusal"}


def check(measured: dict[str, Any], floors: dict[str, Any]) -> list[str]:
    """Every metric below its floor (or above its ceiling), as readable lines; [] when all pass."""
    failures = []
    for group, limits in floors.get("floors", {}).items():
        for metric, floor in limits.items():
            value = measured.get(group, {}).get(metric)
            if value is None:
                failures.append(f"{group}.{metric}: not measured (floor {floor})")
            elif value < floor:
                failures.append(f"{group}.{metric} = {value:.4f} is below its floor {floor}")
    for group, limits in floors.get("ceilings", {}).items():
        for metric, ceiling in limits.items():
            value = measured.get(group, {}).get(metric)
            if value is None:
                failures.append(f"{group}.{metric}: not measured (ceiling {ceiling})")
            elif value > ceiling:
                failures.append(f"{group}.{metric} = {value:.4f} is above its ceiling {ceiling}")
    return failures




def _queries_behind(group: str, metric: str) -> int:
    """How many queries a guard figure averages over (one query's worth is 1/n of it)."""
    if group == "scifact":
        return SCIFACT_QUERIES
    if group == "multihop":
        return MULTIHOP_NULL if "null" in metric else 3 * MULTIHOP_PER_TYPE
    return RGB_QUERIES


def floors_from(measured: dict[str, Any], margin: float) -> dict[str, Any]:
    """Floors under each measured figure by `margin` or one query's worth, whichever is more
    (so one tie flipping on another CPU does not fail CI, two queries lost do); ceilings over
    the lower-is-better ones the same way."""
    floors: dict[str, dict[str, float]] = {}
    ceilings: dict[str, dict[str, float]] = {}
    for group, values in measured.items():
        if group.startswith("_"):
            continue
        for metric, value in values.items():
            margin_here = max(margin, 1.0 / _queries_behind(group, metric) + 0.005)
            if metric in LOWER_IS_BETTER:
                ceilings.setdefault(group, {})[metric] = round(min(1.0, value + margin_here), 2)
            elif value - margin_here > 0:
                floors.setdefault(group, {})[metric] = round(value - margin_here, 2)
    return {"measured_on": dt.date.today().isoformat(), "commit": head_commit(), "margin": margin,
            "measured": {g: v for g, v in measured.items() if not g.startswith("_")},
            "floors": floors, "ceilings": ceilings}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.guard", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--write-floors", action="store_true", help=f"write {FLOORS.name} from this measurement")
    parser.add_argument("--margin", type=float, default=0.05, help="how far under today's figures the floors sit")
    args = parser.parse_args(argv)
    measured = measure(args.data, progress=True)
    print(json.dumps(measured, indent=2))
    if args.write_floors:
        body = floors_from(measured, args.margin)
        header = ("# Regression-guard floors: figures of `python -m evaluation.guard` on the fixed subset\n"
                  "# (evaluation/guard.py), each `margin` (or one query's worth, if more) under what was measured\n"
                  "# at `commit` on `measured_on`.\n"
                  "# tests/evaluation/test_regression_guard.py fails when a figure drops below its floor\n"
                  "# (or a false-refusal rate rises above its ceiling). Re-measure with\n"
                  "# `python -m evaluation.guard --write-floors` only when a change is meant to move them.\n")
        FLOORS.write_text(header + yaml.safe_dump(body, sort_keys=False), encoding="utf-8")
        print(f"wrote {FLOORS}")
        return 0
    failures = check(measured, yaml.safe_load(FLOORS.read_text(encoding="utf-8"))) if FLOORS.is_file() else []
    for line in failures:
        print("FAIL", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
