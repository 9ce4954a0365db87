"""`sightline eval peps`: build the PEP knowledge base, ask every question through the loop, score.

The corpus is derived from ../shared/docs-corpora/peps (never copied into the repo): the
subset's PEPs are written as JSONL to var/eval/peps/corpus.jsonl and ingested by the normal
ingest into the eval KB `peps` (config/eval_knowledge_bases.yaml), which is reused while the
corpus, chunking, pipeline code and embedder are unchanged. Every question is one run of
`AnswerLoop.run` (the code path of POST /rag) with the generic eval router
(config/router.eval.yaml), Perception with NER as the service runs it, `now` = the snapshot
date 2026-08-22, and trace "summary".
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from core.errors import RequestError
from orchestration.kb.config import KBConfig
from orchestration.paths import REPO_ROOT

from ..builds import build_eval_kb, eval_loop
from ..metrics import status_counts
from ..stats import latency_summary
from .corpus import cited_pep, write_corpus
from .scoring import QUESTIONS, PepQuestion, by_kind, has_fact, load_questions, summarise
from .subset import SUBSET

KB = "peps"
PEPS_NOW = dt.date(2026, 8, 22)  # the corpus snapshot
DEFAULT_PEPS = REPO_ROOT.parent / "shared" / "docs-corpora" / "peps"
CORPUS = REPO_ROOT / "var" / "eval" / "peps" / "corpus.jsonl"
STAGES = ("perceive", "route", "retrieve", "compose", "validate", "total")
MODE = "loop"
ANSWER_CHARS = 300


def peps_folder(data_dir: Path | None = None) -> Path:
    """The folder of pep-NNNN.rst files: DIR/peps, DIR/docs-corpora/peps or DIR/../docs-corpora/peps
    for `--data DIR`, else ../shared/docs-corpora/peps."""
    candidates = []
    if data_dir is not None:
        candidates += [data_dir / "peps", data_dir / "docs-corpora" / "peps", data_dir.parent / "docs-corpora" / "peps"]
    candidates.append(DEFAULT_PEPS)
    for folder in candidates:
        if (folder / "pep-0001.rst").is_file():
            return folder
    raise RequestError(f"the PEP files (pep-NNNN.rst) were not found in {', '.join(map(str, candidates))}; "
                       "pass --data DIR (the folder holding peps/ or docs-corpora/peps/)", field="data")


def build_peps_kb(kb_config: KBConfig, folder: Path, corpus: Path = CORPUS, progress: bool = True
                  ) -> dict[str, Any]:
    """Write the subset's documents and ingest them (skipped when nothing changed)."""
    write_corpus(folder, SUBSET, corpus)
    return build_eval_kb(kb_config, KB, [corpus], progress)


def build_peps_loop(kb_config: KBConfig):
    """An AnswerLoop over the `peps` KB: generic eval router, Perception with NER."""
    return eval_loop(kb_config, KB)


def ask(loop, question: PepQuestion) -> dict[str, Any]:
    from server.context import RequestContext
    from server.loop import AskRequest

    return loop.run(AskRequest(query=question.query, kbs=[KB],
                               context=RequestContext.create(PEPS_NOW, trace_level="summary", endpoint="eval")))


def cited_peps(body: dict[str, Any]) -> list[int]:
    """The PEP numbers the answer cites, in citation order, each once."""
    out: list[int] = []
    for citation in body.get("citations") or []:
        number = cited_pep(str(citation.get("chunk_id", "")))
        if number is not None and number not in out:
            out.append(number)
    return out


def score_body(question: PepQuestion, body: dict[str, Any]) -> dict[str, Any]:
    """The report row of one answered question."""
    status, answer, cited = str(body.get("status", "")), str(body.get("answer", "")), cited_peps(body)
    return {"id": question.id, "query": question.query, "kind": question.kind, "answerable": question.answerable,
            "gold": list(question.answers), "gold_peps": list(question.peps), "status": status,
            "has_fact": has_fact(question, status, answer), "cited_peps": cited,
            "cites_gold_pep": bool(set(cited) & set(question.peps)),
            "answer": answer[:ANSWER_CHARS], "total_ms": round(float(body.get("timing", {}).get("total", 0.0)), 1)}


def run_questions(loop, questions: Sequence[PepQuestion], progress: bool = True) -> dict[str, Any]:
    """Ask every question; the figures, per kind, statuses, latency per stage and every row."""
    rows: list[dict[str, Any]] = []
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    for question in tqdm(questions, desc="peps loop", disable=not progress, file=sys.stderr):
        body = ask(loop, question)
        for stage in STAGES:
            value = body.get("timing", {}).get(stage)
            if value is not None:
                timings[stage].append(float(value))
        rows.append(score_body(question, body))
    return {"metrics": summarise(rows), "by_kind": by_kind(rows), "statuses": status_counts(rows),
            "latency": latency_summary(timings), "questions": rows}


def run_peps_set(data_dir: Path | None, kb_config: KBConfig, queries: Path | None = None, limit: int | None = None,
                 progress: bool = True) -> dict[str, Any]:
    """The `peps` entry of report.json (the runner adds wall time and commit)."""
    folder = peps_folder(data_dir)
    questions = load_questions(queries or QUESTIONS)
    if limit:
        questions = questions[:limit]
    build = build_peps_kb(kb_config, folder, progress=progress)
    loop = build_peps_loop(kb_config)
    scored = run_questions(loop, questions, progress)
    answerable = sum(q.answerable for q in questions)
    return {"set": KB, "queries": len(questions), "answerable": answerable,
            "unanswerable": len(questions) - answerable, "now": PEPS_NOW.isoformat(),
            "metrics": {MODE: scored["metrics"]}, "by_type": {MODE: scored["by_kind"]},
            "latency": {MODE: scored["latency"]}, "statuses": scored["statuses"], "kb": build,
            "questions": scored["questions"], "anchors": {}, "corpus": str(folder)}
