"""The written documentation set asked through the whole loop: `python -m evaluation.doctrain_loop`.

Each corpus of evaluation/data/doctrain/ (evaluation/doctrain.py) becomes its own eval knowledge
base, `doctrain_<corpus>`, built by the normal ingest from its pages folder as `sightline ingest`
reads it (cached by checksum under var/eval/kb/), with the settings of the documentation dev set's
KBs (config/eval_knowledge_bases.yaml, `docs_restic`). Every question of the asked split is one run
of `AnswerLoop.run` (the code path of POST /rag) over its corpus's KB, with the generic eval
router, and is scored as the documentation dev set scores (evaluation/docsets.py: asked-for fact,
unanswerable refused, false refusal).

    python -m evaluation.doctrain_loop --split choose [--corpus NAME ...] [--limit N] [--out FILE]
        [--examples FILE.md]   (ten answers and ten refusals drawn at random, seed 36, as Markdown)

The ranker is the one the service would choose (SIGHTLINE_ANSWER_MODEL, server/bootstrap.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestration.kb.config import KBConfig

from .docsets import DOCS_NOW, DocQuestion, score_body, summarise
from .doctrain import DOCTRAIN, SPLITS, DocTrainQuestion, corpus_folders, load_corpus

TEMPLATE_KB = "docs_restic"  # the dev set's KB settings every corpus is built with


def kb_name(corpus: str) -> str:
    """The eval KB of a corpus ("doctrain_" and its folder name, '-' kept)."""
    return f"doctrain_{corpus}"


def with_corpora(kb_config: KBConfig, corpora: Sequence[str], root: Path = DOCTRAIN) -> KBConfig:
    """The eval config with one KB per corpus, reading its pages folder."""
    template = kb_config.get(TEMPLATE_KB)
    added = {kb_name(c): replace(template, name=kb_name(c), paths=(root / c / "pages",),
                                 description=f"written documentation set: {c}") for c in corpora}
    return replace(kb_config, knowledge_bases={**kb_config.knowledge_bases, **added})


def as_doc_question(q: DocTrainQuestion) -> DocQuestion:
    return DocQuestion(q.id, q.corpus, q.question, q.kind, q.answerable, q.answers, q.source, q.near, q.note)


def ask(loop: Any, q: DocTrainQuestion) -> dict[str, Any]:
    """One question through the loop, as POST /rag runs it (trace "summary")."""
    from server.context import RequestContext
    from server.loop import AskRequest

    return loop.run(AskRequest(query=q.question, kbs=[kb_name(q.corpus)],
                               context=RequestContext.create(DOCS_NOW, trace_level="summary", endpoint="eval")))


def corpus_loops(split: str, corpora: Sequence[str] | None = None, data_dir: Path | None = None,
                 progress: bool = True) -> Iterator[tuple[str, Any, list[DocTrainQuestion]]]:
    """Per corpus of a split (in name order): its name, a warmed-up loop over its KB (built first
    when needed) and its questions. A corpus whose questions do not load (one being written) is
    left out, saying why."""
    from .builds import build_eval_kb, eval_loop
    from .datasets import DEFAULT_DATA
    from .runner import eval_kb_config

    questions: list[DocTrainQuestion] = []
    for folder in corpus_folders(DOCTRAIN):
        if corpora and folder.name not in corpora:
            continue
        try:
            questions += [q for q in load_corpus(folder) if q.split == split]
        except ValueError as exc:
            print(f"left out {folder.name}: {exc}", file=sys.stderr)
    names = sorted({q.corpus for q in questions})
    config = with_corpora(eval_kb_config(data_dir or DEFAULT_DATA), names)
    for name in names:
        build_eval_kb(config, kb_name(name), progress=progress)
        yield name, eval_loop(config, kb_name(name)), [q for q in questions if q.corpus == name]


def run_split(split: str, corpora: Sequence[str] | None = None, limit: int | None = None, data_dir: Path | None = None,
              progress: bool = True) -> dict[str, Any]:
    """Every question of a split's corpora asked and scored: figures over all and per corpus, the rows."""
    from tqdm import tqdm

    rows: list[dict[str, Any]] = []
    names = []
    for name, loop, questions in corpus_loops(split, corpora, data_dir, progress):
        names.append(name)
        for q in tqdm(questions[:limit], desc=name, disable=not progress, file=sys.stderr):
            body = ask(loop, q)
            row = score_body(as_doc_question(q), body)
            short = body.get("short_answer")
            row["short_answer"] = short.get("text", "") if isinstance(short, dict) else ""
            rows.append(row)
    return {"split": split, "all": summarise(rows),
            "by_corpus": {n: summarise([r for r in rows if r["set"] == n]) for n in names}, "rows": rows}


def examples_markdown(result: dict[str, Any], count: int = 10, seed: int = 36) -> str:
    """`count` answers and `count` refusals of a run, drawn at random (the same ones for the same
    rows), each with its question, gold and what the loop replied, as a Markdown page."""
    import random

    rng = random.Random(seed)
    rows = sorted(result["rows"], key=lambda r: r["id"])
    answered = [r for r in rows if not r["refused"]]
    refused = [r for r in rows if r["refused"]]
    lines = [f"# The written documentation set, {result['split']} corpora: {count} answers and {count} refusals",
             "", "Drawn at random (seed 36) by `python -m evaluation.doctrain_loop --split "
             f"{result['split']} --examples FILE` with the ranker the service chose "
             "(SIGHTLINE_ANSWER_MODEL). Verdict: right = an answerable question answered with its gold, "
             "or an unanswerable one refused.", ""]
    for title, chosen in (("Answers", rng.sample(answered, min(count, len(answered)))),
                          ("Refusals", rng.sample(refused, min(count, len(refused))))):
        lines += [f"## {title}", ""]
        for r in sorted(chosen, key=lambda r: r["id"]):
            right = r["has_fact"] if r["answerable"] else r["refused"]
            gold = " / ".join(f"`{g}`" for g in r["gold"]) if r["answerable"] else "(unanswerable)"
            reply = " ".join(r["answer"].split())[:400]
            lines += [f"- **{r['id']}** ({r['kind']}; {'right' if right else 'wrong'}): {r['query']}",
                      f"  - gold: {gold}" + (f"; short answer: `{r['short_answer']}`" if r.get("short_answer") else ""),
                      f"  - reply: {reply}", ""]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.doctrain_loop", description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=SPLITS, required=True)
    parser.add_argument("--corpus", action="append", help="only this corpus (repeatable)")
    parser.add_argument("--limit", type=int, help="the first N questions of each corpus")
    parser.add_argument("--data", type=Path, help="the public evaluation data (default ../shared/eval)")
    parser.add_argument("--out", type=Path, help="write the figures and rows here as JSON")
    parser.add_argument("--examples", type=Path, help="write ten answers and ten refusals here as Markdown")
    args = parser.parse_args(argv)
    result = run_split(args.split, args.corpus, args.limit, args.data)
    print(json.dumps({"split": result["split"], "all": result["all"], "by_corpus": result["by_corpus"]}, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.examples:
        args.examples.write_text(examples_markdown(result) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
