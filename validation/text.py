"""Reading claims and chunks the same way: markers, quantities, dates, years, terms, mentions.

Every check reads text through these helpers, and they read it with the readers the composer
uses (`core.reading`: quantities, units, dates, mentions) and the BM25 tokeniser, so "2,290 kg/h"
in a claim and "2,290 kg per block hour" in a chunk are the same quantity, and "burns" meets
"burn". A claim's citation markers are cut before it is read.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from core.reading.dates import date_spans, date_values
from core.reading.mentions import mentions  # noqa: F401 - the shared matcher, read as tx.mentions
from core.reading.quantities import Quantity, stated_quantities
from core.reading.units import unit_base, units_compatible  # noqa: F401 - read by the checks as tx.unit_base, ...
from core.text import has_han, strip_markers  # noqa: F401 - read by every check as tx.strip_markers
from orchestration.kb.chunking import unit_texts
from orchestration.retrieval.scored import ScoredChunk
from orchestration.retrieval.tokenize import is_code, tokenize

_YEAR = re.compile(r"(?<![\d.,])(?:19|20)\d\d(?!\d|[.,]\d)")
_COMPACT = re.compile(r"[\s\-_]+")
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _inside(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    """True when `span` overlaps one of `spans`."""
    return any(span[0] < end and start < span[1] for start, end in spans)


@functools.lru_cache(maxsize=4096)
def quantities(text: str) -> tuple[Quantity, ...]:
    """The quantities a text states (`core.reading.quantities.stated_quantities`), markers removed."""
    return tuple(stated_quantities(strip_markers(text)))


@functools.lru_cache(maxsize=4096)
def source_quantities(text: str) -> tuple[Quantity, ...]:
    """The quantities a source's text states, as written: a document carries no citation markers,
    and its own brackets are its text ("returns <Response [200]>", "array[0]")."""
    return tuple(stated_quantities(text))


def same_value(a: float, b: float, rel_tol: float = 1e-9) -> bool:
    """True when two numbers are equal (to floating-point noise; no rounding tolerance)."""
    return abs(a - b) <= rel_tol * max(abs(a), abs(b), 1.0)


def quantity_matches(claimed: Quantity, stated: Quantity) -> bool:
    """True when a stated quantity supports a claimed one: same value, compatible units."""
    return same_value(claimed.value, stated.value) and units_compatible(claimed.unit, stated.unit)


def dates(text: str) -> list:
    """The calendar dates a text states, in order (`core.reading.dates`), markers removed."""
    return list(_dates(text))


@functools.lru_cache(maxsize=4096)
def _dates(text: str) -> tuple:
    """`dates`, memoised: the citation check reads a cited chunk's dates once per claim citing it."""
    return tuple(date_values(strip_markers(text)))


@functools.lru_cache(maxsize=4096)
def years(text: str) -> frozenset[int]:
    """Years written in the text, standalone or inside dates (2023, 2023-03-15, 2023年); memoised."""
    text = strip_markers(text)
    taken = [q.span for q in quantities(text) if q.unit]
    return frozenset(int(m.group()) for m in _YEAR.finditer(text) if not _inside(m.span(), taken))


def standalone_years(text: str) -> set[int]:
    """Years written on their own ("in 2023"), not as part of a full date or a quantity."""
    text = strip_markers(text)
    taken = [q.span for q in quantities(text)] + date_spans(text)
    return {int(m.group()) for m in _YEAR.finditer(text) if not _inside(m.span(), taken)}


@functools.lru_cache(maxsize=4096)
def terms(text: str) -> frozenset[str]:
    """Content terms of a text: stemmed words, whole codes, Chinese words, bare numbers.

    Citation markers, dates and quantities with a unit are cut out first (the number and date
    checks own them); bare numbers such as years or the "737" of "737 MAX 8" stay, as names.
    """
    text = strip_markers(text)
    cut = sorted([q.span for q in quantities(text) if q.unit] + date_spans(text))
    pieces, position = [], 0
    for start, end in cut:
        if start >= position:
            pieces.append(text[position:start])
            position = end
    pieces.append(text[position:])
    return frozenset(tokenize(" ".join(pieces)))


@functools.lru_cache(maxsize=8192)
def profile(text: str) -> frozenset[str]:
    """The terms used to say how alike two sentences are: `terms`, with each Chinese word
    replaced by its character bigrams so that two segmentations of one phrase still overlap."""
    out: set[str] = set()
    for term in terms(text):
        if is_cjk(term) and len(term) > 2:
            out.update(term[i:i + 2] for i in range(len(term) - 1))
        else:
            out.add(term)
    return frozenset(out)


def codes(found: Iterable[str]) -> list[str]:
    """The terms that are codes (A320neo, E4027, LEAP-1A26), sorted."""
    return sorted(t for t in found if is_code(t))


def is_cjk(term: str) -> bool:
    """True when a term is written in Chinese characters."""
    return has_han(term)


def term_found(term: str, chunk_terms: frozenset[str], chunk_text: str) -> bool:
    """True when a claim term occurs in a chunk.

    A Chinese term also counts when it is a substring of the chunk or all its characters occur
    there, so a different jieba segmentation (每小时 vs 每轮挡小时) is not read as a new word.
    """
    if term in chunk_terms:
        return True
    if is_cjk(term):
        return term in chunk_text or all(ch in chunk_text for ch in term if is_cjk(ch))
    return is_code(term) and term in compact(chunk_text)


def sentences(chunk: ScoredChunk) -> tuple[str, ...]:
    """The statements of a chunk: the texts of the answer units the ingest stored with it
    (`orchestration/kb/units.py`; a code block line by line), never a second split of its text."""
    return unit_texts(chunk.text, chunk.units)


@functools.lru_cache(maxsize=4096)
def compact(text: str) -> str:
    """Lower case without spaces, hyphens or underscores: "737 MAX 8" -> "737max8" (memoised: the
    citation check asks it of a cited chunk once per code term of every claim)."""
    return _COMPACT.sub("", text.lower())


def metadata_dates(metadata: dict) -> list:
    """The dates a chunk's metadata carries (published, updated, effective, expires)."""
    import datetime as dt

    out = []
    for key in ("published_at", "updated_at", "effective_date", "expires_at"):
        value = metadata.get(key)
        match = _ISO_DATE.match(str(value)) if value else None
        if match:
            try:
                out.append(dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3))))
            except ValueError:
                continue
    return out
