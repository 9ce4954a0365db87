"""Answerability check: the cited sentences answer the question, not merely share its topic.

An extractive answer quotes evidence verbatim, so the citation check passes it by
construction; what it cannot see is whether the quoted sentences *answer what was asked*.
This check reads the question's focus (orchestration/compose/focus.py: the named things it is
about, the predicate terms of what it asks about them, and the asked-for slot) and holds the
answer to three conditions:

1. the cited chunks mention the question's names (at least half of them, as the evidence
   check counts subjects);
2. the answer's sentences (with their chunks' titles; a term only elsewhere in a cited chunk
   counts half) carry at least MIN_COVERAGE of the question's predicate weight: "Who acquired
   WhatsApp?" is not answered by a sentence on who founded it;
3. some cited sentence that speaks to the focus fills the slot (a number for "how many", a
   date for "when", a name for "who", ...; fact, yes/no and list questions only need 2).

Comparisons are the comparison check's. When a condition fails the issue is `unanswered`
(about no single claim), with what was missing and the closest sentence found; the router's
retry table decides whether to search wider, and an answer still unanswered at the end is
refused (server/status.py). Pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestration.compose.focus import Focus, fills_slot
from orchestration.retrieval.scored import ScoredChunk
from orchestration.retrieval.tokenize import tokenize
from orchestration.types import Answer, Claim
from perception.types import Perception
from validation import text as tx
from validation.context import CheckContext
from validation.types import Issue

CHECK = "answerability"
# Share of the question's predicate weight the answer must carry; measured on the dev splits
# of RGB and MultiHop-RAG (docs/VALIDATION.md).
MIN_COVERAGE = 0.5
MIN_NAME_SHARE = 0.5
SKIPPED_SLOTS = ("relation",)


@dataclass(frozen=True)
class ClaimReading:
    """How one cited claim relates to the question (for the issue detail and the trace)."""

    index: int
    text: str
    coverage: float
    fills: bool
    names: float


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
    focus = Focus.of(perception)
    chunks = {chunk.chunk_id: chunk for chunk in evidence}
    readings = [reading for k, claim in claims if (reading := _read(k, claim, answer, chunks, focus)) is not None]
    if not readings:
        return []  # no claim cites the evidence: the evidence check reports that
    problem = _problem(focus, readings, answer, chunks)
    return [] if problem is None else [Issue(CHECK, "unanswered", problem)]


def _read(index: int, claim: Claim, answer: Answer, chunks: dict[str, ScoredChunk], focus: Focus
          ) -> ClaimReading | None:
    """The claim's coverage of the focus, whether it fills the slot, and the share of names its chunk mentions."""
    cited = [chunks[c.chunk_id] for n in claim.citations if (c := answer.citation(n)) is not None
             and c.chunk_id in chunks]
    if not cited:
        return None
    text = tx.strip_markers(claim.text)
    tokens = set(tokenize(text)) | {t for chunk in cited for t in tokenize(chunk.title or "")}
    names = 1.0
    if focus.names:
        where = " ".join(f"{chunk.title}\n{chunk.text}" for chunk in cited)
        where_tokens = set(tokenize(where))
        names = sum(1 for n in focus.names if n in where_tokens) / len(focus.names)
    return ClaimReading(index, text, focus.coverage(tokens), fills_slot(focus.slot, text, focus.language), names)


def _problem(focus: Focus, readings: list[ClaimReading], answer: Answer, chunks: dict[str, ScoredChunk]
             ) -> str | None:
    """What keeps the answer from answering, or None when it does."""
    best_names = max(r.names for r in readings)
    if best_names < MIN_NAME_SHARE:
        return (f"the cited sources do not mention {', '.join(repr(n) for n in focus.names)}, which the "
                f"question asks about")
    answer_tokens: set[str] = set()
    context: set[str] = set()
    for reading in readings:
        answer_tokens |= set(tokenize(reading.text))
        for n in answer.claims[reading.index].citations:
            citation = answer.citation(n)
            if citation is not None and citation.chunk_id in chunks:
                chunk = chunks[citation.chunk_id]
                answer_tokens |= set(tokenize(chunk.title or ""))
                context |= set(tokenize(chunk.text))
    coverage = focus.coverage(answer_tokens, context)
    closest = max(readings, key=lambda r: (r.coverage, r.fills, -r.index))
    if coverage < MIN_COVERAGE:
        missing = focus.missing(answer_tokens)
        return (f"no cited sentence is about {', '.join(repr(m) for m in missing[:6])} of the question "
                f"(covers {coverage:.0%} of its terms, needs {MIN_COVERAGE:.0%}); closest: \"{_short(closest.text)}\"")
    on_focus = [r for r in readings if r.coverage > 0 or not focus.predicate]
    if not any(r.fills for r in on_focus):
        return (f"the question asks for a {focus.slot.replace('_', '/')} and no cited sentence on its topic "
                f"states one; closest: \"{_short(closest.text)}\"")
    return None


def _short(text: str, limit: int = 160) -> str:
    """The text cut at `limit` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
