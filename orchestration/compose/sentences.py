"""Candidate answers: the quotable answer units of the evidence chunks.

The units are the ones the ingest stored with each chunk (`orchestration/kb/units.py`); nothing
here splits text. Promises: every `Candidate.text` is an exact substring of its chunk's text (a
validator can find it verbatim), except a table row, which reads as its cells with their column
names ("Guido van Rossum – Votes Received: 45.": each cell and name verbatim in the chunk); a
heading glued to the front of a sentence in the source text (the document title, the chunk's
section, or a short English heading followed by a sentence-opening word) is cut off, never
anything else; headings and fragments on their own are dropped. The output order is
deterministic: evidence order, then position in the chunk.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from core.reading.dates import stated_dates
from core.reading.quantities import stated_quantities
from core.text import HAN, has_han, is_question
from orchestration.kb import units as unit_types
from orchestration.kb.chunking import read_units, text_size
from orchestration.kb.formats.markup import FENCE, ITEM_MARKER, is_markup, is_separator_row, table_cells
from orchestration.kb.units import Unit
from orchestration.retrieval.scored import ScoredChunk
from orchestration.textcache import term_set

from .language import sentence_language

# A short English heading ("Fuel burn", "Who handles a mismatch") the chunker glued to a
# sentence that opens with one of these words.
_OPENERS = ("The", "This", "These", "Those", "It", "Its", "All", "If", "When", "No", "Each",
            "Every", "After", "Before", "During", "Our", "We", "Any", "Where", "Unless", "Only",
            "Both", "There", "In", "On", "For", "Under")
_GLUED_HEADING = re.compile(
    r"^(?P<head>[A-Z0-9][^.!?;。！？]{0,80}?[A-Za-z0-9)])\s+(?=(?:" + "|".join(_OPENERS) + r")\s)")
# "What triggers E4027 E4027 is triggered ...": a heading ending in the code the sentence opens with.
_REPEATED_CODE = re.compile(r"^(?P<head>[A-Z][^.!?;。！？]{0,60}?\b(?P<code>[A-Z]+\d+[\w-]*))\s+(?=(?P=code)\b)")
_HEAD_LAST_WORD_STOP = {"the", "of", "a", "an", "to", "and", "or", "in", "for", "with", "by",
                        "on", "at", "from", "as", "is", "are", "was", "were", "be"}
_TERMINAL = re.compile(r"[.!?。！？；;:)）\"”']\s*$")


@dataclass
class Candidate:
    """One quotable answer unit of one evidence chunk.

    Attributes:
        text: the unit, an exact substring of `chunk.text` (a table row: `table_row_sentence`).
        chunk: the evidence chunk it comes from.
        rank: the chunk's 0-based position in the evidence (best first).
        position: the unit's 0-based position among the chunk's candidates.
        start: character offset of `text` in `chunk.text`.
        language: "zh" or "en" (see `language.sentence_language`).
        unit: what it is in its document (`orchestration/kb/units.py`: sentence, list_item,
            definition, heading, code, table_row).
        path: the headings it falls under, outermost first.
        lead: for a list item, the sentence introducing its list ("" when none is in the chunk).
        name: for a field, the documented name it describes.
    """

    text: str
    chunk: ScoredChunk
    rank: int
    position: int
    start: int
    language: str
    score: float = 0.0
    notes: dict = field(default_factory=dict)
    unit: str = unit_types.SENTENCE
    path: tuple[str, ...] = ()
    lead: str = ""
    name: str = ""  # a field's documented name ("CACHE_DIR")

    @cached_property
    def tokens(self) -> frozenset[str]:
        """The sentence's BM25 terms (stemmed, codes whole) as a set."""
        return term_set(self.text)

    @cached_property
    def context_tokens(self) -> frozenset[str]:
        """Terms of the unit read where it stands: with its document title, its headings and, for a
        list item, the sentence introducing its list (for side and topic matching: "It does not
        support X." under a heading naming its subject)."""
        return self.tokens | term_set(self.chunk.title or "") | term_set(" ".join(self.path)) | term_set(self.lead)

    @cached_property
    def quantities(self):
        """Quantities stated in the sentence (parts of codes such as LEAP-1A26 excluded)."""
        return stated_quantities(self.text)

    @cached_property
    def dates(self):
        """Calendar dates written in the sentence, with their text."""
        return stated_dates(self.text)

    @property
    def key(self) -> tuple[str, int]:
        """A stable identity: (chunk id, offset in the chunk)."""
        return (self.chunk.chunk_id, self.start)


