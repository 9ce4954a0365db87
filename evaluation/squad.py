"""SQuAD 2.0 through the whole loop: one knowledge base per article split, every question one
run of `AnswerLoop.run` (the code path of POST /rag).

The articles come from ../shared/eval/squad2 and are split by title (evaluation/answers/splits.py:
train 17 / dev 4 / test 4 articles). Each paragraph of a split's articles is one document,
titled by its article, written as JSONL under var/eval/squad/ (never into the repo: SQuAD is
CC BY-SA) and ingested by the normal ingest into `squad_<split>`. A question searches the whole
KB of its split, so it meets every paragraph of four articles, not only its own: the loop has
to find the paragraph as well as the answer. About half the questions are unanswerable
(`is_impossible`), written to look answerable from the same paragraphs.

Metrics (answerable questions unless said):
  lead_answer           the lead sentence (the answer up to its first `[n]`) holds a gold
                        answer text, compared case-insensitively with whitespace folded
  answer_anywhere       the whole answer text holds a gold answer text
  false_refusal         the status is `insufficient`
  unanswerable_refused  unanswerable questions: the status is `insufficient`
A refused answer never counts as holding the gold text (its "closest text found" might).
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from core.errors import RequestError
from orchestration.kb.config import KBConfig
from orchestration.paths import REPO_ROOT

from .answers.splits import SPLITS, SQUAD_FILE, squad_articles
from .builds import build_eval_kb, eval_loop
from .datasets import DEFAULT_DATA, EvalQuery
from .stats import latency_summary

SET = "squad"
MODE = "loop"
KB_OF = {split: f"squad_{split}" for split in SPLITS}
CORPUS_DIR = REPO_ROOT / "var" / "eval" / "squad"
# The Wikipedia snapshot SQuAD was written from is of 2016; the paragraphs carry no dates, so
# `now` only has to sit after them (SQuAD 2.0 was published in June 2018).
SQUAD_NOW = dt.date(2018, 6, 30)
STAGES = ("perceive", "route", "retrieve", "compose", "validate", "total")
# The targets (lead_answer and unanswerable_refused at least, false_refusal at most).
TARGETS = {"lead_answer": (">=", 0.75), "unanswerable_refused": (">=", 0.70), "false_refusal": ("<=", 0.15)}
_MARKER = re.compile(r"\[\d+\]")


# --- the corpus and the questions -----------------------------------------------------------

def _articles(data_dir: Path, split: str) -> list[dict[str, Any]]:
    """The split's articles; RequestError naming the file and `--data` when it is not there."""
    if not (data_dir / SQUAD_FILE).is_file():
        raise RequestError(f"SQuAD 2.0 not found at {data_dir / SQUAD_FILE}; pass --data DIR "
                           f"(the folder holding {SQUAD_FILE})", field="data")
    try:
        return squad_articles(data_dir, split)
    except ValueError as exc:
        raise RequestError(str(exc), field="split") from exc


def corpus_path(split: str) -> Path:
    """Where a split's paragraphs are written (var/eval/squad/<split>.corpus.jsonl)."""
    return CORPUS_DIR / f"{split}.corpus.jsonl"


def write_squad_corpus(data_dir: Path, split: str, path: Path) -> Path:
    """Every paragraph of the split's articles as one JSONL document; rewritten only when it changed.

    Promises: id `<title>#<paragraph index>`, title the article's with underscores as spaces,
    metadata {"source": "squad", "article": <title as in the file>}, in file order.
    """
    lines = []
    for article in _articles(data_dir, split):
        title = article["title"]
        for i, paragraph in enumerate(article["paragraphs"]):
            lines.append(json.dumps({"id": f"{title}#{i}", "title": title.replace("_", " "),
                                     "text": paragraph["context"],
                                     "metadata": {"source": "squad", "article": title}}, ensure_ascii=False))
    body = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path


