"""Citation numbering: one number per cited chunk, assigned by first use in the answer text.

Promises: numbers are 1, 2, 3, ... in the order `cite` is first called for each chunk, so a
composer that renders claims in their final order gets numbers by first use; citing the same
chunk again returns its number; `citations()` lists them in number order, filled from the
chunk's metadata, the snippet being the first sentence cited from the chunk.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from orchestration.kb.units import FIELD
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Citation


def _text_or_none(value: Any) -> str | None:
    """Metadata values as text: dates in ISO form, None and "" as None."""
    if value is None or value == "":
        return None
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def _page(value: Any) -> int | None:
    """A page number (PDF chunks carry `page`), None when absent or not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.strip().isdigit() else None


class CitationBook:
    """Hands out citation numbers in order of first use and builds the `Citation` records."""

    def __init__(self, snippet_chars: int = 240) -> None:
        """Start an empty book.

        Args:
            snippet_chars: the longest snippet kept (the cited sentence cut at this length).
        """
        self.snippet_chars = snippet_chars
        self._numbers: dict[str, int] = {}
        self._entries: list[tuple[ScoredChunk, str, str | None, tuple[str, ...] | None]] = []

    def cite(self, chunk: ScoredChunk, sentence: str | None = None, unit: str | None = None,
             path: tuple[str, ...] | None = None) -> int:
        """The number of `chunk`, assigning the next one on first use.

        Args:
            chunk: the evidence chunk cited.
            sentence: the sentence quoted from it (the snippet, when this is the first use).
            unit: what the quoted text is (sentence, list_item, definition, table_row, code), when known.
            path: the headings the quoted unit falls under, when known.

        Returns:
            The 1-based citation number.
        """
        n = self._numbers.get(chunk.chunk_id)
        if n is None:
            n = len(self._entries) + 1
            self._numbers[chunk.chunk_id] = n
            self._entries.append((chunk, sentence or chunk.text, unit if sentence else None,
                                  path if sentence and unit else None))
        return n

    def citations(self) -> list[Citation]:
        """The citations, numbered 1..N in order of first use."""
        out: list[Citation] = []
        for n, (chunk, sentence, unit, path) in enumerate(self._entries, start=1):
            meta = chunk.metadata or {}
            out.append(Citation(
                n=n, chunk_id=chunk.chunk_id, kb=chunk.kb,
                source=_text_or_none(meta.get("source")),
                title=chunk.title or str(meta.get("title") or ""),
                updated_at=_text_or_none(meta.get("updated_at")),
                snippet=sentence[:self.snippet_chars].rstrip(),
                published_at=_text_or_none(meta.get("published_at")),
                status=_text_or_none(meta.get("status")),
                page=_page(meta.get("page")),
                url=_text_or_none(meta.get("url")),
                unit=unit, section=_text_or_none(meta.get("section")),
                path=list(path) if path is not None else None,
                **_field_metadata(chunk, sentence, unit)))
        return out

    def source_name(self, chunk: ScoredChunk) -> str:
        """How glue text names a chunk's origin: its `source` metadata, else its title, else its id."""
        meta = chunk.metadata or {}
        return str(meta.get("source") or chunk.title or meta.get("title") or chunk.doc_id)


def _field_metadata(chunk: ScoredChunk, quoted: str, unit: str | None) -> dict[str, Any]:
    """A cited field's name and version notes, as the ingest stored them (empty for other units)."""
    if unit != FIELD or chunk.units is None:
        return {}
    for stored in chunk.units:
        if stored.type == FIELD and stored.text_in(chunk.text) == quoted:
            return {"name": stored.name, "version_notes": list(stored.notes) or None}
    return {}