def strip_glued_heading(sentence: str, headings: Sequence[str] = ()) -> str:
    """The sentence without a heading glued to its front; the rest is returned unchanged.

    Args:
        sentence: one sentence from `split_sentences`.
        headings: known headings of the chunk (its document title, its section).

    Returns:
        A suffix of `sentence` (possibly the whole of it).
    """
    changed = True
    while changed:
        changed = False
        for heading in headings:
            heading = (heading or "").strip()
            if heading and len(sentence) > len(heading) + 1 and sentence.lower().startswith(heading.lower()):
                rest = sentence[len(heading):].lstrip()
                if rest and rest[0] not in ",.;:，。；：" and not rest[0].islower():
                    sentence, changed = rest, True
        repeated = _REPEATED_CODE.match(sentence)
        if repeated and len(sentence[repeated.end():].split()) >= 4:
            sentence, changed = sentence[repeated.end():], True
            continue
        match = _GLUED_HEADING.match(sentence)
        if match and not has_han(match.group("head")):
            last = match.group("head").split()[-1].lower()
            rest = sentence[match.end():]
            short = len(match.group("head").split()) <= 10
            if short and last not in _HEAD_LAST_WORD_STOP and len(rest.split()) >= 4:
                sentence, changed = rest, True
    return sentence


def is_fragment(sentence: str) -> bool:
    """True for headings and fragments: too short to state anything, or no sentence ending."""
    cjk = len(HAN.findall(sentence))
    words = text_size(sentence)
    if cjk >= 4:  # a Chinese line without end punctuation is a heading ("发票金额与合同不一致的处理流程")
        return cjk < 6 or (not _TERMINAL.search(sentence) and cjk < 24)
    return words < 4 or (not _TERMINAL.search(sentence) and words < 8)


def chunk_headings(chunk: ScoredChunk) -> list[str]:
    """The headings a chunk is known to carry: its document title and its section."""
    return [chunk.title or "", str(chunk.metadata.get("title") or ""), str(chunk.metadata.get("section") or "")]


def chunk_units(chunk: ScoredChunk) -> tuple[Unit, ...]:
    """The chunk's answer units: as the ingest stored them, or read from its text (a build made
    before units were stored)."""
    return chunk.units if chunk.units is not None else read_units(chunk.text)


def chunk_candidates(chunk: ScoredChunk, rank: int, headings: Sequence[str] = (),
                     keep_code: bool = False) -> list[Candidate]:
    """The quotable units of one chunk, in order.

    The chunk's units (`chunk_units`) are quoted as they are: sentences, list items and
    definitions as text (a sentence loses a heading glued to its front and is kept only if it
    is not a fragment; a list item or definition needs `MIN_ITEM_WORDS`); a table's data rows
    read with their header (`table_row_sentence`, marked `notes["table"]`); a fenced code block
    only when `keep_code` (the question asks for configuration or a command), marked
    `notes["code"]`. A heading is quoted only when it is no fragment (as a sentence); short ones
    are their units' paths.

    Args:
        chunk: the evidence chunk.
        rank: its 0-based position in the evidence.
        headings: known headings of its document (default: the chunk's own title and section).
        keep_code: quote whole fenced code blocks as candidates.
    """
    headings = sorted(set(h for h in (list(headings) or chunk_headings(chunk)) if h), key=lambda h: (-len(h), h))
    out: list[Candidate] = []
    for text, start, language, kind, unit, lead in _quotable(chunk.text, chunk_units(chunk), tuple(headings),
                                                              keep_code):
        candidate = Candidate(text, chunk, rank, len(out), start, language, unit=unit.type, path=unit.path,
                              lead=lead, name=unit.name or "")
        if kind != SENTENCE:
            candidate.notes[kind] = True
        out.append(candidate)
    return out


SENTENCE, CODE, TABLE = "sentence", "code", "table"  # what a candidate quotes
MIN_ITEM_WORDS = 2  # a list item or definition shorter than this ("Linux", "-v") says nothing alone
# ("Default: false" under its setting's heading does)
_NUMERIC_CELL = re.compile(r"^[\d\s.,%$€£¥+\-–/:]+$")


def is_header_row(cells: Sequence[str]) -> bool:
    """True for a row that can name columns: two cells at least, none empty or a bare number (a
    chunk that starts inside a table starts with a data row: "| Guido van Rossum | 45 |")."""
    return len(cells) >= 2 and all(c and not _NUMERIC_CELL.match(c) for c in cells)


