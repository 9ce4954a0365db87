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

import functools
import re
from dataclasses import dataclass, replace

from core.text import HAN, NON_HAN_WORD, has_han

from .formats.markup import FENCE, FIELD_DESCRIPTION_LINE, ITEM_LINE, ITEM_MARKER, VERSION_NOTE, field_name
from .formats.markup import TABLE_ROW as TABLE_ROW_LINE
from .units import CODE, DEFINITION, FIELD, HEADING, LIST_ITEM, PROSE_TYPES, SENTENCE, TABLE_ROW, Unit
from .units import VERSION_NOTE as VERSION_NOTE_UNIT

# Sentence ends: ., !, ? (followed by space and a capital, digit, quote or bracket) and the
# Chinese full stops, which need no following space.
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?P<closers>[\"')\]]*)\s+(?=[A-Z0-9\"'(\[\u4e00-\u9fff])"
    r"|(?<=[。！？；])\s*"
)
# ... and a name's initial ("Eric V. Smith", "Nathaniel J. Smith"): one capital after a word.
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Ms|Dr|No|Fig|approx|Inc|Ltd|Co|St|U\.S)\.$|"
                            r"(?<=[A-Za-z.] )[A-Z]\.$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
# "SLA - service level agreement", "CACHE_DIR (default 35): where ...", "术语：含义": a short term,
# then a colon or a spaced dash, then its meaning.
_DEFINITION = re.compile(r"^(?P<term>[^\s.,;:!?。，；：][^.,;:!?。，；：]{0,59}?)\s*(?::|：|\s[-–—]\s)\s*\S")
_TERM_LAST_WORD_STOP = frozenset({"the", "a", "an", "of", "to", "and", "or", "is", "are", "was", "be", "that",
                                  "this", "there", "following", "as", "for", "with", "in", "on"})
MAX_TERM_SIZE = 6  # words (CJK characters count half)


def is_definition(paragraph: str) -> bool:
    """True for a paragraph that opens with a short term and then its meaning ("SLA - service
    level agreement"), not a sentence leading into something ("The options are:")."""
    match = _DEFINITION.match(paragraph)
    if not match:
        return False
    term = match.group("term").strip()
    words = term.split()
    return (bool(words) and text_size(term) <= MAX_TERM_SIZE and _closed(term)
            and words[-1].lower() not in _TERM_LAST_WORD_STOP and len(paragraph) > match.end())


_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"), ("“", "”"), ("（", "）"))


def _closed(term: str) -> bool:
    """True when the term closes every quote and bracket it opens: the colon in 'A wheel with
    "Root-Is-Purelib: false" is ...' is inside a quotation, so what stands before it is no term."""
    return term.count('"') % 2 == 0 and term.count("`") % 2 == 0 \
        and all(term.count(open_) == term.count(close) for open_, close in _PAIRS)


def text_size(text: str) -> float:
    """The size of a text in words (CJK characters count half a word)."""
    return len(NON_HAN_WORD.findall(text)) + len(HAN.findall(text)) / 2


# A short parenthetical standing alone after a sentence ("... or None for no limits. (Default
# 100)") is that sentence's aside: read apart, the sentence lost its default and "(Default 100)"
# said nothing of what it was the default of.
_ASIDE = re.compile(r"^[(（][^()（）]*[)）][.。]?$")
MAX_ASIDE_SIZE = 8  # words


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph, in order, stripped; abbreviations do not end a sentence, and a
    short parenthetical after a sentence stays with it (`_ASIDE`)."""
    spans: list[tuple[int, int]] = []  # each sentence's [start, end) in `text`
    start = 0
    # a sentence keeps the quotes and brackets it closes ('He said "stop."', "(See the FAQ.)")
    ends = [(m.start() + len(m.group("closers") or ""), m.end()) for m in _SENTENCE_END.finditer(text)]
    for end, next_start in ends + [(len(text), len(text))]:
        candidate = text[start:end].strip()
        if end < len(text) and _ABBREVIATIONS.search(candidate):
            continue
        if candidate:
            if spans and _ASIDE.match(candidate) and text_size(candidate) <= MAX_ASIDE_SIZE:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        start = next_start
    return [text[a:b].strip() for a, b in spans]


@dataclass
class Block:
    """One unit-to-be (see `units.py`) with the section it falls under.

    `kind` is a unit type; headings, code blocks and table rows stand on their own lines, and
    the first sentence of a paragraph, a list item or a definition starts a line (`opens`); a
    list item's first sentence is written after `- `.
    """

    text: str
    section: str
    size: float
    kind: str = SENTENCE
    path: tuple[str, ...] = ()
    opens: bool = False
    name: str | None = None  # a field's documented name

    @property
    def heading(self) -> bool:
        return self.kind == HEADING

    @property
    def own_line(self) -> bool:
        return self.kind in (HEADING, CODE, TABLE_ROW)

    @property
    def marker(self) -> str:
        """What is written before the block's text: `- ` before a list item's first sentence."""
        return ITEM_MARKER if self.kind == LIST_ITEM and self.opens else ""


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


def _under(path: tuple[str, ...], levels: tuple[int, ...], level: int, title: str
           ) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The heading path after a heading of `level`: the headings above that level, then it."""
    keep = sum(1 for lv in levels if lv < level)
    return path[:keep] + (title,), levels[:keep] + (level,)


