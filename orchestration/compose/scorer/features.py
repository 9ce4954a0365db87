"""What the answer model reads of one candidate unit: a fixed vector of features in [0, 1].

Every feature is computed from what the typed Question (through its `Focus`), the candidate
unit and the evidence it came from say; none names a word or a question. Term weights are
IDF over the evidence chunks (a term every chunk holds says little about which one answers).
The order of FEATURES is the order of the model's weights: add a feature at the end and refit.

Promises: deterministic; the same candidates in the same order give the same matrix; pure
(the candidates' notes are read, never written).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from orchestration.focus import OPEN_SLOTS, Focus, TermMatches
from orchestration.retrieval.tokenize import tokenize
from orchestration.textcache import term_list, term_set

from ..sentences import Candidate

FEATURES: tuple[str, ...] = (
    "rule_share",        # the lexical score as a share of the best candidate's
    "rule_top",          # the best candidate by the lexical score
    "predicate_in_unit",  # share of the question's predicate terms in the unit (focus coverage)
    "focus_in_unit",     # IDF-weighted share of the question's focus terms (names + predicate) in the unit
    "focus_in_context",  # ... in the unit with its document title, heading path and list lead-in
    "focus_in_chunk",    # ... anywhere in the unit's chunk
    "focus_in_evidence",  # ... anywhere in the evidence (the same for every unit of a question)
    "rarest_missing",    # 1 - IDF share of the rarest focus term the chunk lacks (1: none missing)
    "names_in_unit",     # share of the question's names in the unit (1 when it names none)
    "names_in_chunk",    # share of the question's names in the chunk and its title
    "pairs_in_unit",     # share of the question's adjacent term pairs the unit writes adjacently
    "fills_slot",        # the unit states the asked kind of fact about the slot's head
    "closed_slot",       # the question asks for a kind of fact (a number, a date, a name ...)
    "fills_closed_slot",  # both: a closed slot, filled
    "new_terms",         # share of the unit's terms the question does not write
    "prior",             # the chunk's retrieval score as a share of the best chunk's
    "first_chunk",       # the unit is in the best chunk
    "first_unit",        # the unit opens its chunk
    "length",            # words, up to 60, as a share of 60
    "table_row",         # the unit is a table row read with its header
    "code",              # the unit is a code block
    "same_language",     # the unit is in the question's language
    "states_number",     # the unit states a quantity
    "states_date",       # the unit states a calendar date
)
INDEX = {name: i for i, name in enumerate(FEATURES)}
# Features that say a unit answers may never count against it (fitting holds them at >= 0,
# evaluation/answers/fit.py: fit_monotone): the question's terms, names and word pairs in the unit
# and around it, the asked kind of fact, the lexical score, the retrieval prior.
MONOTONE_UP = frozenset({"rule_share", "rule_top", "predicate_in_unit", "focus_in_unit", "focus_in_context",
                         "focus_in_chunk", "focus_in_evidence", "rarest_missing", "names_in_unit",
                         "names_in_chunk", "pairs_in_unit", "fills_slot", "fills_closed_slot", "prior",
                         "first_chunk", "same_language"})
SIGNS = tuple(1 if name in MONOTONE_UP else 0 for name in FEATURES)


@dataclass(frozen=True)
class EvidenceTerms:
    """IDF of terms over the evidence chunks (title and text), computed once per question."""

    idf: dict[str, float]
    top: float
    chunk_terms: dict[str, frozenset[str]]

    @classmethod
    def of(cls, candidates: Sequence[Candidate]) -> EvidenceTerms:
        """The document frequency of every term over the distinct chunks of `candidates`."""
        chunk_terms: dict[str, frozenset[str]] = {}
        for candidate in candidates:
            chunk = candidate.chunk
            if chunk.chunk_id not in chunk_terms:
                chunk_terms[chunk.chunk_id] = term_set(f"{chunk.title or ''}\n{chunk.text}")
        df: dict[str, int] = {}
        for terms in chunk_terms.values():
            for term in terms:
                df[term] = df.get(term, 0) + 1
        n = len(chunk_terms)
        top = math.log(1.0 + (n + 1) / 0.5)
        return cls({t: math.log(1.0 + (n + 1) / (d + 0.5)) for t, d in df.items()}, top, chunk_terms)

    def weight(self, term: str) -> float:
        """The term's IDF; a term no chunk holds gets the highest."""
        return self.idf.get(term, self.top)


def _share(terms: dict[str, float], present: set[str]) -> float:
    """The weighted share of `terms` that are `present` (1.0 when there are no terms)."""
    total = sum(terms.values())
    if total <= 0:
        return 1.0
    return sum(w for t, w in terms.items() if t in present) / total


