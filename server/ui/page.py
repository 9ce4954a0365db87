"""The trace page's content, built from a stored trace (server/traces.py): plain data the Jinja
templates lay out and escape. No Flask here.

A trace page shows the answer (each claim linked to its cited unit, the supporting span
highlighted in the chunk's text) or, for a refusal, what was asked, what was searched and the
closest chunks; then the trace: a header, the timing waterfall, what Perception read and which
router rules fired, and per attempt the searches, the candidates, the scorer, the checks and
what a retry changed.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from ..trace_sources import CLOSEST_SHOWN
from ..traces import StoredTrace
from . import attempts as attempt_parts
from . import retrieval
from .highlight import Piece, answer_pieces, marked_pieces, span_anchor, supporting_spans
from .timeline import Bar, attempts_of, waterfall


@dataclass
class Source:
    """A cited chunk as the answer shows it.

    Attributes:
        n: the citation number.
        citation: the body's citation (title, path, source, dates, status, kb, chunk_id, url, ...).
        pieces: the chunk's text with each citing claim's supporting span marked (the snippet
            alone when the chunk's text was not stored).
        claims: the claims citing it (0-based).
    """

    n: int
    citation: dict[str, Any]
    pieces: list[Piece]
    claims: list[int]


@dataclass
class Claim:
    """A claim of the final answer: its pieces (citation markers link to the supporting span) and
    where each citation of it jumps: {n: element id}."""

    index: int
    claim: dict[str, Any]
    pieces: list[Piece]
    targets: dict[int, str]


@dataclass
class Closest:
    """A chunk a refusal came closest to: its place, scores and text (None when not stored)."""

    candidate: retrieval.Candidate
    title: str | None
    text: str | None


@dataclass
class AttemptView:
    """One attempt of the loop, as the trace section shows it."""

    number: int
    attempt: dict[str, Any]
    tasks: list[retrieval.Task]
    after_fusion: list[dict[str, Any]]
    candidates: list[retrieval.Candidate]
    scoring: attempt_parts.Scoring
    checks: list[attempt_parts.CheckRow]
    retry: attempt_parts.Retry | None
    operations: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Page:
    """Everything a trace page shows."""

    trace_id: str
    stored_at: str
    body: dict[str, Any]
    reason: str
    builds: dict[str, dict[str, Any]]
    answer: list[Piece]
    claims: list[Claim]
    sources: list[Source]
    closest: list[Closest]
    bars: list[Bar]
    attempts: list[AttemptView]
    stops: list[dict[str, Any]]


def status_reason(body: dict[str, Any]) -> str:
    """Why the answer has its status, in one line: the findings left standing, or that every check passed."""
    validation = body.get("validation") or {}
    issues = validation.get("issues") or []
    if issues:
        return "; ".join(dict.fromkeys(f"{i.get('check')}: {i.get('detail') or i.get('kind')}" for i in issues))
    checks = validation.get("checks_run") or []
    return f"validated: {len(checks)} checks ({', '.join(checks)}) found nothing to flag"


def _sources(body: dict[str, Any], chunks: dict[str, dict[str, Any]]) -> tuple[list[Claim], list[Source]]:
    """The final answer's claims and cited chunks, each supporting span marked and linked both ways."""
    citations = {c["n"]: c for c in body.get("citations") or []}
    spans: dict[int, list[tuple[int, int, int, str]]] = {n: [] for n in citations}
    claims = []
    for index, claim in enumerate(body.get("claims") or []):
        targets = {}
        for n in claim.get("citations") or []:
            citation = citations.get(n)
            if citation is None:
                continue
            stored = chunks.get(citation["chunk_id"])
            text = stored["text"] if stored else (citation.get("snippet") or "")
            found = supporting_spans(claim, citation.get("snippet"), text)
            anchor = span_anchor(index, n)
            spans[n] += [(start, end, index, anchor if k == 0 else "") for k, (start, end) in enumerate(found)]
            targets[n] = anchor if found else f"source-{n}"
        claims.append(Claim(index, claim, answer_pieces(claim.get("text") or ""), targets))
    sources = []
    for n, citation in sorted(citations.items()):
        stored = chunks.get(citation["chunk_id"])
        text = stored["text"] if stored else (citation.get("snippet") or "")
        sources.append(Source(n, citation, marked_pieces(text, spans[n]),
                              sorted({claim for _, _, claim, _ in spans[n]})))
    return claims, sources


def _closest(body: dict[str, Any], chunks: dict[str, dict[str, Any]]) -> list[Closest]:
    """A refusal's closest chunks: the last attempt's evidence, best first, with the stored text."""
    last = (body.get("attempts") or [{}])[-1]
    out = []
    for candidate in retrieval.candidates(last.get("candidates") or [])[:CLOSEST_SHOWN]:
        stored = chunks.get(candidate.chunk_id)
        out.append(Closest(candidate, stored["title"] if stored else None, stored["text"] if stored else None))
    return out


def _attempts(body: dict[str, Any], final_claims: list[dict[str, Any]]) -> list[AttemptView]:
    """Each attempt with its own operations (those after its `route`)."""
    operations = body.get("operations") or []
    owners = attempts_of(operations)
    items = body.get("attempts") or []
    views = []
    for position, attempt in enumerate(items):
        number = attempt.get("attempt", position)
        own = [op for op, owner in zip(operations, owners, strict=True) if owner == number]
        compose = next((op for op in own if op.get("op") == "compose"), None)
        final = position == len(items) - 1
        views.append(AttemptView(
            number=number, attempt=attempt, tasks=retrieval.tasks(attempt.get("plan") or {}, own),
            after_fusion=retrieval.after_fusion(own), candidates=retrieval.candidates(attempt.get("candidates") or []),
            scoring=attempt_parts.scoring(attempt, compose),
            checks=attempt_parts.check_rows(attempt.get("verdict") or {}, final_claims if final else None),
            retry=attempt_parts.retry(items[position - 1], attempt) if position else None,
            operations=own))
    return views


def trace_page(record: StoredTrace) -> Page:
    """The page of a stored trace."""
    content = record.content
    body, chunks = content["body"], content.get("chunks") or {}
    answered = body.get("status") != "insufficient"
    claims, sources = _sources(body, chunks) if answered else ([], [])
    stored_at = dt.datetime.fromtimestamp(record.stored_at, dt.UTC).isoformat(timespec="seconds")
    return Page(
        trace_id=record.trace_id, stored_at=stored_at, body=body, reason=status_reason(body),
        builds=content.get("builds") or {}, answer=answer_pieces(body.get("answer") or ""), claims=claims,
        sources=sources, closest=[] if answered else _closest(body, chunks),
        bars=waterfall(body.get("operations") or [], float((body.get("timing") or {}).get("total") or 0.0)),
        attempts=_attempts(body, body.get("claims") or []),
        stops=[op for op in body.get("operations") or [] if op.get("op") == "retry.stop"])