def _prose_blocks(text: str, section: str, path: tuple[str, ...], levels: tuple[int, ...]
                  ) -> tuple[list[Block], str, tuple[str, ...], tuple[int, ...]]:
    """Paragraphs and list items split into sentences; Markdown headings become section names,
    path steps and blocks, table rows blocks of their own. Returns the blocks and the section,
    heading path and heading levels in force at the end."""
    blocks: list[Block] = []

    def sentences(body: list[str], item: bool, field: str | None = None) -> None:
        if not body:
            return
        joined = " ".join(body) if not has_han(" ".join(body)) else "".join(body)
        kind = (LIST_ITEM if item else FIELD if field else VERSION_NOTE_UNIT if VERSION_NOTE.match(joined)
                else DEFINITION if is_definition(joined) else SENTENCE)
        for i, sentence in enumerate(split_sentences(joined)):
            # every sentence of an item is the item's, of a version note the note's
            own = kind if i == 0 or kind in (LIST_ITEM, VERSION_NOTE_UNIT) else SENTENCE
            blocks.append(Block(sentence, section, text_size(sentence), own, path, opens=i == 0,
                                name=field_name(field) if field and not i else None))
        body.clear()

    for paragraph in re.split(r"\n\s*\n", text):
        body: list[str] = []
        item = False
        lines = paragraph.strip().splitlines()
        if len(lines) > 1 and FIELD_DESCRIPTION_LINE.match(lines[1]) and not ITEM_LINE.match(lines[0]):
            label = lines[0].strip()  # a field: its label, then ": description" (formats/markup.py)
            sentences([f"{label}: {FIELD_DESCRIPTION_LINE.sub('', lines[1]).strip()}", *lines[2:]], False, label)
            continue
        for line in lines:
            heading = _HEADING.match(line)
            if heading:
                sentences(body, item)
                section = heading.group(2)
                path, levels = _under(path, levels, len(heading.group(1)), section)
                blocks.append(Block(section, section, text_size(section), HEADING, path[:-1], opens=True))
            elif TABLE_ROW_LINE.match(line):
                sentences(body, item)
                blocks.append(Block(line.strip(), section, text_size(line), TABLE_ROW, path, opens=True))
            elif ITEM_LINE.match(line):
                sentences(body, item)
                item = True
                body.append(ITEM_LINE.sub("", line).strip())
            else:
                body.append(line.strip())
        sentences(body, item)
    return blocks, section, path, levels


def _blocks(text: str, lines_are_paragraphs: bool = False) -> list[Block]:
    """The document as blocks: sentences, list items, definitions, headings, table rows and
    whole code blocks, each with its heading path (`lines_are_paragraphs`: a chunk's text, where
    every line starts a unit)."""
    blocks: list[Block] = []
    section = ""
    path: tuple[str, ...] = ()
    levels: tuple[int, ...] = ()
    for is_code, segment in _segments(text):
        if is_code:
            blocks.append(Block(segment, section, text_size(segment), CODE, path, opens=True))
        else:
            if lines_are_paragraphs:
                segment = segment.replace("\n", "\n\n")
            more, section, path, levels = _prose_blocks(segment, section, path, levels)
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
    return [Block(t, block.section, text_size(t), CODE, block.path, opens=True) for t in texts]


