"""The ranker: how the extractive composer orders an answer's candidate units, chosen once.

Contract (as every Sightline component): a cheap constructor of plain values, `warm_up()` for
the models, and `rank(candidates, focus, terms, language, reread) -> Ranking`. The composer, the
answerability check (through `Answer.scoring`) and the training collector
(evaluation/answers/collect.py) all read a question's units through `rank`, so what is served is
what is trained and evaluated. Nothing else asks which ranker runs: what differs between them is
in the `Ranking` (its units' readings, the share of the lead a unit needs to be quoted with it,
how the lead is picked) and in `scoring()`.

- `LexicalRanker`: the lexical score (scoring.score: the question's weighed terms, the asked
  slot's cues, the chunk's rank), best first. It cannot tell apart list items sharing the
  question's terms, so a chosen item brings its list (`brings_lists`), and the lead is the best
  unit that fills the asked-for slot. No probabilities: validation's rules decide refusals.
- `LearnedRanker`: the answer model's probability that a unit answers (scorer/model.py, one
  logistic model per language over features.FEATURES), the best few read again with the
  question by the cross-encoder (scorer/cross.py); the most probable unit leads, and the
  question's probability of being answered (`AnswerScoring`) decides the refusal.

`server/bootstrap.py` chooses one (docs/ANSWER_MODEL.md says which, and why).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from core.text import is_question
from orchestration.focus import Focus
from orchestration.types import AnswerScoring, ScoredUnit

from .questions import answer_bonus
from .scorer.cross import CrossEncoder, get_cross_encoder, reading_of
from .scorer.features import feature_matrix
from .scorer.model import LANGUAGES, AnswerModel, load_model, rerank_score
from .scoring import QueryTerms, ScoreSettings, rank, reading_order, score
from .sentences import Candidate

Key = tuple[str, int]  # Candidate.key: (chunk id, start)
# Units quoted with the lead need this share of its probability when the answer model ranked
# them (the real-documentation set: asked-for fact 0.615 at 0.35, 0.692 at 0.2, refusals the same;
# at most max_sentences units either way).
MODEL_MIN_RATIO = 0.2
SCORING_UNITS = 3  # the most probable units an answer's scoring shows (and a refusal quotes)


@dataclass(frozen=True)
class UnitReading:
    """What the learned ranker read of one unit: its probability of answering (after the
    cross-encoder's reading, when it had one), the model's own, the features and the three that
    moved it most, and the cross-encoder's logit."""

    probability: float
    model_probability: float
    features: tuple[float, ...]
    contributions: tuple[tuple[str, float], ...]
    cross_logit: float | None = None


@dataclass
class Ranking:
    """One question part's candidate units, best first (`Candidate.score` set), with what the
    ranker read of each and how an answer quotes from them.

    Attributes:
        units: the candidates, best first (ties: evidence rank, then position).
        readings: per unit key, the learned ranker's reading (empty for the lexical ranker).
        min_ratio: the share of the lead's score a unit needs to be quoted with it.
        lead_fills_slot: the lead is the best unit filling the asked-for slot (the lexical score
            cannot say which unit answers; the model's probability does).
    """

    units: list[Candidate]
    readings: dict[Key, UnitReading] = field(default_factory=dict)
    min_ratio: float = 0.35
    lead_fills_slot: bool = True

    def probability(self, candidate: Candidate) -> float | None:
        """The unit's probability of answering, None when the ranker gives none."""
        reading = self.readings.get(candidate.key)
        return None if reading is None else reading.probability

    def lead_first(self, chosen: Sequence[Candidate]) -> list[Candidate]:
        """The chosen units with the lead first, then the rest in reading order. `chosen` is best
        first: the lead is its first unit (the most probable one), or, with `lead_fills_slot`, the
        best unit that fills the asked-for slot, else the best one (not the first in reading
        order: one paragraph's first sentence led every answer quoting it); never a unit that is
        itself a question (an FAQ's heading repeats the question asked)."""
        stating = [c for c in chosen if not is_question(c.text)]
        filler = next((c for c in stating if c.notes.get("fills_slot")), None) if self.lead_fills_slot else None
        lead = filler or (stating[0] if stating else None)
        ordered = reading_order(chosen)
        return ordered if lead is None else [lead] + [c for c in ordered if c is not lead]


class LexicalRanker:
    """Units by their lexical score (module docstring)."""

    name = "lexical"
    brings_lists = True  # a chosen list item brings its list: the score cannot tell items apart

    def __init__(self, settings: ScoreSettings | None = None) -> None:
        self.settings = settings or ScoreSettings()

    def warm_up(self) -> None:
        """Nothing to load."""

    def rank(self, candidates: Sequence[Candidate], focus: Focus, terms: QueryTerms, language: str,
             reread: bool = True) -> Ranking:
        """Candidates best first by the lexical score (`scoring.score` with the slot's answer bonus);
        a unit sharing no term with the question scores 0 and is never chosen. `terms`: for a
        one-part question, its terms weighed over these candidates (`one_part_terms`)."""
        return Ranking(self._lexical(candidates, focus, terms), min_ratio=self.settings.min_ratio)

    def scoring(self, readings: Mapping[Key, UnitReading], best: Sequence[Candidate], language: str
                ) -> AnswerScoring | None:
        """None: the lexical score is no probability, so validation's rules decide the refusal."""
        return None

    def _lexical(self, candidates: Sequence[Candidate], focus: Focus, terms: QueryTerms) -> list[Candidate]:
        return rank(candidates, functools.partial(score, terms=terms, settings=self.settings,
                                                  bonus=functools.partial(answer_bonus, focus)))


class LearnedRanker(LexicalRanker):
    """Units by the answer model's probability of answering (module docstring); the lexical
    score is one of its features, and the units it gives 0 are never chosen."""

    name = "learned"
    brings_lists = False  # the model tells a list's items apart; a question asking for a list still gets it

    def __init__(self, settings: ScoreSettings | None = None, cross: CrossEncoder | None = None) -> None:
        super().__init__(settings)
        self.cross = cross or get_cross_encoder()  # one session per process
        self._models: dict[str, AnswerModel] = {}

    def warm_up(self) -> None:
        """Read every language's model and load the cross-encoder."""
        for language in LANGUAGES:
            self.model_for(language)
        self.cross.warm_up()

    def model_for(self, language: str) -> AnswerModel | None:
        """The answer model of a language (read on first use); None for a language without one."""
        if language not in LANGUAGES:
            return None
        if language not in self._models:
            self._models[language] = load_model(language)
        return self._models[language]

    def rank(self, candidates: Sequence[Candidate], focus: Focus, terms: QueryTerms, language: str,
             reread: bool = True) -> Ranking:
        """Candidates best first by probability (a unit in another language than the question's
        weighed by `foreign_factor`: the user reads the answer); `reread`: the cross-encoder reads
        the best units again (`_reread`, once per answer: it costs ~6-10 ms a unit)."""
        ranked = self._lexical(candidates, focus, terms)
        model = self.model_for(language)
        if model is None or not ranked:
            return Ranking(ranked, min_ratio=self.settings.min_ratio)
        readings: dict[Key, UnitReading] = {}
        for candidate, row in zip(ranked, feature_matrix(ranked, focus, language), strict=True):
            p = model.probability(row)
            readings[candidate.key] = UnitReading(p, p, tuple(row), tuple(model.contributions(row)))
            factor = 1.0 if candidate.language == language else self.settings.foreign_factor
            candidate.score = p * factor if candidate.score > 0 else 0.0
        ranked = sorted(ranked, key=lambda c: (-c.score, c.rank, c.position))
        if reread:
            ranked = self._reread(ranked, readings, model, focus)
        return Ranking(ranked, readings, MODEL_MIN_RATIO, lead_fills_slot=False)

    def _reread(self, ranked: list[Candidate], readings: dict[Key, UnitReading], model: AnswerModel,
                focus: Focus) -> list[Candidate]:
        """The model's best few units read again with the question by the cross-encoder, when the
        model has one: each gets the model's mix of its log-odds and the cross-encoder's logit as
        its probability (the refusal's input) and leads in that order; the rest keep their standing
        against the lead (supporting units are chosen by their share of the lead's score) below.
        A unit of a document dated inside the query's window is read with the question without its
        time phrase (`Question.without_phrase`)."""
        top = [c for c in ranked[:int(model.rerank.get("top", 0))] if c.score > 0] if model.rerank else []
        if not top:
            return ranked
        window = focus.window.text if focus.window is not None else ""
        asked = [focus.question.without_phrase(window) if focus.said_by_date(c.chunk.metadata) else focus.question.text
                 for c in top]
        logits = [0.0] * len(top)
        for question in dict.fromkeys(asked):  # one call per wording of the question
            indexes = [i for i, q in enumerate(asked) if q == question]
            read_logits = self.cross.logits(question, [reading_of(top[i]) for i in indexes])
            for i, logit in zip(indexes, read_logits, strict=True):
                logits[i] = logit
        before = max(c.score for c in top)
        for candidate, logit in zip(top, logits, strict=True):
            old = readings[candidate.key]
            p = rerank_score(model.rerank, old.model_probability, logit)
            readings[candidate.key] = UnitReading(p, old.model_probability, old.features, old.contributions,
                                                  round(logit, 4))
            candidate.score = p * (candidate.score / max(old.model_probability, 1e-9))
        floor, scale = min(c.score for c in top), max(c.score for c in top) / max(before, 1e-9)
        read = {c.key for c in top}
        rest = [c for c in ranked if c.key not in read]
        for candidate in rest:
            candidate.score = min(candidate.score * scale, floor * 0.999)
        return sorted(top, key=lambda c: (-c.score, c.rank, c.position)) + rest

    def scoring(self, readings: Mapping[Key, UnitReading], best: Sequence[Candidate], language: str
                ) -> AnswerScoring | None:
        """The model's reading for the answer: its refusal and the most probable of `best` (each
        part's best units, `readings` what the rankings of the parts read of them) with their
        probability, the features that moved it most and the cross-encoder's logit where it read
        the unit; None when the model read none of them."""
        model = self.model_for(language)
        read = [(c, readings[c.key]) for c in best if c.key in readings]
        if model is None or not read:
            return None
        top = sorted(read, key=lambda cr: -cr[1].probability)[:SCORING_UNITS]
        return AnswerScoring(
            threshold=model.threshold, refusal=dict(model.refusal),
            best=tuple(ScoredUnit(text=c.text[:240], p=round(r.probability, 4), unit=c.unit, path=tuple(c.path),
                                  why={name: round(v, 2) for name, v in r.contributions},
                                  cross_encoder_logit=r.cross_logit) for c, r in top))


# the rankers by name (ExtractiveComposer's `ranker`; server/bootstrap.py chooses one)
RANKERS: dict[str, type[LexicalRanker]] = {LexicalRanker.name: LexicalRanker, LearnedRanker.name: LearnedRanker}
