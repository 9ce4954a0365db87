"""Several KBs against one: the same documents in one knowledge base or split over several.

A user with one folder per KB should get answers as good as with everything in one KB. This
runs RGB (English facts) through the whole loop three ways, on the same passages: one KB;
split over N KBs (each passage to a KB by a stable hash of its id) with the default cross-KB
fusion (`across_kbs: relevance`: the KBs searched as one corpus); and split with `per_kb`
(each KB's search its own task, the behaviour before). It prints accuracy (the asked-for fact
in the answer), false refusal and negative rejection per way, each query searching its own
passages as `sightline eval rgb` does, and `pool_accuracy`: each query searching every passage
of every query, so the other queries' passages are the off-topic documents a KB holds.

    python -m evaluation.kb_split [--parts 3] [--limit N] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestration.kb.config import load_kb_config
from orchestration.paths import REPO_ROOT, config_dir
from orchestration.router.config import load_router_config
from perception import PerceptionAgent
from server.bootstrap import build_loop
from server.context import RequestContext
from server.loop import AnswerLoop, AskRequest

from . import rgb
from .builds import build_eval_kb
from .datasets import read_jsonl

LANG = "en"


def part_of(doc_id: str, parts: int) -> int:
    """The KB (0..parts-1) a document goes to: a stable hash of its id."""
    return int(hashlib.sha256(doc_id.encode("utf-8")).hexdigest(), 16) % parts


def split_corpus(corpus: Path, parts: int, folder: Path) -> list[Path]:
    """The corpus JSONL written as `parts` JSONL files (rewritten only when they changed)."""
    lines: list[list[str]] = [[] for _ in range(parts)]
    for line in corpus.read_text(encoding="utf-8").splitlines():
        if line.strip():
            lines[part_of(json.loads(line)["id"], parts)].append(line)
    out = []
    for i, chunk in enumerate(lines):
        path = folder / f"part{i + 1}.jsonl"
        body = "\n".join(chunk) + "\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != body:
            path.write_text(body, encoding="utf-8")
        out.append(path)
    return out


def _pool_accuracy(loop: AnswerLoop, kbs: list[str], queries: list[rgb.EvalQuery]) -> float:
    """Accuracy with every query searching all passages of all queries (no per-query filter):
    the other queries' passages are the off-topic documents an irrelevant KB holds."""
    hits = []
    for query in queries:
        if query.raw.get("positive"):
            body = loop.run(AskRequest(query=query.text, kbs=kbs, context=RequestContext.create(
                rgb.RGB_NOW, trace_level="summary", endpoint="eval")))
            hits.append(body["status"] != "insufficient" and rgb.contains_answer(body["answer"], query.raw["answer"]))
    return round(sum(hits) / max(len(hits), 1), 4)


def run(parts: int = 3, limit: int | None = None, data: Path = REPO_ROOT.parent / "shared" / "eval",
        progress: bool = True) -> dict[str, Any]:
    """accuracy / false_refusal / negative_rejection for one KB, N KBs (relevance) and N KBs (per_kb)."""
    records = read_jsonl(data / "rgb" / rgb.LANG_FILES[LANG])[:limit]
    queries = rgb.rgb_queries(records, LANG)
    config = load_kb_config(config_dir() / "eval_knowledge_bases.yaml")
    base = config.get(rgb.KB_OF[LANG])
    folder = config.data_dir / "rgb_split"
    folder.mkdir(parents=True, exist_ok=True)
    corpus = rgb.write_corpus(records, LANG, folder / "corpus.jsonl")
    names = [f"rgb_en_part{i + 1}" for i in range(parts)]
    kbs = {"rgb_en_one": replace(base, name="rgb_en_one")}
    kbs.update({name: replace(base, name=name) for name in names})
    config = replace(config, knowledge_bases=kbs)
    build_eval_kb(config, "rgb_en_one", [corpus], progress)
    for name, path in zip(names, split_corpus(corpus, parts, folder), strict=True):
        build_eval_kb(config, name, [path], progress)
    router = load_router_config(config_dir() / "router.eval.yaml", known_kbs=list(kbs))
    perception = PerceptionAgent(use_ner=False)
    results: dict[str, Any] = {}
    for way, served, across in (("one_kb", ["rgb_en_one"], "relevance"), (f"{parts}_kbs", names, "relevance"),
                                (f"{parts}_kbs_per_kb", names, "per_kb")):
        routed = replace(router, fusion=replace(router.fusion, across_kbs=across))
        loop = build_loop(kb_config=replace(config, knowledge_bases={n: kbs[n] for n in served}),
                          router_config=routed, perception=perception)
        loop.warm_up()
        out = rgb.run_rgb_lang(loop, LANG, queries, progress=progress, kb=served)
        results[way] = {k: out["metrics"][k] for k in ("accuracy", "false_refusal", "negative_rejection")}
        results[way]["pool_accuracy"] = _pool_accuracy(loop, served, queries)
    return {"set": "rgb_en", "queries": len(queries), "parts": parts, "ways": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.kb_split", description=__doc__.splitlines()[0])
    parser.add_argument("--parts", type=int, default=3)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = run(args.parts, args.limit, progress=not args.json)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"RGB en, {result['queries']} queries, same passages in 1 KB or {args.parts}:")
        for way, metrics in result["ways"].items():
            print(f"  {way:<16} " + "  ".join(f"{k} {v:.3f}" for k, v in metrics.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
