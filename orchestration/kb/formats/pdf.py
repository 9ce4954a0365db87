"""PDF files to text page by page: the text layer read by PDFium (pypdfium2), metadata by pypdf.

Each page with text becomes its own part, carrying `page` (1-based) and `page_count`, so
every chunk of it names its page in the citation and no chunk mixes two pages. The title is
the document information's `/Title`, else the first line of text; `/CreationDate` and
`/ModDate` give `published_at` and `updated_at`, `/Author` the author, `/Keywords` tags,
`/Subject` a description (pypdf reads these, and says whether a password is needed).

The text comes from PDFium, the engine of Chrome's PDF viewer, because it keeps words whole:
on seven real PDFs it cut no word of running text, where pypdf cut 3.75 per 1,000 ("signed
into law b y", "Assuranc e Act": 29 per 1,000 in a word-processor export), it ran far fewer
words of neighbouring columns together (1,090 -> 124), and took a ninth of pypdf's time
(docs/PDF.md; the measure is `evaluation/pdf_split_words.py`). Neither library reads
scanned images (no OCR), so a PDF without any text is skipped with that reason. PDFium is
not thread-safe: one lock serialises its calls in a process.
"""

from __future__ import annotations

import io
import logging
import re
import threading
from typing import Any

import pypdfium2 as pdfium
from pypdf import PdfReader
from pypdf.errors import FileNotDecryptedError

from . import FormatError, Parsed
from .markup import CleanText

_HYPHENATED = re.compile(r"(?<=[a-z])-\n(?=[a-z])")
# PDFium marks a word it joined over a hyphenated line break with U+FFFE ("clus\ufffeter");
# control characters stand for drawn marks (check boxes, arrows) and spell nothing.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe]")
_PDFIUM = threading.Lock()
_ENCRYPTED = "PDF is encrypted with a password; save an unencrypted copy"
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_BULLET = re.compile(r"(?:^|\n)[ \t]*[•◦▪▫●○‣∙■□➢►][ \t]+")  # a line opening a list item
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


def _page_texts(data: bytes) -> list[str]:
    """Each page's text as PDFium reads it, in page order ("" for a page without text).

    Promises: line breaks as "\n"; PDFium's hyphenation marks and other control characters
    removed, so a word it joined over a line break reads whole.

    Raises:
        FormatError: PDFium needs a password (pypdf's own check passed a few such files).
    """
    with _PDFIUM:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise FormatError(_ENCRYPTED) from None
            raise
        try:
            texts = []
            for page in document:
                textpage = page.get_textpage()
                texts.append(textpage.get_text_range())
                textpage.close()
                page.close()
        finally:
            document.close()
    return [_CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n")) for text in texts]


def _page_text(raw: str) -> str:
    """A page's text as clean text: words broken over lines joined, paragraphs kept apart, and
    each line opening with a bullet glyph ("• Tier 2: 6 hours per period") a list item of its
    own, with the lines that continue it (a PDF has no list structure, only its glyphs)."""
    out = CleanText()
    for paragraph in _PARAGRAPH_BREAK.split(_HYPHENATED.sub("", raw)):
        pieces = _BULLET.split(paragraph)
        if pieces[0].strip():
            out.paragraph(pieces[0])
        for item in pieces[1:]:
            out.item(item)
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
            raise FormatError(_ENCRYPTED) from None
    meta = _info(reader)
    info_title = reader.metadata.title if reader.metadata is not None else None
    raws = _page_texts(data)
    texts = [_page_text(raw) for raw in raws]
    if not any(texts):
        raise FormatError("PDF has no text to extract (a scanned document? text is not read from images)")
    title = " ".join((info_title or "").split())
    if not title or _PLACEHOLDER_TITLES.match(title):
        title = next(line.strip() for raw in raws for line in raw.splitlines() if line.strip())[:200]
    parts = [Parsed(title, text, dict(meta, page=number, page_count=len(texts)), part=f"page-{number}")
             for number, text in enumerate(texts, start=1) if text]
    return title, parts
