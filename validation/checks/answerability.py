"""Answerability check: the cited sentences answer the question, not merely share its topic.

An extractive answer quotes evidence verbatim, so the citation check passes it by
construction; what it cannot see is whether the quoted sentences *answer what was asked*.
This check reads the question's focus (orchestration/focus.py: the named things it is
about, the predicate terms of what it asks about them, and the asked-for slot) and holds the
answer to three conditions (after two that need no reading of the answer: the question names a
source no KB holds, or a specific word of it that no KB searched writes anywhere,
orchestration/unwritten.py):

1. the cited chunks mention the question's names (at least half of them, as the evidence
   check counts subjects), and name its identifiers as written ("PEP 604", "Python 3.16":
   a chunk on PEP 732 does not answer a question on PEP 604); when the question asks about one
   calendar year and the cited documents carry no date, they must mention that year;
2. the answer's sentences (with their chunks' titles; a term only elsewhere in a cited chunk
   counts half) carry at least MIN_COVERAGE of the question's predicate weight: "Who acquired
   WhatsApp?" is not answered by a sentence on who founded it;
3. some cited sentence that speaks to the focus fills the slot (a number for "how many", a
   date for "when", a new name for "who", ...; fact, yes/no and list questions only need 2)
   and carries the slot's head when the question has one: "Who won the 2021 Tour de France?"
   is not answered by a sentence naming the race's stage riders without saying who won.

When the answer model scored the quoted units (the extractive composer, docs/ANSWER_MODEL.md),
conditions 2 and 3 become one feature of the model's refusal: the answer stands when the
question's probability of being answered (its most probable unit's probability, and whether the
rules find that unit wanting) reaches the threshold calibrated on held-out public QA data. Without
a model (an LLM's answer, or `SIGHTLINE_ANSWER_MODEL` off) the rules decide. Condition 1 holds
for every answer.

Comparisons are the comparison check's. When a condition fails the issue is `unanswered`
(about no single claim), with what was missing and the closest sentence found: a sentence of
the cited chunks (the one carrying most of the question's terms), never the answer's own words,
which may be a model's rejected text; the router's
retry table decides whether to search wider, and an answer still unanswered at the end is
refused (server/status.py). Pure and deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.reading.identifiers import names_identifier, names_operator, names_option
from core.reading.units import is_measure
from orchestration.focus import Focus  # the question's focus and slot test, shared with the composer
from orchestration.retrieval.scored import ScoredChunk
from orchestration.retrieval.tokenize import tokenize
from orchestration.textcache import term_set
from orchestration.types import Answer, AnswerScoring, Claim
from perception.slots import SHORT_QUESTION_WORDS
from perception.types import Perception
from validation import text as tx
from validation.context import CheckContext
from validation.reasons import Reason
from validation.types import Issue

CHECK = "answerability"
# Share of the question's predicate weight the answer must carry; measured on the dev splits
# of RGB and MultiHop-RAG (docs/VALIDATION.md).
MIN_COVERAGE = 0.5
# Short questions whose every term is the point: "Does PEP 8 recommend the black formatter?" is
# not answered by a sentence on PEP 8's recommendations about formatters, "What is a wheel?" not
# by one on something else. Measured: with questions of five or more terms included, MultiHop-RAG's
# temporal yes/no questions were refused 6 times more (false refusal 0.079 -> 0.083), and with
# the long ones of few terms included ("Did Engadget report a discount ... before The Verge ...?",
# 21 words), twice more (0.0803).
MIN_COVERAGE_OF_SLOT = {"yes_no": 1.0, "definition": 1.0}
MIN_NAME_SHARE = 0.5
MIN_SLOT_COVERAGE = 1 / 3
MAX_NEEDED_TERMS = 4
SKIPPED_SLOTS = ("relation",)


@dataclass(frozen=True)
class ClaimReading:
    """How one cited claim relates to the question (for the issue detail and the trace)."""

    index: int
    text: str
    coverage: float
    fills: bool


def check(perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
          context: CheckContext) -> list[Issue]:
    """[unanswered] when the cited sentences do not answer the question, else [].

    Args:
        perception: the question (focus and slot); None skips the check.
        answer: the composed answer.
        evidence: the chunks the composer was given.
        context: unused.
    """
    if perception is None or perception.slot in SKIPPED_SLOTS:
        return []
    claims = [(k, c) for k, c in enumerate(answer.claims) if c.kind == "fact"]
    if not claims:
        return []  # nothing stated: the evidence check speaks for an empty answer
    chunks = {chunk.chunk_id: chunk for chunk in evidence}
    focus = Focus.of(perception)
    readings = [reading for k, claim in claims
                if (reading := _read(k, claim, answer, chunks, focus)) is not None]
    if not readings:
        return []  # no claim cites the evidence: the evidence check reports that
    reason = _problem(focus, readings, answer, chunks, perception, context.unwritten)
    return [] if reason is None else [Issue.of(CHECK, "unanswered", reason)]


def _read(index: int, claim: Claim, answer: Answer, chunks: dict[str, ScoredChunk], focus: Focus
          ) -> ClaimReading | None:
    """The claim's coverage of the focus (its sentence and its chunks' titles) and whether it fills the slot."""
    cited = [chunks[c.chunk_id] for n in claim.citations if (c := answer.citation(n)) is not None
             and c.chunk_id in chunks]
    if not cited:
        return None
    text = tx.strip_markers(claim.text)
    tokens = set(tokenize(text)) | {t for chunk in cited for t in term_set(chunk.title or "")}
    tokens |= _said_by_date(focus, cited)
    published = any(chunk.metadata.get("published_at") for chunk in cited)
    context = {t for chunk in cited for t in term_set(chunk.text)}
    return ClaimReading(index, text, focus.coverage(tokens),
                        focus.answered_by(text, tokens, lenient=True, published=published, context=context))


def _problem(focus: Focus, readings: list[ClaimReading], answer: Answer, chunks: dict[str, ScoredChunk],
             perception: Perception, unwritten: Sequence[str] = ()) -> Reason | None:
    """What keeps the answer from answering, or None when it does."""
    missing_sources = perception.constraints.unknown_sources
    if missing_sources:
        return Reason("unknown_source", {"sources": list(missing_sources)})
    if unwritten:  # no document searched writes what the question asks about
        return Reason("unwritten", {"terms": list(unwritten)})
    cited = _cited_chunks(readings, answer, chunks)
    texts = [f"{c.title}\n{c.text}" for c in cited]
    unnamed = [i for i in focus.identifiers if not any(names_identifier(i, text) for text in texts)]
    unnamed += [o for o in focus.operators if not any(names_operator(o, text) for text in texts)]
    unnamed += [o for o in focus.options if not any(names_option(o, text) for text in texts)]
    if unnamed:
        return Reason("unnamed", {"names": unnamed})
    periods = list(focus.periods) or ([year] if (year := _asked_year(perception)) else [])
    undated = [c for c in cited if not _dated(c)]
    for period in periods:
        if undated and len(undated) == len(cited) and not any(_names_period(period, c) for c in undated):
            return Reason("undated_period", {"period": period})
    named = _names_share(focus, cited)
    # half the names asked about, but two are enough (a multi-part question's names are spread
    # over its parts, and each cited source speaks to one part)
    if focus.names and named * len(focus.names) < min(MIN_NAME_SHARE * len(focus.names), 2) - 1e-9:
        return Reason("names_missing", {"names": list(focus.names)})
    # the answer model ranked the units: the question's probability of being answered, from its
    # best unit's probability and the rules' verdict on the whole answer (a feature, weighted as
    # fitted; read on the best unit alone it refused more answerable dev questions for as many
    # unanswerable ones: docs/EVALUATION.md, "Settings chosen from the figures")
    rule = rule_problem(focus, readings, answer, cited, perception)
    if rule is not None and rule.code == "slot_unfilled" and counts_with_measures(focus, answer):
        return rule  # a count answered by a length or a price: no probability makes it a count
    scored = [c.probability for c in answer.claims if c.kind == "fact" and c.probability is not None]
    if scored and answer.scoring is not None:
        return _model_problem(max(scored), rule, answer.scoring, focus, cited)
    return rule


def rule_problem(focus: Focus, readings: list[ClaimReading], answer: Answer, cited: list[ScoredChunk],
                 perception: Perception) -> Reason | None:
    """Conditions 2 and 3 (term coverage, the slot filled by a sentence on the question's topic):
    what the rules find missing, or None."""
    answer_tokens = {t for r in readings for t in tokenize(r.text)}
    answer_tokens |= {t for c in cited for t in term_set(c.title or "")}
    answer_tokens |= _said_by_date(focus, cited)
    context = {t for c in cited for t in term_set(c.text)}
    coverage = focus.coverage(answer_tokens, context)
    # a short yes/no or definition question (few terms, few words) needs all its terms; a longer
    # one half, but never more than MAX_NEEDED_TERMS: a multi-part question is answered part by
    # part, and each sentence carries only its part's terms
    short = focus.total <= MAX_NEEDED_TERMS and perception.question.length <= SHORT_QUESTION_WORDS
    share = MIN_COVERAGE_OF_SLOT.get(focus.slot, MIN_COVERAGE) if short else MIN_COVERAGE
    needed_share = min(share, MAX_NEEDED_TERMS / focus.total) if focus.predicate else 0.0
    if coverage < needed_share - 1e-9:
        missing = _as_written(focus, focus.missing(answer_tokens))
        return Reason("terms_missing", {"missing": missing[:6], "coverage": coverage, "needed": needed_share,
                                        "closest": _closest(focus, cited)})
    # the sentence stating the asked-for kind of fact must itself be on the question: at least
    # two of its predicate terms, or a third of them when there are fewer than six
    needed = min(MIN_SLOT_COVERAGE, 2 / focus.total) if focus.predicate else 0.0
    on_focus = [r for r in readings if r.coverage >= needed - 1e-9]
    if not on_focus:
        return Reason("off_topic", {"needed": needed, "closest": _closest(focus, cited)})
    if not any(r.fills for r in on_focus):
        return Reason("slot_unfilled", {"slot": focus.slot, "head": focus.head, "closest": _closest(focus, cited)})
    return None


def counts_with_measures(focus: Focus, answer: Answer) -> bool:
    """The question counts things ("How many talks ...?", not "How many miles ...?") and every
    number the answer's facts state measures something (a length, a price, a share): "Talks are
    25 minutes long" states no number of talks. A structural reading of the asked kind of value,
    decisive whichever ranker scored the units."""
    question = focus.question
    if focus.slot != "number" or not question.counts or not question.counted or is_measure(question.counted):
        return False
    stated = [q for claim in answer.claims if claim.kind == "fact" for q in tx.quantities(claim.text)]
    return bool(stated) and all(q.unit is not None for q in stated)


def answered_probability(best: float, rule_says_unanswered: bool, refusal: Mapping[str, float]) -> float:
    """The probability that the question is answered: a logistic reading of the best unit's
    log-odds and the rules' verdict, with the weights fitted on held-out public QA data."""
    p = min(max(best, 1e-6), 1 - 1e-6)
    z = float(refusal.get("bias", 0.0)) + float(refusal.get("unit_logit", 1.0)) * math.log(p / (1 - p)) \
        + float(refusal.get("rules_unanswered", 0.0)) * float(rule_says_unanswered)
    return 1.0 / (1.0 + math.exp(-z))


def _model_problem(best: float, rule: Reason | None, scoring: AnswerScoring, focus: Focus,
                   cited: list[ScoredChunk]) -> Reason | None:
    """When the learned ranker read the units: the answer stands if the question's probability of
    being answered (`answered_probability`) reaches the refusal threshold chosen on dev for
    false refusal <= 0.08 (docs/ANSWER_MODEL.md); else what the question asked and the closest
    unit, with its probability."""
    refusal, threshold = scoring.refusal, scoring.refusal_threshold
    answered = answered_probability(best, rule is not None, refusal) if refusal else best
    if answered >= threshold:
        return None
    best_units = [u for u in scoring.best if u.text]
    closest: Any = ([(_short(u.text, 120), u.p) for u in best_units[:3]] if best_units
                    else _short(_closest(focus, cited)))
    return Reason("low_probability", {"slot": focus.slot, "best": best, "answered": answered, "threshold": threshold,
                                      "rules": rule, "closest": closest})


def _as_written(focus: Focus, terms: Sequence[str]) -> list[str]:
    """Search terms (stems: "configur") as the question wrote them ("configure"), for the reader of
    a refusal; a term no question word yields stays as it is."""
    written = focus.spellings()
    return list(dict.fromkeys(written.get(t, t) for t in terms))


def _closest(focus: Focus, cited: list[ScoredChunk]) -> str:
    """The sentence of the cited chunks that carries most of the question's terms (the first of
    equals), shortened: what a refusal quotes as the closest text found. Evidence only: a claim's
    own words may be a model's text that validation rejected.
    """
    sentences = [s for chunk in cited for s in tx.sentences(chunk)]
    if not sentences:
        return ""
    return _short(max(sentences, key=lambda s: focus.coverage(tokenize(s))))


def _names_share(focus: Focus, cited: list[ScoredChunk]) -> float:
    """The share of the question's names the cited chunks (together) mention; 1.0 without names.

    Names are checked with at most two required (see _problem)."""
    if not focus.names:
        return 1.0
    where = set(tokenize(" ".join(f"{c.title}\n{c.text}" for c in cited)))
    return sum(1 for n in focus.names if n in where) / len(focus.names)


def _cited_chunks(readings: list[ClaimReading], answer: Answer, chunks: dict[str, ScoredChunk]
                  ) -> list[ScoredChunk]:
    """The evidence chunks the read claims cite, in first-cited order."""
    out: dict[str, ScoredChunk] = {}
    for reading in readings:
        for n in answer.claims[reading.index].citations:
            citation = answer.citation(n)
            if citation is not None and citation.chunk_id in chunks:
                out.setdefault(citation.chunk_id, chunks[citation.chunk_id])
    return list(out.values())


def _asked_year(perception: Perception) -> str | None:
    """The year the question's time window is, when it is exactly one calendar year."""
    window = perception.constraints.time
    if window is None or window.start is None or window.end is None:
        return None
    if window.start.year == window.end.year and (window.start.month, window.start.day) == (1, 1) \
            and (window.end.month, window.end.day) == (12, 31):
        return str(window.start.year)
    return None


def _names_period(period: str, chunk: ScoredChunk) -> bool:
    """The chunk writes the period: a year as a number, a quarter like an identifier."""
    text = f"{chunk.title} {chunk.text}"
    return period in text if period.isdigit() else names_identifier(period, text)


def _said_by_date(focus: Focus, cited: Sequence[ScoredChunk]) -> frozenset[str]:
    """The words of the question's time phrase when a cited source is dated inside its window
    (`Focus.said_by_date`)."""
    return frozenset().union(*(focus.said_by_date(c.metadata) for c in cited))


def _dated(chunk: ScoredChunk) -> bool:
    """The chunk's document carries a date (the freshness check then judges the window)."""
    return bool(chunk.metadata.get("published_at") or chunk.metadata.get("updated_at"))


def _short(text: str, limit: int = 160) -> str:
    """The text cut at `limit` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
