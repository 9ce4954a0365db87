"""`sightline eval docs`: the real-documentation dev set, asked through the whole loop and scored.

Three documentation sets of different kinds, a modest subset of each kept in the repository in its
original format (evaluation/data/docsets/<set>/pages/, with SOURCE.md naming repository, commit,
path and licence):

  poetry   Poetry's user documentation (python-poetry/poetry docs/, MIT): 16 Markdown pages of a
           command-line tool, Hugo front matter and shortcodes included.
  restic   the restic manual (restic/restic doc/, BSD-2-Clause): 20 reStructuredText pages of a
           backup program, written for Sphinx (directives, roles, grid tables).
  httpx    HTTPX's user documentation (encode/httpx docs/, BSD-3-Clause): 20 MkDocs Markdown pages of
           a Python HTTP client library (admonitions, mkautodoc directives, inline HTML), the
           pages of docs/advanced/ kept flat as advanced-<page>.md.

Each set is its own eval knowledge base (`docs_poetry`, `docs_restic`, `docs_httpx` in
config/eval_knowledge_bases.yaml), built by the normal ingest from the pages folder exactly as
`sightline ingest` reads it (cached by checksum under var/eval/). Every question of
evaluation/data/docsets_questions.jsonl is one run of `AnswerLoop.run` (the code path of
POST /rag) over its set's KB, with the generic eval router (config/router.eval.yaml), Perception as
the service runs it, and trace "summary".

A question (one JSON object a line): id, set (SETS), question, answerable (bool), answers (gold
strings: any one in the answer counts; empty when unanswerable), source (the page, relative to
pages/, that answers it; answerable only), near (the page closest to an unanswerable question's
topic), kind (KINDS), note. The questions were written by reading the pages; a quarter or more
are unanswerable but close to real topics (a setting or detail the pages do not state).

Metrics (over answerable / unanswerable questions; overall, per set and per kind):
  asked_fact            share of answerable questions not refused (status != insufficient) whose
                        answer contains a gold string (case-insensitive, whitespace folded,
                        typographic quotes and dashes as plain ones, Markdown/reST inline
                        markers ` and * ignored)
  false_refusal         share of answerable questions answered `insufficient`
  unanswerable_refused  share of unanswerable questions answered `insufficient`

This is a dev set, reported apart from the sets the system is fitted on: never tune to single
questions.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestration.kb.config import KBConfig

from .builds import eval_loop
from .datasets import load_question_file
from .metrics import status_counts

HERE = Path(__file__).resolve().parent
DOCSETS = HERE / "data" / "docsets"
QUESTIONS = HERE / "data" / "docsets_questions.jsonl"
SETS = ("poetry", "restic", "httpx")
KB_OF = {"poetry": "docs_poetry", "restic": "docs_restic", "httpx": "docs_httpx"}
KINDS = ("number", "duration", "date", "definition", "yes_no", "procedure", "command", "list", "fact", "who")
REFUSED = "insufficient"
METRICS = ("asked_fact", "false_refusal", "unanswerable_refused")
STAGES = ("perceive", "route", "retrieve", "compose", "validate", "total")
# The newest of the three snapshots (restic a80be14, 2026-08-01; Poetry f467023, 2026-06-21;
# HTTPX ae1b9f6, 2025-12-10): the pages carry no dates (but the 2024 timestamps of an example log
# on HTTPX's logging page), so `now` only has to sit after them.
DOCS_NOW = dt.date(2026, 8, 1)
MODE = "loop"
ANSWER_CHARS = 300


@dataclass(frozen=True)
class DocQuestion:
    id: str
    set: str
    question: str
    kind: str
    answerable: bool
    answers: tuple[str, ...]
    source: str = ""
    near: str = ""
    note: str = ""


def pages_dir(name: str, root: Path = DOCSETS) -> Path:
    """The folder of a set's pages (what its KB is built from)."""
    return root / name / "pages"


