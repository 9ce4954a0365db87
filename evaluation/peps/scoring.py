"""The PEP questions and how answers to them are scored (pure functions, no model).

A question (evaluation/data/peps_questions.jsonl, one JSON object a line):
  id, query, kind (KINDS), answerable (bool), answers (gold strings: any one in the answer
  counts; empty for unanswerable questions), peps (the PEP numbers holding the answer; for an
  unanswerable one, the PEPs nearest the topic), note (where the answer is, or why none is).

Metrics over the scored rows (each row: answerable, status, has_fact):
  unanswerable_refused  share of unanswerable questions answered with status `insufficient`
  answered_with_fact    share of answerable questions whose final answer contains a gold
                        string (case-insensitive, spaces normalised) with status != insufficient
  false_refusal         share of answerable questions answered `insufficient`
  fact_from_gold_pep    stricter answered_with_fact: the answer also cites one of the PEPs
                        holding the answer (a row's `cites_gold_pep`), so a gold string met by
                        chance in another PEP ("rejected" in PEP 1's status rules) does not count
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluation.datasets import load_question_file

QUESTIONS = Path(__file__).resolve().parent.parent / "data" / "peps_questions.jsonl"
KINDS = ("number", "date", "duration", "actor", "definition", "procedure", "yes_no", "compare", "list")
REFUSED = "insufficient"
METRICS = ("answered_with_fact", "false_refusal", "unanswerable_refused", "fact_from_gold_pep")


@dataclass(frozen=True)
class PepQuestion:
    id: str
    query: str
    kind: str
    answerable: bool
    answers: tuple[str, ...]
    peps: tuple[int, ...]
    note: str = ""


def parse_question(record: Any, where: str = "question") -> PepQuestion:
    """One question record, checked; ValueError says what is wrong and where."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: must be a JSON object")
    missing = [k for k in ("id", "query", "kind", "answerable", "answers", "peps", "note") if k not in record]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    if record["kind"] not in KINDS:
        raise ValueError(f"{where}: kind {record['kind']!r} is not one of {', '.join(KINDS)}")
    if not isinstance(record["answerable"], bool):
        raise ValueError(f"{where}: answerable must be true or false")
    answers, peps = record["answers"], record["peps"]
    if not isinstance(answers, list) or not all(isinstance(a, str) and a.strip() for a in answers):
        raise ValueError(f"{where}: answers must be a list of non-empty strings")
    if record["answerable"] != bool(answers):
        raise ValueError(f"{where}: an answerable question needs gold answers, an unanswerable one none")
    if not isinstance(peps, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in peps):
        raise ValueError(f"{where}: peps must be a list of PEP numbers")
    if record["answerable"] and not peps:
        raise ValueError(f"{where}: an answerable question names the PEP(s) holding its answer")
    if not str(record["query"]).strip():
        raise ValueError(f"{where}: empty query")
    return PepQuestion(str(record["id"]), str(record["query"]).strip(), record["kind"], record["answerable"],
                       tuple(answers), tuple(peps), str(record["note"]))


def load_questions(path: Path = QUESTIONS) -> list[PepQuestion]:
    """Every question of the file, checked (ValueError names the line); ids must be unique."""
    return load_question_file(path, parse_question)


_TYPOGRAPHIC = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-"})


def normalise(text: str) -> str:
    """Lower case, every run of whitespace one space, typographic quotes and dashes as plain ones
    (a PEP quoting another writes ‘f’ where the gold, typed by hand, has 'f')."""
    return re.sub(r"\s+", " ", text.translate(_TYPOGRAPHIC)).strip().casefold()


def contains_gold(text: str, answers: Iterable[str]) -> bool:
    """Whether any gold string is in the text (case-insensitive, spaces normalised)."""
    hay = normalise(text)
    return any(normalise(a) and normalise(a) in hay for a in answers)


def has_fact(question: PepQuestion, status: str, answer: str) -> bool:
    """An answerable question answered (not refused) with a gold string in the answer."""
    return question.answerable and status != REFUSED and contains_gold(answer, question.answers)


def _share(hits: Sequence[bool]) -> float | None:
    return round(sum(hits) / len(hits), 4) if hits else None


def unanswerable_refused(rows: Sequence[dict[str, Any]]) -> float | None:
    return _share([r["status"] == REFUSED for r in rows if not r["answerable"]])


def answered_with_fact(rows: Sequence[dict[str, Any]]) -> float | None:
    return _share([bool(r["has_fact"]) and r["status"] != REFUSED for r in rows if r["answerable"]])


def fact_from_gold_pep(rows: Sequence[dict[str, Any]]) -> float | None:
    return _share([bool(r["has_fact"]) and r["status"] != REFUSED and bool(r.get("cites_gold_pep"))
                   for r in rows if r["answerable"]])


def false_refusal(rows: Sequence[dict[str, Any]]) -> float | None:
    return _share([r["status"] == REFUSED for r in rows if r["answerable"]])


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """The figures over the rows (METRICS)."""
    return {"answered_with_fact": answered_with_fact(rows), "false_refusal": false_refusal(rows),
            "unanswerable_refused": unanswerable_refused(rows), "fact_from_gold_pep": fact_from_gold_pep(rows)}


def by_kind(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The figures per question kind, with how many answerable / unanswerable questions it has."""
    out: dict[str, dict[str, Any]] = {}
    for kind in [k for k in KINDS if any(r["kind"] == k for r in rows)]:
        mine = [r for r in rows if r["kind"] == kind]
        out[kind] = summarise(mine) | {"answerable": sum(r["answerable"] for r in mine),
                                       "unanswerable": sum(not r["answerable"] for r in mine)}
    return out


