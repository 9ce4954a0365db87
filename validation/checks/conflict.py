"""Conflict check: two sources state the same thing with different values.

A cited sentence conflicts with an evidence sentence of another chunk when the two say the
same thing (at least MIN_SHARED of their terms in common) and one replaces a few value terms
of the other, as many as it takes out (at most MAX_DIFFERENT: "Tampa, Florida" against
"Glendale, Arizona", "87%" against "85%"; "2,360 kg per block hour" against "13.3 kg per seat
per hour with 178 seats" measures something else). A difference that names another period or
another thing (a year, a quarter, a code: "Q1 ... 82%" against "Q2 ... 87%", "A320" against
"B737"), or that sits in chunks whose titles name different things (report TR-2025-017
against TR-2025-011), is two facts, not a conflict.

The issue `conflicting_sources` names both values, both sources and their dates, and which one
the answer should prefer: the effective one over a draft/superseded/expired one (that rule is
clearly authoritative: no issue, the freshness check already speaks), else the higher
credibility, else the newer. It is about no single claim, so the answer is `partial` with the
conflict stated. Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.reading.identifiers import IDENTIFIER
from orchestration.retrieval.scored import ScoredChunk
from orchestration.retrieval.tokenize import is_code, tokenize
from orchestration.textcache import term_set
from orchestration.types import Answer
from perception.types import Perception
from validation import text as tx
from validation.context import CheckContext
from validation.reasons import Reason
from validation.types import Issue

CHECK = "conflict"
MIN_SHARED = 0.6      # Jaccard of the two sentences' terms
MAX_DIFFERENT = 3     # value terms that may differ each way
MIN_TERMS = 5         # shorter sentences say too little to call a conflict
_PERIOD = re.compile(r"^(?:1[6-9]|20)\d\d$|^q[1-4]$|^h[12]$|^fy\d+|年$|季度$|月$")


def check(perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
          context: CheckContext) -> list[Issue]:
    """[conflicting_sources] for each cited sentence another source contradicts, else []."""
    stale = set(context.stale_statuses)
    sentences = [(chunk, s, term_set(s)) for chunk in evidence for s in tx.sentences(chunk)]
    issues: list[Issue] = []
    seen: set[tuple[str, str]] = set()
    for claim in answer.claims:
        if claim.kind != "fact":
            continue
        cited = [c.chunk_id for n in claim.citations if (c := answer.citation(n)) is not None]
        own = term_set(tx.strip_markers(claim.text))
        if len(own) < MIN_TERMS or not cited:
            continue
        for chunk, sentence, terms in sentences:
            # a substitution replaces as many terms as it adds, so both sentences have as many terms
            if len(terms) != len(own) or chunk.chunk_id in cited or (cited[0], chunk.chunk_id) in seen:
                continue
            ours, theirs = own - terms, terms - own
            if not _same_statement(own, terms, ours, theirs):
                continue
            mine = next((c for c in evidence if c.chunk_id == cited[0]), None)
            if mine is None or _status(mine) in stale or _status(chunk) in stale:
                continue  # the effective source is clearly authoritative: freshness speaks for it
            if not _same_subject(mine, chunk):
                continue
            seen.add((cited[0], chunk.chunk_id))
            reason = _reason(mine, chunk, tx.strip_markers(claim.text), sentence)
            issues.append(Issue.of(CHECK, "conflicting_sources", reason, chunk_id=chunk.chunk_id))
    return issues


def _same_statement(own: frozenset[str], terms: frozenset[str], ours: frozenset[str],
                    theirs: frozenset[str]) -> bool:
    """The same statement with different values (not about another period or thing)."""
    if not ours or len(ours) != len(theirs) or len(ours) > MAX_DIFFERENT:
        return False  # a substitution: as many terms replaced as replacing
    if len(own & terms) / len(own | terms) < MIN_SHARED:
        return False
    return not any(_PERIOD.search(t) or is_code(t) for t in ours | theirs)


def _same_subject(a: ScoredChunk, b: ScoredChunk) -> bool:
    """False when the two chunks' titles name different things (codes: TR-2025-017 vs TR-2025-011;
    numbered names: PEP 484 vs PEP 604): the same boilerplate sentence in two reports, or the
    same header line of two proposals, is about two things."""
    codes_a = {t for t in tokenize(a.title or "") if is_code(t)}
    codes_b = {t for t in tokenize(b.title or "") if is_code(t)}
    return codes_a == codes_b and _numbered(a.title) == _numbered(b.title)


def _numbered(title: str | None) -> set[str]:
    """The numbered names a title writes ("PEP 484", "Python 3.12"), lower-cased."""
    return {m.group(0).lower() for m in IDENTIFIER.finditer(title or "")}


def _status(chunk: ScoredChunk) -> str:
    return str(chunk.metadata.get("status") or "").lower()


def _describe(chunk: ScoredChunk) -> dict[str, str]:
    """A chunk as a note names it: its title, source and date (validation/reasons.py writes it)."""
    date = str(chunk.metadata.get("published_at") or chunk.metadata.get("updated_at") or "")[:10]
    return {"title": chunk.title or "", "source": str(chunk.metadata.get("source") or ""), "date": date}


def _preferred(a: ScoredChunk, b: ScoredChunk) -> tuple[ScoredChunk, str]:
    """The source to prefer and the rule that decided: credibility, then date, then rank."""
    if abs(a.credibility - b.credibility) > 1e-6:
        return (a, "higher credibility") if a.credibility > b.credibility else (b, "higher credibility")
    da = str(a.metadata.get("published_at") or "")[:10]
    db = str(b.metadata.get("published_at") or "")[:10]
    if da != db and da and db:
        return (a, "newer") if da > db else (b, "newer")
    return a, "ranked first (no rule decides)"


def _reason(mine: ScoredChunk, other: ScoredChunk, claim: str, sentence: str) -> Reason:
    """Both statements, both sources, and which one to prefer by which rule."""
    best, rule = _preferred(mine, other)
    return Reason("conflicting_sources", {"mine": _describe(mine), "claim": claim, "other": _describe(other),
                                          "sentence": sentence.strip(), "preferred": _describe(best),
                                          "rule": rule})