def parse_question(record: Any, where: str = "question") -> DocQuestion:
    """One question record, checked; ValueError says what is wrong and where."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: must be a JSON object")
    missing = [k for k in ("id", "set", "question", "answerable", "answers", "kind") if k not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    if record["set"] not in SETS:
        raise ValueError(f"{where}: set {record['set']!r} is not one of {', '.join(SETS)}")
    check_gold(record, where)
    answers = record["answers"]
    source = str(record.get("source") or "")
    if record["answerable"] and not source:
        raise ValueError(f"{where}: an answerable question names the page that answers it (source)")
    if not str(record["question"]).strip():
        raise ValueError(f"{where}: empty question")
    return DocQuestion(str(record["id"]), record["set"], str(record["question"]).strip(), record["kind"],
                       record["answerable"], tuple(answers), source, str(record.get("near") or ""),
                       str(record.get("note") or ""))


def check_gold(record: dict[str, Any], where: str) -> None:
    """A question record's kind, `answerable` and `answers` agree (ValueError names `where`): a
    kind of KINDS, a boolean, a list of non-empty strings, answers exactly when answerable."""
    if record["kind"] not in KINDS:
        raise ValueError(f"{where}: kind {record['kind']!r} is not one of {', '.join(KINDS)}")
    if not isinstance(record["answerable"], bool):
        raise ValueError(f"{where}: answerable must be true or false")
    answers = record["answers"]
    if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
        raise ValueError(f"{where}: answers must be a list of non-empty strings")
    if record["answerable"] != bool(answers):
        raise ValueError(f"{where}: an answerable question needs gold answers, an unanswerable one none")


def load_questions(path: Path = QUESTIONS) -> list[DocQuestion]:
    """Every question of the file, checked (ValueError names the line); ids must be unique."""
    return load_question_file(path, parse_question)


# --- scoring (pure functions, no model) --------------------------------------------------------

_TYPOGRAPHIC = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "`": None, "*": None})


def normalise(text: str) -> str:
    """Lower case, whitespace folded, typographic quotes and dashes as plain ones, and the inline
    markers of Markdown and reST (` and *) dropped: ``5`` connections reads as 5 connections."""
    return re.sub(r"\s+", " ", str(text).translate(_TYPOGRAPHIC)).strip().casefold()


def contains_gold(text: str, answers: Iterable[str]) -> bool:
    """Whether any gold string is in the text (normalise() on both sides)."""
    hay = normalise(text)
    return any(normalise(a) and normalise(a) in hay for a in answers)


def score_body(question: DocQuestion, body: dict[str, Any]) -> dict[str, Any]:
    """The report row of one question and the loop's response body."""
    status, answer = str(body.get("status", "")), str(body.get("answer", ""))
    fact = question.answerable and status != REFUSED and contains_gold(answer, question.answers)
    cited = []
    for citation in body.get("citations") or []:
        doc = str(citation.get("chunk_id", "")).split("#")[0]
        if doc and doc not in cited:
            cited.append(doc)
    source_doc = question.source.rsplit(".", 1)[0] if question.source else ""
    return {"id": question.id, "set": question.set, "query": question.question, "kind": question.kind,
            "answerable": question.answerable, "gold": list(question.answers), "source": question.source,
            "status": status, "has_fact": fact, "refused": status == REFUSED, "cited_docs": cited,
            "cites_source": bool(source_doc) and source_doc in cited,
            "answer": answer[:ANSWER_CHARS], "total_ms": round(float(body.get("timing", {}).get("total", 0.0)), 1)}


def _share(hits: Sequence[bool]) -> float | None:
    return round(sum(hits) / len(hits), 4) if hits else None


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """METRICS over the rows, with how many answerable / unanswerable questions they hold."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    return {"asked_fact": _share([bool(r["has_fact"]) and r["status"] != REFUSED for r in answerable]),
            "false_refusal": _share([r["status"] == REFUSED for r in answerable]),
            "unanswerable_refused": _share([r["status"] == REFUSED for r in unanswerable]),
            "answerable": len(answerable), "unanswerable": len(unanswerable)}


def by_set(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {name: summarise([r for r in rows if r["set"] == name]) for name in SETS
            if any(r["set"] == name for r in rows)}


def by_kind(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {kind: summarise([r for r in rows if r["kind"] == kind]) for kind in KINDS
            if any(r["kind"] == kind for r in rows)}




def score_rows(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every figure of a run from its rows: overall, per set, per set and kind, per kind."""
    return {"overall": summarise(rows), "by_set": by_set(rows), "by_kind": by_kind(rows),
            "by_set_kind": {name: by_kind([r for r in rows if r["set"] == name]) for name in by_set(rows)},
            "statuses": status_counts(rows)}


# --- knowledge bases and the loop ----------------------------------------------------------------

def build_docs_kb(kb_config: KBConfig, name: str, progress: bool = True) -> dict[str, Any]:
    """Ingest a set's pages into its eval KB (skipped when nothing changed)."""
    from .builds import build_eval_kb

    return build_eval_kb(kb_config, KB_OF[name], [pages_dir(name)], progress)


def build_docs_loop(kb_config: KBConfig, name: str):
    """An AnswerLoop over one set's KB: generic eval router, Perception as the service runs it."""
    return eval_loop(kb_config, KB_OF[name])


def ask(loop, question: DocQuestion) -> dict[str, Any]:
    from server.context import RequestContext
    from server.loop import AskRequest

    return loop.run(AskRequest(query=question.question, kbs=[KB_OF[question.set]],
                               context=RequestContext.create(DOCS_NOW, trace_level="summary", endpoint="eval")))


def run_questions(loops: dict[str, Any], questions: Sequence[DocQuestion], progress: bool = True
                  ) -> tuple[list[dict[str, Any]], dict[str, list[float]]]:
    """Ask every question of its set's loop; the rows and the timings per stage."""
    from tqdm import tqdm

    rows: list[dict[str, Any]] = []
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    for question in tqdm(questions, desc="docs loop", disable=not progress, file=sys.stderr):
        body = ask(loops[question.set], question)
        for stage in STAGES:
            value = body.get("timing", {}).get(stage)
            if value is not None:
                timings[stage].append(float(value))
        rows.append(score_body(question, body))
    return rows, timings


def run_docs_set(kb_config: KBConfig, queries: Path | None = None, limit: int | None = None,
                 progress: bool = True) -> dict[str, Any]:
    """The `docs` entry of report.json: figures overall (`metrics.all`), per set (`metrics.<set>`),
    per kind (`by_type.loop`), per set and kind, statuses, latency, builds and every row."""
    from .stats import latency_summary

    questions = load_questions(queries or QUESTIONS)
    if limit:
        questions = questions[:limit]
    names = [n for n in SETS if any(q.set == n for q in questions)]
    builds = {n: build_docs_kb(kb_config, n, progress) for n in names}
    loops = {n: build_docs_loop(kb_config, n) for n in names}
    rows, timings = run_questions(loops, questions, progress)
    scored = score_rows(rows)
    metrics = {"all": scored["overall"], **scored["by_set"]}
    return {"set": "docs", "queries": len(questions), "answerable": scored["overall"]["answerable"],
            "unanswerable": scored["overall"]["unanswerable"], "now": DOCS_NOW.isoformat(),
            "metrics": metrics, "by_type": {MODE: scored["by_kind"]}, "by_set_kind": scored["by_set_kind"],
            "latency": {MODE: latency_summary(timings)}, "statuses": scored["statuses"], "kb": builds,
            "questions": rows, "anchors": {},
            "sources": {n: str((DOCSETS / n / "SOURCE.md").relative_to(HERE.parent)) for n in names}}


def run_docs_eval(data_dir: Path | None = None, queries: Path | None = None, limit: int | None = None,
                  out_dir: Path | None = None, progress: bool = True) -> dict[str, Any]:
    """`sightline eval docs`: build every set's KB, ask every question, score; print the table when
    `progress`, merge the result into out_dir/report.json and report.md when given."""
    from .datasets import DEFAULT_DATA
    from .report import commit_state
    from .runner import _write, eval_kb_config, format_table

    started = time.perf_counter()
    commit = commit_state()
    result = run_docs_set(eval_kb_config(data_dir or DEFAULT_DATA), queries, limit, progress)
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    result["commit"] = commit
    if progress:
        print(format_table(result), flush=True)
    if out_dir:
        _write(out_dir, result, limit)
    return result


def rescore(report: dict[str, Any]) -> dict[str, Any]:
    """The figures of a recorded `docs` result recomputed from its rows (no model run)."""
    return score_rows(report["questions"])


__all__ = ["DocQuestion", "KB_OF", "KINDS", "QUESTIONS", "SETS", "contains_gold", "load_questions", "normalise",
           "parse_question", "rescore", "run_docs_eval", "run_docs_set", "score_body", "score_rows", "summarise"]
