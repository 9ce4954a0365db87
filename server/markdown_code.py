"""Rewriting Markdown text outside its code, as a CommonMark renderer reads the text.

A chat window shows a fenced code block and a code span as written: no link, image, HTML or web
address in them is live. So the rewrites that make an answer safe to render (server/sanitize.py:
links, images, addresses; server/markdown.py: HTML) leave code as the source wrote it.

Where the code is comes from markdown-it-py, the CommonMark parser (with GFM tables): its fenced
blocks, and the code spans of its paragraphs, headings and table rows. Where a renderer could
read the text otherwise (a backtick inside a link's address, a code span across a table's
cells), holding the code out could leave something live; `rewrite_outside_code` checks its
result with the same parser and rewrites the whole text instead when it would.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt

# a web address a renderer may turn into a link by itself (GFM autolinks)
WEB_ADDRESS = re.compile(r"(?<![\w@/.-])((?:https?|ftp)://|www\.)[^\s<>()\[\]`]*", re.IGNORECASE)
_PARSER = MarkdownIt("commonmark").enable("table")
_BACKTICKS = re.compile(r"`+")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_HELD = "\x01{}\x01"  # stands for the n-th held-out piece of code while the rest is rewritten
_HELD_PIECE = re.compile("\x01(\\d+)\x01")


def rewrite_outside_code(text: str, rewrite: Callable[[str], str]) -> str:
    """The text with `rewrite` applied to all but its code, the code as written.

    Promises: the result never makes live (`live_parts`) what `rewrite(text)`, the whole text
    rewritten, does not; where holding the code out would, the whole text rewritten is returned.
    `rewrite` must keep the pieces of text standing for the code ("\\x01<n>\\x01") as they are;
    it may drop one (a link removed with the code span in its label). A "\\x01" in the text
    (a control character no renderer shows) is dropped.
    """
    text = text.replace("\x01", "")
    whole = rewrite(text)
    ranges = code_ranges(text)
    if not ranges:
        return whole
    pieces: list[str] = []
    held: list[str] = []
    end = 0
    for start, stop in ranges:
        held.append(text[end:start] + _HELD.format(len(pieces)))
        pieces.append(text[start:stop])
        end = stop
    held.append(text[end:])
    kept = _HELD_PIECE.sub(lambda m: pieces[int(m.group(1))], rewrite("".join(held)))
    return kept if live_parts(kept) <= live_parts(whole) else whole


def code_ranges(text: str) -> list[tuple[int, int]]:
    """The (start, end) character ranges of the text's fenced code blocks and code spans, in order."""
    if "`" not in text and "~" not in text:
        return []
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def offset(line: int) -> int:
        return starts[line] if line < len(starts) else len(text)

    ranges: list[tuple[int, int]] = []
    for token in _PARSER.parse(text):
        if token.map is None:
            continue
        first, last = token.map
        if token.type == "fence":
            ranges.append((offset(first), offset(last)))
        elif token.type == "inline":
            ranges += code_spans(text, offset(first), offset(last))
    return sorted(set(ranges))


def code_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The code spans between `start` and `end` as CommonMark finds them: a run of backticks no
    backslash escapes, closed by the next run of the same length (an unclosed run is text)."""
    spans: list[tuple[int, int]] = []
    at = start
    while (opening := _BACKTICKS.search(text, at, end)) is not None:
        if _escaped(text, opening.start()):
            at = opening.start() + 1  # the escaped backtick is text; the rest of the run may open a span
            continue
        closing = _BACKTICKS.search(text, opening.end(), end)
        while closing is not None and len(closing.group()) != len(opening.group()):
            closing = _BACKTICKS.search(text, closing.end(), end)
        if closing is None:
            at = opening.end()
            continue
        spans.append((opening.start(), closing.end()))
        at = closing.end()
    return spans


def _escaped(text: str, index: int) -> bool:
    """True when the character at `index` follows an odd number of backslashes."""
    backslashes = 0
    while index - backslashes > 0 and text[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def live_parts(text: str) -> frozenset[str]:
    """What a renderer makes live of the text, as markdown-it-py reads it: link and image
    targets ("link:<href>", "image:<src>"), raw HTML ("html:<html>") and web addresses in its
    prose ("address:<address>")."""
    parts: set[str] = set()
    for token in _PARSER.parse(text):
        if token.type == "html_block":
            parts.add(f"html:{token.content}")
        for child in token.children or ():
            if child.type == "html_inline":
                parts.add(f"html:{child.content}")
            elif child.type == "link_open":
                parts.add(f"link:{child.attrGet('href')}")
            elif child.type == "image":
                parts.add(f"image:{child.attrGet('src')}")
            elif child.type == "text":
                parts.update(f"address:{m.group(0)}" for m in WEB_ADDRESS.finditer(child.content))
    return frozenset(parts)
