"""Where a claim stands in the text it cites, and texts cut into pieces a template renders.

Everything here returns plain text pieces: the templates escape each one, so no text a trace
quotes (a document, a model's claim) is ever read as HTML or Markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.text import strip_markers

MARKERS = re.compile(r"\[\s*\d+(?:\s*[,，、]\s*\d+)*\s*\]")
NUMBER = re.compile(r"\d+")


@dataclass
class Piece:
    """A run of text: plain, a citation link, or a highlighted span.

    Attributes:
        text: the characters, shown as text.
        cite: the citation numbers this piece links to (an answer's `[n]` marker), else empty.
        claims: the claims (0-based) whose supporting span covers it (highlighted when any).
        anchors: ids of the spans that start here (what a claim's citation link jumps to).
    """

    text: str
    cite: list[int] = field(default_factory=list)
    claims: list[int] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)


def answer_pieces(text: str) -> list[Piece]:
    """An answer or claim cut at its citation markers: text pieces and one piece per marker
    (`cite`: its numbers, "[1, 2]" links to both)."""
    pieces: list[Piece] = []
    position = 0
    for match in MARKERS.finditer(text):
        if match.start() > position:
            pieces.append(Piece(text[position:match.start()]))
        pieces.append(Piece(match.group(0), cite=[int(n) for n in NUMBER.findall(match.group(0))]))
        position = match.end()
    if position < len(text):
        pieces.append(Piece(text[position:]))
    return pieces


def span_anchor(claim: int, n: int) -> str:
    """The element id of claim `claim`'s supporting span in citation `n`'s text."""
    return f"span-{claim}-{n}"


def _find(needle: str, haystack: str) -> tuple[int, int] | None:
    """Where `needle` occurs in `haystack`, any run of whitespace matching any other."""
    words = needle.split()
    if not words:
        return None
    match = re.search(r"\s+".join(re.escape(w) for w in words), haystack)
    return (match.start(), match.end()) if match else None


def supporting_spans(claim: dict[str, Any], snippet: str | None, text: str) -> list[tuple[int, int]]:
    """Where `text` (a cited chunk) supports a claim.

    Promises: the claim's own sentence (markers removed) when the chunk writes it; else the
    cited unit (`snippet`); else each number the claim states that the chunk writes (a derived
    relation such as "A is lower than B"); [] when none of these is found.
    """
    for candidate in (strip_markers(claim.get("text") or ""), snippet or ""):
        found = _find(candidate.rstrip(".。"), text) if candidate else None
        if found:
            return [found]
    spans = [_find(number, text) for number in claim.get("numbers") or []]
    return sorted({span for span in spans if span})


def marked_pieces(text: str, spans: list[tuple[int, int, int, str]]) -> list[Piece]:
    """`text` cut at the edges of `spans` (start, end, claim, anchor id or "" for none), each piece
    listing the claims covering it and the anchors starting at it; overlapping spans nest naturally."""
    edges = sorted({0, len(text), *(s for s, _, _, _ in spans), *(e for _, e, _, _ in spans)})
    pieces = []
    for start, end in zip(edges, edges[1:], strict=False):
        if start >= end:
            continue
        covering = sorted({claim for s, e, claim, _ in spans if s <= start and end <= e})
        anchors = [anchor for s, _, _, anchor in spans if s == start and anchor]
        pieces.append(Piece(text[start:end], claims=covering, anchors=anchors))
    return pieces
