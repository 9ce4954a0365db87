"""Document formats: each module turns one format's content into clean text and metadata.

`markup` holds the clean-text rule shared with the composer; `headers` reads RFC 822 header
blocks (PEPs); `rst`, `html` and `pdf` parse with docutils, Beautiful Soup and pypdfium2
(PDF metadata by pypdf). A parser returns `Parsed` records or raises `FormatError` with a
reason a person can act on; `orchestration/kb/documents.py` dispatches by suffix and turns
both into documents or skips.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class FormatError(ValueError):
    """A file cannot be read as its format says; the message says why (and what to do)."""


@dataclass
class Parsed:
    """One document's parts as a format parser read them (before metadata normalisation).

    Attributes:
        title: the title the file gives, "" when it gives none.
        text: the body as clean text (see `markup`).
        metadata: fields as read (normalised later by `metadata.normalize`).
        part: a suffix for the document id when one file yields several documents ("page-3").
        warnings: what the parser could not read and left out (an include it does not follow).
    """

    title: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    part: str = ""
    warnings: list[str] = field(default_factory=list)