def squad_questions(data_dir: Path, split: str) -> list[EvalQuery]:
    """Every question of the split's articles, in file order.

    `raw` holds "answers" (the distinct gold texts; empty when unanswerable), "is_impossible",
    "plausible_answers" (distinct texts, unanswerable questions) and "article".
    """
    out = []
    for article in _articles(data_dir, split):
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                impossible = bool(qa.get("is_impossible"))
                out.append(EvalQuery(str(qa["id"]), qa["question"], type="unanswerable" if impossible else "answerable",
                                     raw={"answers": _distinct(qa.get("answers")), "is_impossible": impossible,
                                          "plausible_answers": _distinct(qa.get("plausible_answers")),
                                          "article": article["title"]}))
    return out


def _distinct(answers: Sequence[dict[str, Any]] | None) -> list[str]:
    out: list[str] = []
    for answer in answers or []:
        text = str(answer.get("text", "")).strip()
        if text and text not in out:
            out.append(text)
    return out


def balanced(questions: Sequence[EvalQuery], limit: int | None) -> list[EvalQuery]:
    """The first `limit` questions alternating answerable and unanswerable (each in file order;
    the rest of the longer kind once the other runs out); all of them, in file order, without a limit."""
    if not limit:
        return list(questions)
    answerable = [q for q in questions if not q.raw["is_impossible"]]
    unanswerable = [q for q in questions if q.raw["is_impossible"]]
    out: list[EvalQuery] = []
    for i in range(max(len(answerable), len(unanswerable))):
        out += [q[i] for q in (answerable, unanswerable) if i < len(q)]
    return out[:limit]


# --- the knowledge base and the loop --------------------------------------------------------

def build_squad_kb(kb_config: KBConfig, split: str, progress: bool = True, *, data_dir: Path = DEFAULT_DATA,
                   corpus: Path | None = None) -> dict[str, Any]:
    """Write the split's paragraphs (to `corpus`, default var/eval/squad/<split>.corpus.jsonl) and
    ingest them into `squad_<split>` (skipped when nothing changed); the ingest's figures."""
    path = write_squad_corpus(data_dir, split, corpus or corpus_path(split))
    return build_eval_kb(kb_config, KB_OF[split], [path], progress)


def build_squad_loop(kb_config: KBConfig, split: str, use_ner: bool = True):
    """A warmed-up AnswerLoop over `squad_<split>`: generic eval router, Perception with NER as
    the service runs it (`use_ner=False`: rules only)."""
    return eval_loop(kb_config, KB_OF[split], use_ner)


# --- scoring --------------------------------------------------------------------------------

def lead_sentence(answer_text: str) -> str:
    """The answer up to its first `[n]` citation marker (all of it when it has none), stripped."""
    return _MARKER.split(str(answer_text), maxsplit=1)[0].strip()


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().casefold()


def holds_gold(text: str, gold: Sequence[str]) -> bool:
    """Some gold text is in `text`, case-insensitively with runs of whitespace folded to one space."""
    hay = _fold(text)
    return any(_fold(g) and _fold(g) in hay for g in gold)


def score_body(query: EvalQuery, body: dict[str, Any]) -> dict[str, Any]:
    """The report row of one question: id, question, status, lead, gold, impossible, plausible
    (an unanswerable question's plausible answers), the checks and the total time."""
    status, answer = str(body.get("status", "")), str(body.get("answer", ""))
    lead = lead_sentence(answer)
    gold = list(query.raw["answers"])
    refused = status == "insufficient"
    return {"id": query.id, "question": query.text, "status": status, "lead": lead, "gold": gold,
            "impossible": bool(query.raw["is_impossible"]), "plausible": list(query.raw.get("plausible_answers", [])),
            "lead_has_gold": not refused and holds_gold(lead, gold),
            "answer_has_gold": not refused and holds_gold(answer, gold),
            "total_ms": round(float(body.get("timing", {}).get("total", 0.0)), 1)}


def _share(rows: Sequence[dict[str, Any]], test) -> float | None:
    return round(sum(1 for r in rows if test(r)) / len(rows), 4) if rows else None


