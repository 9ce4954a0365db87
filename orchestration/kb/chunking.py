"""Sentence-aware chunking: about `chunk_words` words a chunk, a small overlap, title kept.

Sentences are never cut unless one alone is longer than a chunk. Size is counted in words
for Latin script and in CJK characters / 2 for Chinese (about one word per two characters),
so Chinese and English chunks carry a similar amount of text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import HAN, NON_HAN_WORD, has_han

# Sentence ends: ., !, ? (followed by space and a capital, digit, quote or bracket) and the
# Chinese full stops, which need no following space.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[\u4e00-\u9fff])"
    r"|(?<=[。！？；])\s*"
)
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Ms|Dr|No|Fig|approx|Inc|Ltd|Co|St|U\.S)\.$")
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
    """A sentence (or a heading line) with the section heading it falls under."""

    text: str
    section: str
    size: float
    heading: bool = False


def _blocks(text: str) -> list[Block]:
    """Paragraphs split into sentences; Markdown headings become section names and blocks."""
    blocks: list[Block] = []
    section = ""
    for paragraph in re.split(r"\n\s*\n", text):
        lines = paragraph.strip().splitlines()
        body: list[str] = []
        for line in lines:
            heading = _HEADING.match(line)
            if heading:
                if body:
                    blocks.extend(Block(s, section, text_size(s)) for s in split_sentences(" ".join(body)))
                    body = []
                section = heading.group(2)
                blocks.append(Block(section, section, text_size(section), heading=True))
            else:
                body.append(line.strip())
        if body:
            joined = " ".join(body) if not has_han(" ".join(body)) else "".join(body)
            blocks.extend(Block(s, section, text_size(s)) for s in split_sentences(joined))
    return blocks


def _split_long(block: Block, limit: int) -> list[Block]:
    """Cut a single over-long sentence into pieces of at most `limit` words."""
    if has_han(block.text) and not block.text.count(" "):
        step = limit * 2
        parts = [block.text[i:i + step] for i in range(0, len(block.text), step)]
    else:
        words = block.text.split()
        parts = [" ".join(words[i:i + limit]) for i in range(0, len(words), limit)]
    return [Block(p, block.section, text_size(p)) for p in parts]


@dataclass
class Chunk:
    """A piece of a document as indexed: its text, the section it starts in, its position."""

    text: str
    section: str
    position: int


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
        # A heading ends its line, so a reader (or the composer) never sees it glued to a sentence.
        joiner = "" if all(has_han(b.text) for b in current) else " "
        text = ""
        for i, block in enumerate(current):
            if i:
                text += "\n" if (current[i - 1].heading or block.heading) else joiner
            text += block.text
        chunks.append(Chunk(text, current[0].section, len(chunks)))

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
