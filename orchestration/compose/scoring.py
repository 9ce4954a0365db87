"""Sentence scoring and selection: which evidence sentences best support the query.

Promises: scores are pure functions of (query terms, sentence, chunk rank, settings), so the
same input always ranks the same way; ties break by evidence rank then sentence position;
a sentence that shares no query term with the query scores 0 and is never selected; the
selection never returns duplicates, near-duplicates (same text up to case and spacing, one
inside the other, or 80%+ of the same terms) or any sentence the caller excluded.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from core.text import strip_markers
from core.vocab import MENTION_LABELS
from orchestration.focus import FIELD_LINE, QUESTION_TERMS, asks_author, is_author_field, present
from orchestration.retrieval.same_terms import EQUIVALENT
from orchestration.retrieval.tokenize import is_code, tokenize
from perception.question import Question
from perception.types import Perception

from .sentences import Candidate

# A sentence that itself asks or describes a question ("This policy defines who handles ...",
# "由谁负责处理以及如何处理") restates the query rather than answering it.
# A sentence that asks or reports a question rather than states: "what", "how", "who" ("to see who
# put on the bigger show"); not "who" opening a clause after a comma, which describes someone
# ("the PEP's designated decision maker, who is recorded in the header").
_META_EN = re.compile(r"\b(?:what|how)\b|(?<!,\s)\b(?:who|whom)\b", re.I)
_META_ZH = re.compile(r"谁|什么|如何|怎么|怎样")
_SPACE = re.compile(r"\s+")


@functools.lru_cache(maxsize=8192)
def normalize_text(text: str) -> str:
    """Text for duplicate checks: [n] markers removed, lower case, single spaces (memoised: the
    selection compares every candidate with every chosen and excluded sentence)."""
    return _SPACE.sub(" ", strip_markers(text)).strip().lower()


_is_code = functools.lru_cache(maxsize=65536)(is_code)  # query terms are checked once per candidate


@dataclass
class QueryTerms:
    """Weighted query terms: names (codes, products, organisations) count most.

    Attributes:
        weights: term -> weight (names 2.0, domain terms 1.5, other words 1.0, question words and
            comparison cues 0.3: `focus.QUESTION_TERMS`, they say how it is asked, not what to find).
        language: the query language.
        quantitative: the query asks for a number.
        asks_author: the query asks who wrote or proposed something (`focus.asks_author`).
    """

    weights: dict[str, float]
    language: str = "en"
    quantitative: bool = False
    asks_author: bool = False
    question: Question | None = None  # the (sub-)question the terms were read from

    @classmethod
    def from_perception(cls, perception: Perception, part: Question | None = None) -> QueryTerms:
        """Terms of the query (or of `part`, one sub-question of it: its ask) weighted by what they are.

        Entities and keywords of the whole query are used only when they occur in the part's ask.
        """
        question = perception.question if part is None else part
        text = perception.query if part is None else part.ask
        weights: dict[str, float] = {}

        def add(terms: Iterable[str], weight: float) -> None:
            for term in terms:
                weight_here = 0.3 if term in QUESTION_TERMS else weight
                weights[term] = max(weights.get(term, 0.0), weight_here)

        add(tokenize(text), 1.0)
        lowered = text.lower()
        for keyword in perception.keywords:
            if keyword.lower() in lowered:
                add(tokenize(keyword), 1.0)
        for entity in perception.entities:
            if entity.text.lower() not in lowered:
                continue
            weight = 2.0 if entity.label in MENTION_LABELS else 1.5
            add(tokenize(entity.text), weight)
            if entity.label not in MENTION_LABELS and entity.normalized != entity.text:
                add(tokenize(entity.normalized), 0.5)  # "fuel efficiency" for "fuel burn"
        asks = perception.slot == "actor" and asks_author(perception.slot_head or "")
        return cls(weights, perception.language, perception.constraints.quantitative, asks, question)

    def by_rarity(self, units: Sequence[frozenset[str]]) -> QueryTerms:
        """These terms, each weight times the term's inverse document frequency over `units` (the
        token sets of the candidate units), as BM25 computes it, ln(1 + (n - df + 0.5) / (df + 0.5)),
        as a share of a term no unit writes: "Which cipher does restic use to encrypt the data?"
        over restic's design pages is decided by "cipher" and "encrypt"; "restic" and "data", in
        most units, hardly count (a term every unit writes keeps a little weight, so a unit
        sharing a term with the question still scores above 0). Unchanged for fewer than two units."""
        n = len(units)
        if n < 2:
            return self
        rarest = math.log(1 + (n + 0.5) / 0.5)
        weights = {}
        for term in self._terms:
            df = sum(1 for tokens in units if term.held_by(tokens))
            weights[term.text] = term.weight * math.log(1 + (n - df + 0.5) / (df + 0.5)) / rarest
        return QueryTerms(weights, self.language, self.quantitative, self.asks_author, self.question)

    @property
    def total(self) -> float:
        """The sum of all weights (at least 1e-9)."""
        return max(sum(self.weights.values()), 1e-9)

    @functools.cached_property
    def _terms(self) -> tuple[_Term, ...]:
        """The terms as matching reads them, read once per query."""
        return tuple(_Term(term, weight, _is_code(term), frozenset(EQUIVALENT.get(term, ())))
                     for term, weight in self.weights.items())

    def matched(self, tokens: frozenset[str]) -> float:
        """The weight of query terms present in `tokens` (a code also matches a longer code: A320 ~ a320neo;
        a word that says the same counts: "adopted" ~ "Status: Rejected", `same_terms`)."""
        return sum(term.weight for term in self._terms if term.held_by(tokens))


class _Term(NamedTuple):
    """A query term with its weight, whether it is a code, and the words that say the same."""

    text: str
    weight: float
    code: bool
    same: frozenset[str]

    def held_by(self, tokens: frozenset[str]) -> bool:
        """True when `tokens` hold the term, a longer code for a code, or a word that says the same."""
        return self.text in tokens or (self.code and any(t.startswith(self.text) for t in tokens)) \
            or (bool(self.same) and not tokens.isdisjoint(self.same))


@dataclass(frozen=True)
class ScoreSettings:
    """The knobs of sentence scoring (defaults tuned on the demo knowledge base)."""

    title_weight: float = 0.3      # query terms found only in the chunk title count this much
    rank_weight: float = 0.3       # how much the evidence rank moves a score
    rank_decay: float = 0.25       # prior = 1 / (1 + rank_decay * rank)
    number_bonus: float = 0.15     # quantitative queries: sentences stating a number
    foreign_factor: float = 0.8    # sentences not in the query's language
    meta_factor: float = 0.5       # sentences that restate a question instead of answering it
    min_ratio: float = 0.35        # drop sentences scoring below this share of the best
    status_factors: tuple[tuple[str, float], ...] = (("draft", 0.5), ("superseded", 0.5), ("expired", 0.5))
    # sentences reporting an outdated figure ("the older ... from the superseded manual")
    historical_factor: float = 0.3


# A sentence that talks about a figure being old, replaced or no longer used: quoting its
# number as the current value is the classic stale-answer mistake, even inside a current document.
_HISTORICAL = re.compile(
    r"\b(?:superseded|older|previous(?:ly)?|former(?:ly)?|no longer|replaced|outdated|obsolete|was revised|"
    r"used to be|down from|up from)\b|已废止|废止|旧版|原为|此前|不再使用|已被取代", re.I)


def score(candidate: Candidate, terms: QueryTerms, settings: ScoreSettings,
          bonus: Callable[[Candidate], float] | None = None) -> float:
    """How well a sentence supports the query: 0 when it shares no term with it.

    Args:
        candidate: the sentence.
        terms: the weighted query (or sub-question) terms.
        settings: the weights.
        bonus: an extra additive term (e.g. sub-question cues), only for supporting sentences.

    Returns:
        A non-negative score.
    """
    own = terms.matched(candidate.tokens)
    author_field = terms.asks_author and is_author_field(candidate.text)
    if author_field:  # the field speaks of its whole document: the title's terms are its own
        own = terms.matched(candidate.context_tokens)
    if own <= 0:
        return 0.0
    title_only = max(terms.matched(candidate.context_tokens) - own, 0.0)
    value = (own + settings.title_weight * title_only) / terms.total
    if terms.quantitative and any(q.unit for q in candidate.quantities):
        value += settings.number_bonus
    if bonus is not None:
        value += bonus(candidate)
    prior = candidate.notes.get("prior", 1.0 / (1.0 + settings.rank_decay * candidate.rank))
    value *= (1.0 - settings.rank_weight) + settings.rank_weight * prior
    if candidate.language != terms.language:
        value *= settings.foreign_factor
    meta, label, historical = _traits(candidate.text, candidate.language)
    if meta:
        value *= settings.meta_factor
    if label is not None and not author_field and not any(present(t, set(terms.weights)) for t in label):
        value *= settings.meta_factor  # "PEP 544 – Author: ..." answers who wrote it, not what it is
    # a question about the document itself ("Did postponed evaluation of annotations become the
    # default?" of PEP 563) is answered by its status and history, not warned off them
    if not (terms.question is not None and terms.question.names_title(candidate.chunk.title or "")):
        status = str(candidate.chunk.metadata.get("status") or "").lower()
        value *= dict(settings.status_factors).get(status, 1.0)
        if historical:
            value *= settings.historical_factor
    return value


@functools.lru_cache(maxsize=16384)
def _traits(text: str, language: str) -> tuple[bool, tuple[str, ...] | None, bool]:
    """What `score` reads from a sentence whatever the query: it restates a question, the label
    terms of a header field line (None for other sentences), it reports an outdated figure."""
    field = FIELD_LINE.match(text)
    return (bool((_META_ZH if language == "zh" else _META_EN).search(text)),
            tuple(tokenize(field.group("label"))) if field else None,
            bool(_HISTORICAL.search(text)))


def set_priors(candidates: Sequence[Candidate], settings: ScoreSettings) -> None:
    """Store each sentence's evidence prior: chunk score / best score, or a rank decay without scores."""
    best = max((c.chunk.score for c in candidates), default=0.0)
    for candidate in candidates:
        if best > 0:
            candidate.notes["prior"] = max(candidate.chunk.score, 0.0) / best
        else:
            candidate.notes["prior"] = 1.0 / (1.0 + settings.rank_decay * candidate.rank)


