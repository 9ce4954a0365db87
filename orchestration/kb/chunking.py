"""Sentence-aware chunking: about `chunk_words` words a chunk, a small overlap, title kept.

Sentences are never cut unless one alone is longer than a chunk. Size is counted in words
for Latin script and in CJK characters / 2 for Chinese (about one word per two characters),
so Chinese and English chunks carry a similar amount of text.

Layout stays layout (the clean-text rule of `formats/markup.py`): a fenced code block is kept
whole, on its own lines, fences included (one longer than a chunk is cut between lines, each
piece fenced again), and a table row stays one line; neither is ever split into sentences or
glued to one, so the composer recognises both. `Chunk.has_code` says a chunk holds code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import HAN, NON_HAN_WORD, has_han

from .formats.markup import FENCE, TABLE_ROW

# Sentence ends: ., !, ? (followed by space and a capital, digit, quote or bracket) and the
# Chinese full stops, which need no following space.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[\u4e00-\u9fff])"
    r"|(?<=[。！？；])\s*"
)
# ... and a name's initial ("Eric V. Smith", "Nathaniel J. Smith"): one capital after a word.
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Ms|Dr|No|Fig|approx|Inc|Ltd|Co|St|U\.S)\.$|"
                            r"(?<=[A-Za-z.] )[A-Z]\.$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def text_size(text: str) -> float:
    """The size of a text in words (CJK characters count half a word)."""
    return len(NON_HAN_WORD.findall(text)) + len(HAN.findall(text)) / 2


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph, in order, stripped; abbreviations do not end a sentence."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start:match.start()].strip()
        if _ABBREVIATIONS.search(candidate):
            continue
        if candidate:
            pieces.append(candidate)
        start = match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return pieces


@dataclass
class Block:
    """A sentence, a heading line, a code block or a table row, with the section it falls under.

    `kind` is "sentence", "heading", "code" or "row"; all but sentences stand on their own lines.
    """

    text: str
    section: str
    size: float
    kind: str = "sentence"

    @property
    def heading(self) -> bool:
        return self.kind == "heading"

    @property
    def own_line(self) -> bool:
        return self.kind != "sentence"


def _segments(text: str) -> list[tuple[bool, str]]:
    """(is_code, text) runs in order: each fenced block (fences included; an unclosed one is
    closed at the end) and the prose between them."""
    out: list[tuple[bool, str]] = []
    lines = text.split("\n")
    prose: list[str] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            prose.append(lines[i])
            i += 1
            continue
        marker = lines[i].strip()[:3]
        ticks = re.match(r"`+|~+", lines[i].strip())
        closing = ticks.group(0) if ticks else marker
        end = i + 1
        while end < len(lines) and not (lines[end].strip().startswith(closing)
                                        and not lines[end].strip().strip(closing[0])):
            end += 1
        if prose:
            out.append((False, "\n".join(prose)))
            prose = []
        block = lines[i:end + 1] if end < len(lines) else lines[i:] + [closing]
        out.append((True, "\n".join(line.rstrip() for line in block)))
        i = end + 1
    if prose:
        out.append((False, "\n".join(prose)))
    return out


def _prose_blocks(text: str, section: str) -> tuple[list[Block], str]:
    """Paragraphs split into sentences; Markdown headings become section names and blocks,
    table rows blocks of their own. Returns the blocks and the section in force at the end."""
    blocks: list[Block] = []

    def sentences(body: list[str]) -> None:
        if body:
            joined = " ".join(body) if not has_han(" ".join(body)) else "".join(body)
            blocks.extend(Block(s, section, text_size(s)) for s in split_sentences(joined))
            body.clear()

    for paragraph in re.split(r"\n\s*\n", text):
        body: list[str] = []
        for line in paragraph.strip().splitlines():
            heading = _HEADING.match(line)
            if heading:
                sentences(body)
                section = heading.group(2)
                blocks.append(Block(section, section, text_size(section), kind="heading"))
            elif TABLE_ROW.match(line):
                sentences(body)
                blocks.append(Block(line.strip(), section, text_size(line), kind="row"))
            else:
                body.append(line.strip())
        sentences(body)
    return blocks, section


def _blocks(text: str) -> list[Block]:
    """The document as blocks: sentences, headings, table rows and whole code blocks."""
    blocks: list[Block] = []
    section = ""
    for is_code, segment in _segments(text):
        if is_code:
            blocks.append(Block(segment, section, text_size(segment), kind="code"))
        else:
            more, section = _prose_blocks(segment, section)
            blocks.extend(more)
    return blocks


def _split_code(block: Block, limit: int) -> list[Block]:
    """Cut an over-long code block between lines into pieces of about `limit` words, each fenced."""
    lines = block.text.split("\n")
    opening, closing, body = lines[0], lines[-1], lines[1:-1]
    pieces: list[list[str]] = [[]]
    size = 0.0
    for line in body:
        line_size = text_size(line)
        if pieces[-1] and size + line_size > limit:
            pieces.append([])
            size = 0.0
        pieces[-1].append(line)
        size += line_size
    texts = ["\n".join([opening, *piece, closing]) for piece in pieces if piece]
    return [Block(t, block.section, text_size(t), kind="code") for t in texts]


def _split_long(block: Block, limit: int) -> list[Block]:
    """Cut a single over-long sentence (or code block) into pieces of at most `limit` words."""
    if block.kind == "code":
        return _split_code(block, limit)
    if has_han(block.text) and not block.text.count(" "):
        step = limit * 2
        parts = [block.text[i:i + step] for i in range(0, len(block.text), step)]
    else:
        words = block.text.split()
        parts = [" ".join(words[i:i + limit]) for i in range(0, len(words), limit)]
    return [Block(p, block.section, text_size(p), kind=block.kind) for p in parts]


@dataclass
class Chunk:
    """A piece of a document as indexed: its text, the section it starts in, its position,
    and whether it holds a fenced code block."""

    text: str
    section: str
    position: int
    has_code: bool = False


def chunk_text(text: str, chunk_words: int = 200, overlap_words: int = 30) -> list[Chunk]:
    """Split a document body into sentence-aligned chunks.

    Args:
        text: the document body.
        chunk_words: target chunk size; a chunk closes before the sentence that would exceed it.
        overlap_words: about this many words of trailing sentences start the next chunk too.

    Returns:
        Chunks in document order; an empty list for a text with no words.
    """
    blocks: list[Block] = []
    for block in _blocks(text):
        blocks.extend(_split_long(block, chunk_words) if block.size > chunk_words else [block])
    chunks: list[Chunk] = []
    current: list[Block] = []
    size = 0.0
    fresh = 0  # blocks in `current` not already emitted in the previous chunk

    def emit() -> None:
        # A heading, a code block or a table row ends its line, so a reader (or the composer)
        # never sees it glued to a sentence.
        joiner = "" if all(has_han(b.text) for b in current) else " "
        text = ""
        for i, block in enumerate(current):
            if i:
                text += "\n" if (current[i - 1].own_line or block.own_line) else joiner
            text += block.text
        chunks.append(Chunk(text, current[0].section, len(chunks), any(b.kind == "code" for b in current)))

    for block in blocks:
        if current and size + block.size > chunk_words and fresh:
            emit()
            carried: list[Block] = []
            carried_size = 0.0
            for previous in reversed(current):
                if carried_size + previous.size > overlap_words:
                    break
                carried.insert(0, previous)
                carried_size += previous.size
            current, size, fresh = carried, carried_size, 0
        current.append(block)
        size += block.size
        fresh += 1
    if current and fresh:
        emit()
    return chunks