def _split_long(block: Block, limit: int) -> list[Block]:
    """Cut a single over-long sentence (or code block) into pieces of at most `limit` words."""
    if block.kind == CODE:
        return _split_code(block, limit)
    if has_han(block.text) and not block.text.count(" "):
        step = limit * 2
        parts = [block.text[i:i + step] for i in range(0, len(block.text), step)]
    else:
        words = block.text.split()
        parts = [" ".join(words[i:i + limit]) for i in range(0, len(words), limit)]
    return [Block(p, block.section, text_size(p), block.kind, block.path, opens=block.opens and not i,
                  name=None if i else block.name) for i, p in enumerate(parts)]


@dataclass
class Chunk:
    """A piece of a document as indexed: its text, the section it starts in, its position,
    whether it holds a fenced code block, and its answer units (`units.py`)."""

    text: str
    section: str
    position: int
    has_code: bool = False
    units: tuple[Unit, ...] = ()


def _joined(blocks: list[Block]) -> tuple[str, tuple[Unit, ...]]:
    """The text of consecutive blocks and their units.

    A block that opens a line (a paragraph, a list item, a heading, a code block, a table row)
    starts a new one; the sentences of one paragraph are joined by a space (none in Chinese).
    A list item's lead is the last prose unit before its list, unless a heading, code or table
    stands between them.
    """
    joiner = "" if all(has_han(b.text) for b in blocks) else " "
    text = ""
    units: list[Unit] = []
    for i, block in enumerate(blocks):
        if i:
            text += "\n" if (block.opens or blocks[i - 1].own_line) else joiner
        text += block.marker
        start = len(text)
        text += block.text
        units.append(Unit(block.kind, start, len(text), block.path, name=block.name))
    return text, _linked(units, text)


def _linked(units: list[Unit], text: str) -> tuple[Unit, ...]:
    """The units with their links: each list item's lead (the last prose unit before its list,
    unless a heading, code block or table row stands between them) and each field's version
    notes (those after it in the chunk that name it)."""
    out: list[Unit] = []
    lead: int | None = None
    for i, unit in enumerate(units):
        if unit.type == LIST_ITEM:
            out.append(replace(unit, lead=lead))
            continue
        out.append(unit)
        lead = i if unit.type in PROSE_TYPES else None
        note = VERSION_NOTE.match(unit.text_in(text)) if unit.type == VERSION_NOTE_UNIT else None
        owner = _owner(note, out) if note else None
        if note and owner is not None and note.group("label") not in out[owner].notes:
            out[owner] = replace(out[owner], notes=out[owner].notes + (note.group("label"),))
    return tuple(out)


_NOTE_OWNER = re.compile(r"\s*\((?P<owner>[^()]+)\)")


def _owner(note: re.Match[str], units: list[Unit]) -> int | None:
    """The field a version note belongs to: the one it names ("Changed in version 1.0 (CACHE_DIR)",
    as the reST and HTML readers write a note inside a description); none for a note that names
    no field (a changelog's, or one on a class around several fields)."""
    named = _NOTE_OWNER.match(note.string, note.end())
    if named is None:
        return None
    return next((i for i in range(len(units) - 1, -1, -1)
                 if units[i].type == FIELD and units[i].name == named.group("owner")), None)


def read_units(text: str) -> tuple[Unit, ...]:
    """The units of a chunk text stored without them (a build made before units were stored),
    read as the chunker reads a document; a unit not found verbatim is left out."""
    units: list[Unit] = []
    cursor = 0
    for block in _blocks(text, lines_are_paragraphs=True):
        start = text.find(block.text, cursor)
        if start < 0:
            continue
        cursor = start + len(block.text)
        units.append(Unit(block.kind, start, cursor, block.path, name=block.name))
    return _linked(units, text)


@functools.lru_cache(maxsize=4096)
def unit_texts(text: str, units: tuple[Unit, ...] | None) -> tuple[str, ...]:
    """The text of every unit of a chunk, in order (its stored units, or `read_units(text)` for a
    chunk stored without them): prose, headings, table rows, and each line of a code block
    without its fences. What a reader of a chunk's statements goes through; memoised."""
    out: list[str] = []
    for unit in units if units is not None else read_units(text):
        piece = unit.text_in(text)
        if unit.type == CODE:
            out.extend(line.strip() for line in piece.split("\n") if line.strip() and not FENCE.match(line))
        else:
            out.append(piece)
    return tuple(out)


def chunk_text(text: str, chunk_words: int = 200, overlap_words: int = 30) -> list[Chunk]:
    """Split a document body into sentence-aligned chunks, each with its answer units.

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
        joined, units = _joined(current)
        chunks.append(Chunk(joined, current[0].section, len(chunks), any(b.kind == CODE for b in current), units))

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
