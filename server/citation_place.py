"""Where a citation points, for a reader: the headings of the quoted text and the document's address.

Two citations of one document, or of two documents with one title, read alike by their title
alone; the headings and the address tell them apart and say where to look. Shared by the chat
reply's Sources list (server/markdown.py) and the terminal's (server/render.py). A citation is
read as the POST /rag body writes it (`Citation.to_dict()`); a field it lacks (a reply of an
older service) is treated as absent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_WEB_URL = re.compile(r"^https?://[^\s<>]+$", re.IGNORECASE)


def headings(citation: Mapping[str, Any]) -> list[str]:
    """The headings the cited text stands under, outermost first (the cited unit's `path`, else
    the chunk's `section`), without one that only repeats the document's title."""
    path = citation.get("path") or ([citation["section"]] if citation.get("section") else [])
    title = str(citation.get("title") or "").strip()
    return [str(h).strip() for h in path if str(h).strip() and str(h).strip() != title]


def web_address(citation: Mapping[str, Any]) -> str | None:
    """The document's own http(s) URL (metadata `url`), or None when it has none."""
    url = str(citation.get("url") or "").strip()
    return url if _WEB_URL.match(url) else None


def document_id(citation: Mapping[str, Any]) -> str:
    """The document's id in its knowledge base: its chunk id without "#<position>" (for a file,
    its path under the folder ingested, without the suffix)."""
    return str(citation.get("chunk_id") or "").rsplit("#", 1)[0]
