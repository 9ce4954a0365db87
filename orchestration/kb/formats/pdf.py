"""PDF files to text page by page, read by pypdf (pure Python, no system library to install).

Each page with text becomes its own part, carrying `page` (1-based) and `page_count`, so
every chunk of it names its page in the citation and no chunk mixes two pages. The title is
the document information's `/Title`, else the first line of text; `/CreationDate` and
`/ModDate` give `published_at` and `updated_at`, `/Author` the author, `/Keywords` tags,
`/Subject` a description. pypdf reads the text a page draws, in drawing order; it does not
recognise scanned images (no OCR), so a PDF without any text is skipped with that reason.
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

from pypdf import PdfReader
from pypdf.errors import FileNotDecryptedError

from . import FormatError, Parsed
from .markup import CleanText

_HYPHENATED = re.compile(r"(?<=[a-z])-\n(?=[a-z])")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_PLACEHOLDER_TITLES = re.compile(r"^(?:untitled|document\d*|microsoft word - .*|\S+\.(?:docx?|pdf|tex|odt))$", re.I)
logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf logs each odd object it reads around


def _info(reader: PdfReader) -> dict[str, Any]:
    """Metadata from the document information dictionary (dates as ISO)."""
    info = reader.metadata
    if info is None:
        return {}
    meta: dict[str, Any] = {}
    for field, read in (("published_at", lambda: info.creation_date), ("updated_at", lambda: info.modification_date)):
        try:
            stamp = read()
        except (ValueError, TypeError):
            stamp = None  # an unreadable date: the document keeps its text
        if stamp is not None:
            meta[field] = stamp.isoformat()
    for field, key in (("author", "/Author"), ("tags", "/Keywords"), ("description", "/Subject")):
        value = info.get(key)
        if isinstance(value, str) and value.strip():
            meta[field] = value.strip()
    return meta


def _page_text(raw: str) -> str:
    """A page's text as clean text: words broken over lines joined, paragraphs kept apart."""
    out = CleanText()
    for paragraph in _PARAGRAPH_BREAK.split(_HYPHENATED.sub("", raw)):
        out.paragraph(paragraph)
    return out.text()


def parse_pdf(data: bytes) -> tuple[str, list[Parsed]]:
    """(title, one Parsed a page with text) of a PDF file.

    Raises:
        FormatError: encrypted with a password, or no page holds text.
    """
    reader = PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        try:
            reader.decrypt("")
            pages = list(reader.pages)
            pages[0].extract_text() if pages else None
        except FileNotDecryptedError:
            raise FormatError("PDF is encrypted with a password; save an unencrypted copy") from None
    meta = _info(reader)
    info_title = reader.metadata.title if reader.metadata is not None else None
    raws = [page.extract_text() or "" for page in reader.pages]
    texts = [_page_text(raw) for raw in raws]
    if not any(texts):
        raise FormatError("PDF has no text to extract (a scanned document? pypdf does not read images)")
    title = " ".join((info_title or "").split())
    if not title or _PLACEHOLDER_TITLES.match(title):
        title = next(line.strip() for raw in raws for line in raw.splitlines() if line.strip())[:200]
    parts = [Parsed(title, text, dict(meta, page=number, page_count=len(texts)), part=f"page-{number}")
             for number, text in enumerate(texts, start=1) if text]
    return title, parts