def table_row_sentence(header: Sequence[str], cells: Sequence[str]) -> str | None:
    """A data row read with its header: "Guido van Rossum – Votes Received: 45." for the header
    | Candidate | Votes Received |; None for a row that does not fit the header or says nothing."""
    if len(cells) != len(header) or not cells[0]:
        return None
    pairs = [f"{name}: {value}" for name, value in zip(header[1:], cells[1:], strict=True) if value]
    return f"{cells[0]} – {'; '.join(pairs)}." if pairs else None


# a heading is quoted when it states something, as a sentence does ("Fault Code E5102: APU Start
# Failure (737 MAX 8 and 737-800)"); a short one ("Options") is only its units' path
QUOTED_TYPES = unit_types.PROSE_TYPES | {unit_types.HEADING}
READ_AS_SENTENCES = frozenset({unit_types.SENTENCE, unit_types.HEADING})
Quotable = tuple[str, int, str, str, Unit, str]  # text, start, language, SENTENCE / CODE / TABLE, unit, lead


@functools.lru_cache(maxsize=2048)
def _quotable(text: str, units: tuple[Unit, ...], headings: tuple[str, ...], keep_code: bool) -> tuple[Quotable, ...]:
    """(text, start, language, SENTENCE / CODE / TABLE, unit, lead) of a chunk's units, in order
    (`chunk_candidates`'s reading of them; memoised: evidence recurs across tasks, retries and
    requests)."""
    out: list[Quotable] = []
    header: list[str] | None = None  # the current table's column names ([] once known unusable)
    for unit in units:
        raw = unit.text_in(text)
        if unit.type == unit_types.TABLE_ROW:
            if is_separator_row(raw):
                continue
            cells = table_cells(raw)
            if header is None:
                header = cells if is_header_row(cells) else []
                continue
            row = table_row_sentence(header, cells) if header else None
            if row is not None:
                out.append((row, unit.start, sentence_language(row), TABLE, unit, ""))
            continue
        header = None
        if unit.type == unit_types.CODE:
            code = "\n".join(line for line in raw.split("\n") if not FENCE.match(line)).strip("\n")
            start = text.find(code, unit.start) if code.strip() else -1
            if keep_code and start >= 0:
                out.append((code, start, "en", CODE, unit, ""))
            continue
        if unit.type not in QUOTED_TYPES or is_markup(raw):
            continue
        sentence = strip_glued_heading(raw, headings) if unit.type == unit_types.SENTENCE else raw
        if is_fragment(sentence) if unit.type in READ_AS_SENTENCES else text_size(sentence) < MIN_ITEM_WORDS:
            continue
        lead = units[unit.lead].text_in(text) if unit.lead is not None else ""
        out.append((sentence, unit.start + len(raw) - len(sentence), sentence_language(sentence), SENTENCE,
                    unit, lead))
    return tuple(out)


def code_after(candidate: Candidate) -> Candidate | None:
    """The fenced code block that a lead-in ("Use the following command to generate one:")
    introduces: the block right after the sentence in its chunk (nothing but blank lines and its
    opening fence between them), when the sentence ends with a colon; None otherwise. The block is
    the chunk's own code unit (`_quotable`: verbatim, only a closed fence), marked `notes["code"]`."""
    if not candidate.text.rstrip().endswith((":", "：")) or candidate.notes.get("code"):
        return None
    text = candidate.chunk.text
    end = candidate.start + len(candidate.text)
    following = next(((code, start, kind, unit) for code, start, _language, kind, unit, _lead
                      in _quotable(text, chunk_units(candidate.chunk), (), True) if start >= end), None)
    if following is None or following[2] != CODE:
        return None
    code, start, _kind, unit = following
    if any(line.strip() and not FENCE.match(line) for line in text[end:start].split("\n")):
        return None
    block = Candidate(code, candidate.chunk, candidate.rank, candidate.position + 1, start, "en",
                      unit=unit_types.CODE, path=unit.path)
    block.notes["code"] = True
    return block


MAX_LIST_ITEMS = 20  # items of one list quoted together (a release schedule lists 15)