class Selection:
    """The sentences chosen so far, guarding against duplicates and excluded texts."""

    def __init__(self, excluded: Sequence[str] = ()) -> None:
        """Start empty.

        Args:
            excluded: sentence or claim texts that must never be picked ([n] markers ignored).
        """
        self.excluded = [normalize_text(t) for t in excluded if t and t.strip()]
        self.chosen: list[Candidate] = []

    def is_excluded(self, text: str) -> bool:
        """True when `text` equals an excluded text or mostly contains / is contained in one."""
        norm = normalize_text(text)
        for ex in self.excluded:
            if norm == ex:
                return True
            shorter, longer = sorted((norm, ex), key=len)
            if shorter and shorter in longer and len(shorter) >= 0.6 * len(longer):
                return True
        return False

    def is_duplicate(self, candidate: Candidate) -> bool:
        """True when the sentence repeats one already chosen (same, contained, or 80% same terms)."""
        norm = normalize_text(candidate.text)
        for other in self.chosen:
            other_norm = normalize_text(other.text)
            if norm == other_norm or norm in other_norm or other_norm in norm:
                return True
            union = candidate.tokens | other.tokens
            if len(union) >= 3 and len(candidate.tokens & other.tokens) / len(union) >= 0.8:
                return True
        return False

    def allows(self, candidate: Candidate) -> bool:
        """True when the sentence may still be picked."""
        return not self.is_excluded(candidate.text) and not self.is_duplicate(candidate)

    def pick(self, ranked: Sequence[Candidate], limit: int, min_ratio: float) -> list[Candidate]:
        """Take up to `limit` allowed sentences from `ranked` (best first, scores set).

        Sentences scoring 0 or below `min_ratio` x the best allowed score are not taken.
        """
        allowed = [c for c in ranked if c.score > 0 and self.allows(c)]
        if not allowed:
            return []
        floor = allowed[0].score * min_ratio
        taken: list[Candidate] = []
        for candidate in allowed:
            if len(taken) >= limit or candidate.score < floor:
                break
            if self.allows(candidate):  # re-check: an earlier pick may duplicate it
                self.chosen.append(candidate)
                taken.append(candidate)
        return taken


def rank(candidates: Iterable[Candidate], key: Callable[[Candidate], float]) -> list[Candidate]:
    """Candidates with `score` set from `key`, best first; ties by evidence rank, then position."""
    out = []
    for candidate in candidates:
        candidate.score = key(candidate)
        out.append(candidate)
    return sorted(out, key=lambda c: (-c.score, c.rank, c.position))


def reading_order(chosen: Sequence[Candidate]) -> list[Candidate]:
    """Chosen sentences grouped by chunk (best chunk first), in document order inside a chunk."""
    first: dict[str, int] = {}
    for i, candidate in enumerate(chosen):
        first.setdefault(candidate.chunk.chunk_id, i)
    return sorted(chosen, key=lambda c: (first[c.chunk.chunk_id], c.start))
