"""Evidence check: the answer rests on some evidence at all.

Promise: `no_evidence` (one issue, about no claim) when the evidence is empty, or when no
non-notice claim cites a chunk that is in the evidence (the answer only says it has nothing,
or states things without sources). A notice-only answer over empty evidence is the honest
"insufficient" answer; the issue still asks the router to search wider before settling for it.
Pure and deterministic.
"""

from __future__ import annotations

from typing import Sequence

from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer
from perception.types import Perception

from validation.context import CheckContext
from validation.types import Issue

CHECK = "evidence"


def check(perception: Perception | None, answer: Answer, evidence: Sequence[ScoredChunk],
          context: CheckContext) -> list[Issue]:
    """[no_evidence] when nothing in the evidence supports the answer, else [].

    Args:
        perception: unused.
        answer: the composed answer.
        evidence: the chunks the composer was given.
        context: unused.
    """
    if not evidence:
        return [Issue(CHECK, "no_evidence", "retrieval returned no evidence for this query")]
    if not _cites_evidence(answer, {chunk.chunk_id for chunk in evidence}):
        stated = sum(1 for c in answer.claims if c.kind != "notice")
        return [Issue(CHECK, "no_evidence", f"{len(evidence)} evidence chunk(s) were found but none is "
                      f"cited by a claim of the answer ({stated} non-notice claim(s))")]
    return []


def _cites_evidence(answer: Answer, chunk_ids: set[str]) -> bool:
    """True when some non-notice claim cites a chunk of the evidence."""
    for claim in answer.claims:
        if claim.kind == "notice":
            continue
        for n in claim.citations:
            citation = answer.citation(n)
            if citation is not None and citation.chunk_id in chunk_ids:
                return True
    return False