def items_after(candidate: Candidate) -> list[Candidate]:
    """The items of the list a lead-in introduces ("There are three kinds of PEP:"): the first
    sentence of each list item the ingest recorded with this unit as its lead, in order, at
    most `MAX_LIST_ITEMS`; [] for a unit that ends without a colon or introduces no list."""
    if not candidate.text.rstrip().endswith((":", "：")) or candidate.notes.get("code"):
        return []
    index = _unit_index(candidate)
    return [] if index is None else _list_items(candidate, lambda _i, unit: unit.lead == index)


def list_of(candidate: Candidate) -> list[Candidate]:
    """The items of the list a list item belongs to (the run of list items around it in its
    chunk), the first sentence of each, in list order, at most `MAX_LIST_ITEMS`; [] for a unit
    that is no list item."""
    index = _unit_index(candidate) if candidate.unit == unit_types.LIST_ITEM else None
    if index is None:
        return []
    units = chunk_units(candidate.chunk)
    first = last = index
    while first > 0 and units[first - 1].type == unit_types.LIST_ITEM:
        first -= 1
    while last + 1 < len(units) and units[last + 1].type == unit_types.LIST_ITEM:
        last += 1
    return _list_items(candidate, lambda i, _unit: first <= i <= last)


def _unit_index(candidate: Candidate) -> int | None:
    """The index, among its chunk's units, of the unit a candidate quotes."""
    return next((i for i, unit in enumerate(chunk_units(candidate.chunk))
                 if unit.start <= candidate.start < unit.end), None)


def _list_items(candidate: Candidate, belongs: Callable[[int, Unit], bool]) -> list[Candidate]:
    """The first sentence of each list item of the candidate's chunk that `belongs` (its index
    among the chunk's units, the unit), read as `chunk_candidates` reads it, in order, at most
    `MAX_LIST_ITEMS`."""
    text, units = candidate.chunk.text, chunk_units(candidate.chunk)
    index = {unit.start: i for i, unit in enumerate(units)}  # a unit's start is its identity in the chunk
    out: list[Candidate] = []
    for quoted, start, language, _kind, unit, lead in _quotable(text, units, (), False):
        opens_item = text[max(0, unit.start - len(ITEM_MARKER)):unit.start] == ITEM_MARKER
        if unit.type == unit_types.LIST_ITEM and opens_item and belongs(index[unit.start], unit):
            out.append(Candidate(quoted, candidate.chunk, candidate.rank, candidate.position + 1 + len(out), start,
                                 language, unit=unit_types.LIST_ITEM, path=unit.path, lead=lead))
            if len(out) == MAX_LIST_ITEMS:
                break
    return out


def evidence_candidates(evidence: Sequence[ScoredChunk], keep_code: bool = False) -> list[Candidate]:
    """Candidates of every chunk, evidence order then sentence order (code blocks when `keep_code`)."""
    by_doc: dict[str, set[str]] = {}
    for chunk in evidence:  # every section heading seen in a document's chunks helps all of them
        by_doc.setdefault(chunk.doc_id, set()).update(chunk_headings(chunk))
    out: list[Candidate] = []
    for rank, chunk in enumerate(evidence):
        out.extend(chunk_candidates(chunk, rank, sorted(by_doc[chunk.doc_id]), keep_code))
    return out


# A unit that opens with a pronoun speaks of what its heading names ("It does not support X."
# under "Lite edition").
# Not an expletive "It is possible to ..."; not a heading that names a part of any document
# ("Abstract", "Rationale"), which says nothing of what "It" is.
_OPENS_WITH_PRONOUN = re.compile(r"^(?:It|Its|They|Their)\b(?!\s+(?:is|was)\s+(?:possible|"
                                 r"recommended|important|necessary|not\s+possible)\b)")
_DOCUMENT_PART = re.compile(r"^(?:abstract|introduction|overview|summary|rationale|motivation|background|"
                            r"description|details|notes?|usage|examples?|specification|discussion|faq)"
                            r"(?:\s+and\s+\w+)?$", re.I)


def heading_subject(candidate: Candidate) -> str:
    """The heading a unit that opens with a pronoun speaks of (its innermost heading, when the
    chunk writes it), or "" (no pronoun, no heading, or a heading the chunk does not write: a
    claim must be checkable against what it cites)."""
    if candidate.unit == unit_types.CODE or not candidate.path or not _OPENS_WITH_PRONOUN.match(candidate.text):
        return ""
    heading = candidate.path[-1].strip()
    if not heading or heading not in candidate.chunk.text or _DOCUMENT_PART.match(heading) or is_question(heading):
        return ""  # an FAQ's heading asks; it names no subject
    return heading
