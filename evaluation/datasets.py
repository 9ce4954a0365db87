"""Reading the public evaluation sets from their folder (../shared/eval by default)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from core.errors import RequestError
from orchestration.paths import REPO_ROOT

DEFAULT_DATA = REPO_ROOT.parent / "shared" / "eval"
SET_FOLDERS = {"scifact": "scifact", "multihop": "multihop_rag", "hotpotqa": "hotpotqa", "rgb": "rgb"}
DEFAULT_QUERIES = {"scifact": "queries_test.jsonl", "multihop": "queries_dev.jsonl", "hotpotqa": "queries.jsonl"}


@dataclass
class EvalQuery:
    """One benchmark question with what counts as a correct retrieval."""

    id: str
    text: str
    type: str = ""
    relevance: dict[str, int] = field(default_factory=dict)  # doc id -> graded relevance
    facts: list[str] = field(default_factory=list)           # MultiHop-RAG evidence facts
    raw: dict[str, Any] = field(default_factory=dict)


def set_folder(name: str, data_dir: Path | None) -> Path:
    """The folder of a set; RequestError says where it was looked for and how to point elsewhere."""
    folder = (data_dir or DEFAULT_DATA) / SET_FOLDERS[name]
    if not folder.is_dir():
        raise RequestError(f"evaluation data for '{name}' not found at {folder}; pass --data DIR "
                           f"(the folder holding {SET_FOLDERS[name]}/)", field="data")
    return folder


def read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise RequestError(f"query file {path} not found", field="queries")
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels: query id -> {doc id: relevance}."""
    out: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            out.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return out


def load_queries(name: str, folder: Path, queries: Path | None = None) -> list[EvalQuery]:
    """The set's queries (or those of another split in the same format)."""
    path = queries or folder / DEFAULT_QUERIES[name]
    records = read_jsonl(path)
    if name == "scifact":
        qrels_dir = folder / "qrels"
        split = "test" if queries is None else path.stem.replace("queries_", "")
        split_qrels = qrels_dir / f"{split}.tsv"
        qrels = read_qrels(split_qrels if split_qrels.is_file() else qrels_dir / "test.tsv")
        return [EvalQuery(r["_id"], r["text"], relevance=qrels[r["_id"]], raw=r) for r in records if r["_id"] in qrels]
    if name == "multihop":
        return [EvalQuery(r["_id"], r["text"], type=r["question_type"],
                          facts=[e["fact"] for e in r.get("evidence", [])],
                          relevance={e["doc_id"]: 1 for e in r.get("evidence", [])}, raw=r) for r in records]
    if name == "hotpotqa":
        qrels = read_qrels(folder / "qrels.tsv")
        return [EvalQuery(r["_id"], r["text"], type=r.get("type", ""), relevance=qrels.get(r["_id"], {}), raw=r)
                for r in records]
    raise RequestError(f"no query reader for set '{name}'", field="sets")


T = TypeVar("T")


def load_question_file(path: Path, parse: Callable[[Any, str], T], seen: dict[str, str] | None = None) -> list[T]:
    """Every question of a JSONL question file, each read by `parse(record, "file:line")` (which
    raises ValueError naming the line); ids must be unique, also against `seen` (id -> "file:line"
    of the ids read from other files, updated in place) when given.

    Raises:
        ValueError: a line is not JSON, a record is malformed, or two questions share an id (the
            message names the file and line of each).
    """
    questions: list[T] = []
    first: dict[str, str] = {} if seen is None else seen  # id -> "file:line" of its first question
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: not a JSON object ({exc.msg}, column {exc.colno})") from exc
            question = parse(record, where)
            qid = str(getattr(question, "id", ""))
            if qid in first:
                raise ValueError(f"{where}: duplicate question id {qid!r} (first at {first[qid]})")
            first[qid] = where
            questions.append(question)
    return questions
