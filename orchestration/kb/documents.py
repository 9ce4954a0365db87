"""Reading documents: JSONL, Markdown and MDX, plain text, reStructuredText (PEPs), HTML and PDF.

One table (`READERS`) maps a file suffix to its reader. Every format's body is written as clean
text (`formats/markup.py`: prose paragraphs, `#` headings, fenced code, `| a | b |` table
rows), the one form the chunker and the composer read. JSONL text is taken as it is given.

Every input problem is reported, never raised: a loader yields `Document`s for what it can
read and `Skipped` records (file, line, reason) for what it cannot, so one bad line or one
broken file never stops an ingest. A metadata value that cannot be used but need not cost the
document (an unreadable date) is dropped, and the document says so in its `warnings`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bs4.dammit import EncodingDetector

from .formats import FormatError, Parsed
from .formats.frontmatter import split_front_matter, unpublished_reason
from .formats.headers import split_header
from .formats.html import parse_html
from .formats.markdown import mdx_markdown, parse_markdown
from .formats.markup import CleanText
from .formats.pdf import parse_pdf
from .formats.rst import parse_rst
from .metadata import FieldMap, MetadataError, normalize


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


def read_markdown(path: Path, default_id: str, fields: FieldMap | None = None, mdx: bool = False) -> Loaded:
    """One Markdown document; front matter (YAML between `---`, TOML between `+++`) gives id and metadata.
    `mdx`: the page is MDX (Docusaurus), read as Markdown without its ES module lines and JSX
    comments (`formats.markdown.mdx_markdown`).

    A page its front matter marks unpublished (`published: false`, `draft: true`,
    `status: draft`) is skipped, saying which field said so.

    `fields` says which front matter field feeds which field with a meaning (default: the aliases).
    """
    content = _read_text_file(path)
    if isinstance(content, Skipped):
        return content
    front = split_front_matter(content)
    if front.error:
        return Skipped(f"{path}:{front.line}" if front.line else str(path), front.error)
    unpublished = unpublished_reason(front.fields)
    if unpublished:
        return Skipped(str(path), unpublished)
    metadata, content = front.fields, front.body
    doc_id = metadata.pop("id", None) or default_id
    title = metadata.pop("title", None)
    text, heading = parse_markdown(mdx_markdown(content) if mdx else content)
    if title is None:
        title = heading or _stem_title(path)
    return _make_document(doc_id, title, text, metadata, str(path), fields)


def _stem_title(path: Path) -> str:
    return path.stem.replace("-", " ").replace("_", " ")


def read_text(path: Path, default_id: str, fields: FieldMap | None = None) -> Loaded:
    """One plain-text document; its first non-empty line is the title.

    A file that starts with an RFC 822 header block (`Key: value` lines, as PEPs do) is read
    as `read_rst` reads one: the header gives title and metadata (its body is reST when the
    header says so, plain text otherwise).
    """
    content = _read_text_file(path)
    if isinstance(content, Skipped):
        return content
    if split_header(content) is not None:
        parsed = _parsed(path, lambda: parse_rst(content, is_rst=False))
        return parsed if isinstance(parsed, Skipped) else _from_parsed(parsed, default_id, path, fields)
    out = CleanText()
    for paragraph in re.split(r"\n\s*\n", content):
        out.paragraph(paragraph)
    first = next((line.strip() for line in content.splitlines() if line.strip()), "")
    return _make_document(default_id, first[:200], out.text(), {}, str(path))


def _parsed(path: Path, parse: Callable[[], Any]) -> Any:
    """What a format parser returns, or a Skipped record saying why it failed.

    This is the one place a parser's own exceptions are caught, whatever their type:
    docutils, Beautiful Soup, pypdf and PDFium read untrusted files, and a file they cannot
    read must cost that file, never the ingest.
    """
    try:
        return parse()
    except FormatError as exc:
        return Skipped(str(path), str(exc))
    except Exception as exc:  # noqa: BLE001 - see the docstring: a parser failure skips the file
        kind = path.suffix.lower().lstrip(".").upper() or "file"
        return Skipped(str(path), f"cannot be read as {kind} ({type(exc).__name__}: {str(exc)[:160]}); "
                                  "is the file complete and of that format?")


def _from_parsed(parsed: Parsed, default_id: str, path: Path, fields: FieldMap | None) -> Loaded:
    doc_id = f"{default_id}/{parsed.part}" if parsed.part else default_id
    loaded = _make_document(doc_id, parsed.title or _stem_title(path), parsed.text, parsed.metadata,
                            str(path), fields)
    if isinstance(loaded, Document):
        loaded.warnings = parsed.warnings + loaded.warnings
    return loaded


def read_rst(path: Path, default_id: str, fields: FieldMap | None = None) -> Loaded:
    """One reStructuredText document, parsed by docutils; an RFC 822 header block at its start
    (a PEP's `PEP`, `Title`, `Status`, `Type`, `Created`, ...) gives title and metadata
    (`formats/headers.py`); else the first section title is the title."""
    content = _read_text_file(path)
    if isinstance(content, Skipped):
        return content
    parsed = _parsed(path, lambda: parse_rst(content))
    return parsed if isinstance(parsed, Skipped) else _from_parsed(parsed, default_id, path, fields)


def _decode_html(path: Path) -> str | Skipped:
    """An HTML file's text: UTF-8, else the encoding the page declares (`<meta charset>`)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Skipped(str(path), f"cannot read file ({exc.strerror})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        declared = EncodingDetector.find_declared_encoding(data, is_html=True)
        if declared and declared.lower().replace("_", "-") not in ("utf-8", "utf8"):
            try:
                return data.decode(declared)
            except (LookupError, UnicodeDecodeError):
                pass
        return Skipped(str(path), f"not UTF-8 text (byte {exc.start}) and no other encoding declared; "
                                  "re-save the file as UTF-8")


def read_html(path: Path, default_id: str, fields: FieldMap | None = None) -> Loaded:
    """One HTML page, parsed by Beautiful Soup: the main text, `<title>`, `<meta>` dates and authors."""
    content = _decode_html(path)
    if isinstance(content, Skipped):
        return content
    parsed = _parsed(path, lambda: parse_html(content))
    return parsed if isinstance(parsed, Skipped) else _from_parsed(parsed, default_id, path, fields)


def read_pdf(path: Path, default_id: str, fields: FieldMap | None = None) -> Iterator[Loaded]:
    """A PDF, its text read by PDFium (pypdfium2) and its metadata by pypdf: one document a
    page with text (id `<file>/page-N`, metadata `page`), so every chunk and citation names its page."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        yield Skipped(str(path), f"cannot read file ({exc.strerror})")
        return
    parsed = _parsed(path, lambda: parse_pdf(data))
    if isinstance(parsed, Skipped):
        yield parsed
        return
    for page in parsed[1]:
        yield _from_parsed(page, default_id, path, fields)


Reader = Callable[[Path, str, FieldMap | None], Iterable[Loaded]]


def _one(read: Callable[[Path, str, FieldMap | None], Loaded]) -> Reader:
    return lambda path, default_id, fields: [read(path, default_id, fields)]


# The one dispatch table: a file suffix (lower case) -> its reader.
READERS: dict[str, Reader] = {
    ".jsonl": lambda path, _default_id, fields: read_jsonl(path, fields),
    ".ndjson": lambda path, _default_id, fields: read_jsonl(path, fields),
    ".md": _one(read_markdown),
    ".markdown": _one(read_markdown),
    ".mdx": _one(lambda path, default_id, fields: read_markdown(path, default_id, fields, mdx=True)),
    ".txt": _one(read_text),
    ".text": _one(read_text),
    ".rst": _one(read_rst),
    ".rest": _one(read_rst),
    ".html": _one(read_html),
    ".htm": _one(read_html),
    ".pdf": read_pdf,
}
SUPPORTED_SUFFIXES = frozenset(READERS)


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
            reader = READERS.get(suffix)
            if reader is None:
                yield Skipped(str(path), f"unsupported file type '{suffix or path.name}' "
                                         f"(supported: {', '.join(sorted(SUPPORTED_SUFFIXES))})")
            else:
                yield from reader(path, default_id, fields)
