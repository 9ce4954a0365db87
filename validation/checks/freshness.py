"""Freshness check: the chunks an answer cites are current for the question asked.

Promises, for each distinct evidence chunk cited by a non-notice claim (notices may cite a
draft to say it is only a draft), in order of first citation:
- its document date (`document_date`: published, else updated, else effective) lies outside
  the query's time window -> `outside_window` (an open side of the window accepts everything;
  a chunk without a date is not judged; nor is a current (not stale) chunk that itself speaks of
  the asked period when that period is one calendar year or one day: a 2023 article on "the
  2020 final" or on "the November 16 launch" is evidence about them, `speaks_of`);
- its status is one of `context.stale_statuses` (draft, superseded, expired), the query did not
  ask for that status (`constraints.status`) and does not name the document itself (`names_document`:
  "What did PEP 563 propose?" asks about the superseded PEP 563, whose status is the point, not
  staleness) -> `stale_status`;
- the query has no time window and the document is older than `context.max_age_for(kb)` days
  on `context.now` -> `too_old`.
Each issue names the chunk and the first claim citing it. Citations that do not resolve to
evidence are the citation check's business and are skipped here. Pure and deterministic.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence

from core.vocab import MONTHS
from orchestration.kb.metadata import document_date
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer
from perception.question import Question
from perception.types import Perception, TimeWindow
from validation.context import CheckContext
from validation.reasons import Reason
from validation.types import Issue

CHECK = "freshness"


def check(perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
          context: CheckContext) -> list[Issue]:
    """Freshness issues of the cited chunks (see the module docstring).

    Args:
        perception: gives the time window and the statuses the query asked for (None: neither).
        answer: the composed answer.
        evidence: the chunks the composer was given.
        context: now, the maximum ages per KB and the stale statuses.

    Returns:
        The issues, chunk by chunk in order of first citation.
    """
    constraints = perception.constraints if perception is not None else None
    window = constraints.time if constraints is not None else None
    wanted = set(constraints.status) if constraints is not None else set()
    issues: list[Issue] = []
    for claim_index, chunk in _cited_chunks(answer, evidence):
        day = document_day(chunk)
        status = str(chunk.metadata.get("status") or "").lower()
        stale = status in context.stale_statuses
        if window is not None and day is not None and not window.contains(day) \
                and (stale or not speaks_of(chunk, window)):
            issues.append(_outside(claim_index, chunk, day, window))
        if stale and status not in wanted and not (perception is not None
                                                   and names_document(perception.question, chunk)):
            issues.append(Issue(CHECK, "stale_status", f"{chunk.chunk_id} ({chunk.title!r}) is {status}; "
                                "the query did not ask for that status", claim=claim_index,
                                chunk_id=chunk.chunk_id))
        if window is None and day is not None:
            issue = _too_old(claim_index, chunk, day, context)
            if issue is not None:
                issues.append(issue)
    return issues


def names_document(question: Question, chunk: ScoredChunk) -> bool:
    """True when the question names the chunk's document (`Question.names_title`)."""
    return question.names_title(chunk.title or str(chunk.metadata.get("title") or ""))


def _cited_chunks(answer: Answer, evidence: Sequence[ScoredChunk]) -> Iterator[tuple[int, ScoredChunk]]:
    """Each evidence chunk cited by a non-notice claim once, with the first claim citing it."""
    by_id = {chunk.chunk_id: chunk for chunk in evidence}
    seen: set[str] = set()
    for index, claim in enumerate(answer.claims):
        if claim.kind == "notice":
            continue
        for n in claim.citations:
            citation = answer.citation(n)
            if citation is None or citation.chunk_id not in by_id or citation.chunk_id in seen:
                continue
            seen.add(citation.chunk_id)
            yield index, by_id[citation.chunk_id]



def speaks_of(chunk: ScoredChunk, window: TimeWindow) -> bool:
    """True when the chunk's text names the window's period: its year for a whole-year window,
    its month and day ("November 16", "16 Nov") for a one-day window."""
    start, end = window.start, window.end
    if start is None or end is None:
        return False
    text = f"{chunk.title}\n{chunk.text}"
    if (start.month, start.day, end.month, end.day) == (1, 1, 12, 31) and start.year == end.year:
        return re.search(rf"(?<!\d){start.year}(?!\d)", text) is not None
    if start == end:
        month = MONTHS[start.month - 1]
        name = rf"(?:{month}|{month[:3]}\.?)"
        return re.search(rf"\b{name}\s+{start.day}\b|\b{start.day}(?:st|nd|rd|th)?\s+{name}\b", text, re.I) is not None
    return False


def document_day(chunk: ScoredChunk) -> dt.date | None:
    """The chunk's document date, or None when it has none or it cannot be read."""
    try:
        return document_date(chunk.metadata)
    except (TypeError, ValueError):
        return None


def _outside(claim_index: int, chunk: ScoredChunk, day: dt.date, window: TimeWindow) -> Issue:
    """The outside_window issue for a chunk dated `day`."""
    start = window.start.isoformat() if window.start else "…"
    end = window.end.isoformat() if window.end else "…"
    reason = Reason("outside_window", {"chunk": chunk.chunk_id, "day": day.isoformat(), "start": start, "end": end,
                                       "window": window.text})
    return Issue.of(CHECK, "outside_window", reason, claim=claim_index, chunk_id=chunk.chunk_id)


def _too_old(claim_index: int, chunk: ScoredChunk, day: dt.date, context: CheckContext) -> Issue | None:
    """The too_old issue when the chunk is older than its KB allows, else None."""
    limit = context.max_age_for(chunk.kb)
    age = (context.now - day).days
    if limit is None or age <= limit:
        return None
    reason = Reason("too_old", {"chunk": chunk.chunk_id, "day": day.isoformat(), "age": age,
                                "now": context.now.isoformat(), "kb": chunk.kb, "limit": limit})
    return Issue.of(CHECK, "too_old", reason, claim=claim_index, chunk_id=chunk.chunk_id)