def summarise(rows: Sequence[dict[str, Any]]) -> tuple[dict[str, float | None], dict[str, int]]:
    """(metrics, counts) over scored rows; a metric with no question to measure it is None."""
    answerable = [r for r in rows if not r["impossible"]]
    unanswerable = [r for r in rows if r["impossible"]]
    metrics = {"lead_answer": _share(answerable, lambda r: r["lead_has_gold"]),
               "answer_anywhere": _share(answerable, lambda r: r["answer_has_gold"]),
               "unanswerable_refused": _share(unanswerable, lambda r: r["status"] == "insufficient"),
               "false_refusal": _share(answerable, lambda r: r["status"] == "insufficient")}
    counts = {"questions": len(rows), "answerable": len(answerable), "unanswerable": len(unanswerable),
              "lead_answer": sum(r["lead_has_gold"] for r in answerable),
              "answer_anywhere": sum(r["answer_has_gold"] for r in answerable),
              "unanswerable_refused": sum(r["status"] == "insufficient" for r in unanswerable),
              "false_refusal": sum(r["status"] == "insufficient" for r in answerable)}
    return metrics, counts


def meets_targets(metrics: dict[str, float | None]) -> dict[str, bool | None]:
    """Each target of TARGETS: met, missed, or None when its metric was not measured."""
    out: dict[str, bool | None] = {}
    for name, (op, bound) in TARGETS.items():
        value = metrics.get(name)
        out[name] = None if value is None else value >= bound if op == ">=" else value <= bound
    return out


def ask(loop, kb: str, query: EvalQuery) -> dict[str, Any]:
    """One run of the loop over `kb` for one question (trace "summary")."""
    from server.context import RequestContext
    from server.loop import AskRequest

    return loop.run(AskRequest(query=query.text, kbs=[kb],
                               context=RequestContext.create(SQUAD_NOW, trace_level="summary", endpoint="eval")))


def run_squad(loop, kb: str, questions: Sequence[EvalQuery], progress: bool = True) -> dict[str, Any]:
    """Ask every question of `questions` over `kb`; metrics, counts, statuses, latency per stage, rows."""
    rows: list[dict[str, Any]] = []
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    statuses: dict[str, int] = {}
    for query in tqdm(questions, desc=f"squad {kb}", disable=not progress, file=sys.stderr):
        body = ask(loop, kb, query)
        for stage in STAGES:
            value = body.get("timing", {}).get(stage)
            if value is not None:
                timings[stage].append(float(value))
        row = score_body(query, body)
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
        rows.append(row)
    metrics, counts = summarise(rows)
    return {"metrics": metrics, "counts": counts, "statuses": statuses, "latency": latency_summary(timings),
            "questions": rows}


def run_squad_set(data_dir: Path | None, kb_config: KBConfig, split: str = "dev", limit: int | None = None,
                  progress: bool = True) -> dict[str, Any]:
    """The `squad` entry of report.json (the runner adds wall time and commit); every paragraph
    of the split is indexed even with `limit`, which takes the first questions balanced by kind."""
    data_dir = data_dir or DEFAULT_DATA
    questions = balanced(squad_questions(data_dir, split), limit)
    build = build_squad_kb(kb_config, split, progress, data_dir=data_dir)
    loop = build_squad_loop(kb_config, split)
    scored = run_squad(loop, KB_OF[split], questions, progress)
    return {"set": SET, "split": split, "kb_name": KB_OF[split], "queries": len(questions),
            "answerable": scored["counts"]["answerable"], "unanswerable": scored["counts"]["unanswerable"],
            "now": SQUAD_NOW.isoformat(), "metrics": {MODE: scored["metrics"]}, "counts": scored["counts"],
            "targets": {k: f"{op} {v}" for k, (op, v) in TARGETS.items()},
            "meets_targets": meets_targets(scored["metrics"]), "latency": {MODE: scored["latency"]},
            "statuses": scored["statuses"], "kb": build, "questions": scored["questions"], "anchors": {}}
