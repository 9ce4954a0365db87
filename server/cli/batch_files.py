"""The two files of `sightline batch`: the questions (read and checked whole), the answers (appended, resumable).

Questions: one JSON object a line, `{"query": ...}` with optional `id` (a string or an integer;
default the line number) and any other POST /rag field but `trace` (`kb`, `now`, `filters`,
`top_k`, `max_retries`). Every line is checked before a model loads, with the same checks as a
/rag body, and a bad line is reported with its number: the run is refused rather than a line
skipped, so an output never lacks a question silently and a resumed run never has to remember
what was left out. Blank lines are allowed.

Answers: one JSON object a line, written with a single write() and synced (fsync) before the
next question, so after a crash or `kill -9` every line but possibly the last is whole. Opening
the file again drops a torn last line and reads which ids are answered; a second `sightline
batch` on the same file is refused while the first holds it (an exclusive flock).
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import RequestError, SightlineError
from orchestration.kb.layout import fsync_dir

from ..http.schemas import FIELDS, RequestLimits, parse_ask_request

LINE_FIELDS = ("id",) + tuple(f for f in FIELDS if f != "trace")
MAX_ID_CHARS = 200


@dataclass(frozen=True)
class Question:
    """One question of the input file: its line, its id and its POST /rag body (checked; options applied)."""

    line: int
    id: str | int
    body: dict[str, Any]

    @property
    def key(self) -> str:
        """The id as the answers file holds it (1 and "1" are different ids)."""
        return id_key(self.id)


def id_key(value: Any) -> str:
    """The identity of an id across the two files: its JSON text."""
    return json.dumps(value, ensure_ascii=False)


def read_questions(path: Path, defaults: dict[str, Any], limits: RequestLimits, known_kbs: Collection[str]
                   ) -> tuple[list[Question], list[str]]:
    """Every question of `path`, and a problem per bad line ("PATH:LINE: what, and the fix").

    Args:
        path: the input file.
        defaults: POST /rag fields for lines that do not set them (the command's --kb and --now).
        limits: the service's request limits.
        known_kbs: the knowledge bases the service serves.

    Promises: questions in file order; problems empty when every non-blank line is a question.

    Raises:
        SightlineError: the file cannot be read.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SightlineError(f"cannot read {path}: {exc.strerror}; give a JSONL file of questions",
                             field="input") from None
    questions: list[Question] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            question = _question(raw, number, defaults, limits, known_kbs)
        except RequestError as exc:
            problems.append(f"{path}:{number}: {exc.message}")
            continue
        if question.key in seen:
            problems.append(f"{path}:{number}: id {question.key} is line {seen[question.key]}'s too; give each "
                            "question its own id (a resumed run finds answers by id)")
            continue
        seen[question.key] = number
        questions.append(question)
    return questions, problems


def _question(raw: bytes, number: int, defaults: dict[str, Any], limits: RequestLimits,
              known_kbs: Collection[str]) -> Question:
    """The question of one input line; RequestError says what is wrong with it."""
    try:
        item = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RequestError("not UTF-8 text") from None
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        why = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
        raise RequestError(f"not valid JSON ({why}); each line is one object such as {{\"query\": \"...\"}}") \
            from None
    if not isinstance(item, dict):
        raise RequestError(f"a JSON {type(item).__name__}, not an object such as {{\"query\": \"...\"}}")
    unknown = sorted(set(item) - set(LINE_FIELDS))
    if unknown:
        raise RequestError(f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(LINE_FIELDS)}",
                           field=unknown[0])
    ident = item.pop("id", number)
    if isinstance(ident, bool) or not isinstance(ident, str | int) or not str(ident).strip() \
            or len(str(ident)) > MAX_ID_CHARS:
        raise RequestError(f"'id' must be a non-empty string of at most {MAX_ID_CHARS} characters or an integer, "
                           f"got {json.dumps(ident)[:60]}", field="id")
    body = {**defaults, **item, "trace": "none"}
    for name in parse_ask_request(body, limits).kbs or ():
        if name not in known_kbs:
            raise RequestError(f"unknown knowledge base '{name}'; served: {', '.join(sorted(known_kbs))}", field="kb")
    return Question(number, ident, body)


class Answers:
    """The answers file, open for appending; use as a context manager.

    Attributes:
        records: id key -> status of every whole record already in the file.
        dropped: bytes of a torn last line removed when the file was opened (0: none).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[str, str] = {}
        self.dropped = 0
        self._fd = -1

    def __enter__(self) -> Answers:
        if not self.path.parent.is_dir():
            raise SightlineError(f"--out: the folder {self.path.parent} does not exist; create it or give another "
                                 "path", field="out")
        created = not self.path.exists()
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise SightlineError(f"--out: cannot open {self.path}: {exc.strerror}", field="out") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise SightlineError(f"--out: another `sightline batch` is writing {self.path}; wait for it to end or "
                                 "give another --out", field="out") from None
        if created:
            fsync_dir(self.path.parent)
        try:
            self._recover()
        except SightlineError:
            os.close(self._fd)
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        os.close(self._fd)  # releases the lock

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one line, whole, and make it durable before returning."""
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        os.fsync(self._fd)
        self.records[id_key(record["id"])] = record["status"]

    def _recover(self) -> None:
        """Read the records already written; a last line without its newline (a torn write) is cut off.

        Raises:
            SightlineError: a whole line that is not an answer record: the file is not a batch's output.
        """
        size = os.fstat(self._fd).st_size
        data = os.pread(self._fd, size, 0) if size else b""
        end = data.rfind(b"\n") + 1
        if end < len(data):
            os.ftruncate(self._fd, end)
            os.fsync(self._fd)
            self.dropped = len(data) - end
        for number, raw in _lines(data[:end]):
            try:
                record = json.loads(raw)
            except (UnicodeDecodeError, ValueError):
                record = None
            if not isinstance(record, dict) or "id" not in record or not isinstance(record.get("status"), str):
                raise SightlineError(f"--out: {self.path}:{number} is not an answer record of `sightline batch`; "
                                     "give another --out (this file is not a batch's output)", field="out")
            self.records[id_key(record["id"])] = record["status"]


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based number, line) of every non-blank line."""
    for number, raw in enumerate(data.splitlines(), start=1):
        if raw.strip():
            yield number, raw