def _pairs(words: Sequence[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in zip(words, words[1:], strict=False)}


def feature_matrix(candidates: Sequence[Candidate], focus: Focus, language: str) -> list[list[float]]:
    """One row of FEATURES per candidate (ranked by the lexical score, `score` and notes set).

    Args:
        candidates: the candidates of one question, their `score`, `notes["coverage"]`,
            `notes["fills_slot"]` and `notes["prior"]` set by the lexical ranking.
        focus: the question's focus (names, predicate terms, slot).
        language: the question's language.
    """
    if not candidates:
        return []
    terms = EvidenceTerms.of(candidates)
    focus_terms = {t: terms.weight(t) for t in (*focus.names, *focus.predicate)}
    names = {t: 1.0 for t in focus.names}
    vocabulary = frozenset().union(*terms.chunk_terms.values())
    matches = TermMatches(focus_terms.keys() | names.keys(), vocabulary)
    # a document dated inside the query's window says the window's words by its date
    said_by_date: dict[str, frozenset[str]] = {}
    for candidate in candidates:
        if candidate.chunk.chunk_id not in said_by_date:
            said_by_date[candidate.chunk.chunk_id] = focus.said_by_date(candidate.chunk.metadata)
    in_evidence = _share(focus_terms, matches.present_in(vocabulary).union(*said_by_date.values()))
    question_words = tokenize(focus.question.terms or focus.question.text)
    question_pairs = _pairs(question_words)
    question_set = set(question_words)
    best = max((c.score for c in candidates), default=0.0)
    top_key = max(candidates, key=lambda c: c.score).key
    closed = focus.slot not in OPEN_SLOTS
    rows = []
    per_chunk: dict[str, tuple[float, float, float]] = {}  # what a chunk's units share, read once
    for candidate in candidates:
        chunk_terms = terms.chunk_terms[candidate.chunk.chunk_id]
        dated = said_by_date[candidate.chunk.chunk_id]
        if candidate.chunk.chunk_id not in per_chunk:
            in_this_chunk = matches.present_in(chunk_terms) | dated
            lacking = [terms.weight(t) for t in focus_terms if t not in in_this_chunk]
            per_chunk[candidate.chunk.chunk_id] = (_share(focus_terms, in_this_chunk), _share(names, in_this_chunk),
                                                   1.0 - (max(lacking) / terms.top if lacking else 0.0))
        in_chunk, names_in_chunk, rarest_missing = per_chunk[candidate.chunk.chunk_id]
        # the unit with what it is read under (its title, headings and list lead-in; the chunk's
        # section too, for a unit of an older build, which has no path)
        context = candidate.context_tokens | term_set(str(candidate.chunk.metadata.get("section") or ""))
        words = term_list(candidate.text)
        pairs = _pairs(words)
        fills = bool(candidate.notes.get("fills_slot"))
        unit_terms = set(words)
        row = [0.0] * len(FEATURES)
        row[INDEX["rule_share"]] = candidate.score / best if best > 0 else 0.0
        row[INDEX["rule_top"]] = float(candidate.key == top_key)
        row[INDEX["predicate_in_unit"]] = float(candidate.notes.get("coverage", 0.0))
        in_unit = matches.present_in(candidate.tokens) | dated
        row[INDEX["focus_in_unit"]] = _share(focus_terms, in_unit)
        row[INDEX["focus_in_context"]] = _share(focus_terms, matches.present_in(context) | dated)
        row[INDEX["focus_in_chunk"]] = in_chunk
        row[INDEX["focus_in_evidence"]] = in_evidence
        row[INDEX["rarest_missing"]] = rarest_missing
        row[INDEX["names_in_unit"]] = _share(names, in_unit)
        row[INDEX["names_in_chunk"]] = names_in_chunk
        row[INDEX["pairs_in_unit"]] = len(question_pairs & pairs) / len(question_pairs) if question_pairs else 0.0
        row[INDEX["fills_slot"]] = float(fills)
        row[INDEX["closed_slot"]] = float(closed)
        row[INDEX["fills_closed_slot"]] = float(fills and closed)
        row[INDEX["new_terms"]] = len(unit_terms - question_set) / len(unit_terms) if unit_terms else 0.0
        row[INDEX["prior"]] = float(candidate.notes.get("prior", 0.0))
        row[INDEX["first_chunk"]] = float(candidate.rank == 0)
        row[INDEX["first_unit"]] = float(candidate.position == 0)
        row[INDEX["length"]] = min(len(candidate.text.split()), 60) / 60.0
        row[INDEX["table_row"]] = float(candidate.unit == "table_row")
        row[INDEX["code"]] = float(candidate.unit == "code")
        row[INDEX["same_language"]] = float(candidate.language == language)
        row[INDEX["states_number"]] = float(bool(candidate.quantities))
        row[INDEX["states_date"]] = float(bool(candidate.dates))
        rows.append(row)
    return rows
