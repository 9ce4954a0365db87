"""Reading documents from JSONL files and Markdown / plain-text folders.

Every input problem is reported, never raised: a loader yields `Document`s for what it can
read and `Skipped` records (file, line, reason) for what it cannot, so one bad line never
stops an ingest. A metadata value that cannot be used but need not cost the document (an
unreadable date) is dropped, and the document says so in its `warnings`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .metadata import FieldMap, MetadataError, normalize

MARKDOWN_SUFFIXES = {".md", ".markdown"}
TEXT_SUFFIXES = {".txt", ".text"}
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
SUPPORTED_SUFFIXES = MARKDOWN_SUFFIXES | TEXT_SUFFIXES | JSONL_SUFFIXES

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.M)


@dataclass
class Document:
    """One source document before chunking."""

    id: str
    title: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    origin: str = ""  # "file:line" or "file", for reports
    warnings: list[str] = field(default_factory=list)  # metadata values dropped (an unreadable date)
    notes: list[str] = field(default_factory=list)     # choices made reading the metadata
    undated_date_fields: list[str] = field(default_factory=list)  # own fields holding a date no date field took


@dataclass
class Skipped:
    """An input that was not ingested, with where it is and why."""

    origin: str
    reason: str

    def __str__(self) -> str:
        return f"{self.origin}: {self.reason}"


Loaded = Document | Skipped


def _make_document(doc_id: Any, title: Any, text: Any, metadata: Any, origin: str,
                   fields: FieldMap | None = None) -> Loaded:
    """Validate the parts of a document; a Skipped record says what is wrong.

    A title that YAML read as a number or a date (`title: 1984`) is taken as the text it was.
    """
    if not isinstance(text, str) or not text.strip():
        return Skipped(origin, "document has no text (field 'text' is missing or empty)")
    if doc_id is None or (isinstance(doc_id, str) and not doc_id.strip()):
        return Skipped(origin, "document has no id (add an 'id' field)")
    if isinstance(title, (int, float, dt.date)) and not isinstance(title, bool):
        title = title.isoformat() if isinstance(title, dt.date) else str(title)
    if title is not None and not isinstance(title, str):
        return Skipped(origin, f"field 'title' must be text, got {type(title).__name__}")
    try:
        read = normalize(metadata, fields)
    except MetadataError as exc:
        return Skipped(origin, f"bad metadata: {exc}")
    meta = read.metadata
    title = (title or meta.get("title") or "").strip()
    meta.pop("title", None)
    return Document(str(doc_id).strip(), title, text.strip(), meta, origin,
                    warnings=read.warnings, notes=read.notes, undated_date_fields=read.undated_date_fields)


def read_jsonl(path: Path, fields: FieldMap | None = None) -> Iterator[Loaded]:
    """Documents of a JSONL file: {"id" or "_id", "title", "text", "metadata"} per line.

    `fields` says which metadata field feeds which field with a meaning (default: the aliases).
    """
    try:
        handle = path.open("rb")
    except OSError as exc:
        yield Skipped(str(path), f"cannot open file ({exc.strerror})")
        return
    with handle:
        for number, raw in enumerate(handle, start=1):
            origin = f"{path}:{number}"
            if not raw.strip():
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Skipped(origin, f"not UTF-8 text (byte {exc.start}); re-save the file as UTF-8")
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                yield Skipped(origin, f"not valid JSON ({exc.msg} at column {exc.colno})")
                continue
            if not isinstance(record, dict):
                yield Skipped(origin, f"line must be a JSON object, got {type(record).__name__}")
                continue
            doc_id = record.get("id", record.get("_id"))
            metadata = record.get("metadata")
            yield _make_document(doc_id, record.get("title"), record.get("text"), metadata, origin, fields)


def _read_text_file(path: Path) -> str | Skipped:
    """The file's text, or why it was skipped."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return Skipped(str(path), f"not UTF-8 text (byte {exc.start}); re-save the file as UTF-8")
    except OSError as exc:
        return Skipped(str(path), f"cannot read file ({exc.strerror})")


def read_markdown(path: Path, default_id: str, fields: FieldMap | None = None) -> Loaded:
    """One Markdown document; YAML front matter between `---` lines gives id and metadata.

    `fields` says which front matter field feeds which field with a meaning (default: the aliases).
    """
    content = _read_text_file(path)
    if isinstance(content, Skipped):
        return content
    metadata: dict[str, Any] = {}
    match = _FRONT_MATTER.match(content)
    if match:
        try:
            loaded = yaml.safe_load(match.group(1))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{path}:{mark.line + 2}" if mark else str(path)
            return Skipped(where, f"front matter is not valid YAML ({getattr(exc, 'problem', exc)})")
        except RecursionError:
            return Skipped(str(path), "front matter is nested too deeply to read")
        if loaded is not None and not isinstance(loaded, dict):
            return Skipped(f"{path}:1", "front matter must be a mapping of fields")
        metadata = dict(loaded or {})
        content = content[match.end():]
    doc_id = metadata.pop("id", None) or default_id
    title = metadata.pop("title", None)
    if title is None:
        heading = _HEADING.search(content)
        title = heading.group(1) if heading else path.stem.replace("-", " ").replace("_", " ")
    return _make_document(doc_id, title, content, metadata, str(path), fields)


def read_text(path: Path, default_id: str) -> Loaded:
    """One plain-text document; its first non-empty line is the title."""
    content = _read_text_file(path)
    if isinstance(content, Skipped):
        return content
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    return _make_document(default_id, first[:200], content, {}, str(path))


def iter_documents(paths: list[Path], fields: FieldMap | None = None) -> Iterator[Loaded]:
    """Every document under the given files and folders, in a stable (sorted) order.

    `fields` says which document field feeds which field with a meaning (default: the aliases).
    """
    for root in paths:
        if not root.exists():
            yield Skipped(str(root), "path does not exist")
            continue
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in files:
            suffix = path.suffix.lower()
            rel = path.relative_to(root) if root.is_dir() else Path(path.name)
            default_id = rel.with_suffix("").as_posix()
            if suffix in JSONL_SUFFIXES:
                yield from read_jsonl(path, fields)
            elif suffix in MARKDOWN_SUFFIXES:
                yield read_markdown(path, default_id, fields)
            elif suffix in TEXT_SUFFIXES:
                yield read_text(path, default_id)
            else:
                yield Skipped(str(path), f"unsupported file type '{suffix or path.name}' "
                                         f"(supported: {', '.join(sorted(SUPPORTED_SUFFIXES))})")
