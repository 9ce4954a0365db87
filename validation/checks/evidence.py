"""Evidence check: the answer rests on some evidence at all, about what was asked.

Promise: `no_evidence` (one issue, about no claim) when the evidence is empty, when no
non-notice claim cites a chunk that is in the evidence (the answer only says it has nothing,
or states things without sources), or when the evidence does not mention most of the
people, organisations, products and works the question is about: sentences that merely share
words with a question about someone the knowledge base never mentions are not an answer. A
notice-only answer over empty evidence is the honest
"insufficient" answer; the issue still asks the router to search wider before settling for it.
Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.reading.identifiers import IDENTIFIER, names_identifier
from core.vocab import SUBJECT_LABELS
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer
from perception.types import Perception
from validation import text as tx
from validation.context import CheckContext
from validation.reasons import Reason
from validation.types import Issue

CHECK = "evidence"
# Share of the question's subjects the evidence must mention. Measured on 200 MultiHop-RAG dev
# queries with NER: 0.5 refuses 67% of null questions at 11% false refusals; 0.67 refuses 93%
# at 35% (docs/VALIDATION.md).
MIN_SUBJECT_COVERAGE = 0.5


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
        return [_refusal(Reason("no_evidence"))]
    absent = _absent_subjects(perception, evidence)
    if absent is not None:
        return [_refusal(Reason("subjects_absent", {"names": list(absent)}))]
    if not _cites_evidence(answer, {chunk.chunk_id for chunk in evidence}):
        stated = sum(1 for c in answer.claims if c.kind != "notice")
        return [_refusal(Reason("nothing_cited", {"found": len(evidence), "stated": stated}))]
    return []


def _refusal(reason: Reason) -> Issue:
    return Issue.of(CHECK, "no_evidence", reason)


def _absent_subjects(perception: Perception | None, evidence: Sequence[ScoredChunk]) -> list[str] | None:
    """The question's subjects the evidence never mentions, when they are more than half of them.

    Subjects are named entities other than publications (a source is matched by metadata,
    and the router already filters on it) and generic terms. Returns None when enough are
    covered or the question names none.
    """
    if perception is None:
        return None
    subjects: dict[str, set[str]] = {}  # canonical name -> every way the question wrote it
    for e in perception.entities:
        if e.label in SUBJECT_LABELS and not _described(e.label, e.text):
            forms = {e.text, e.normalized or e.text}
            subjects.setdefault(e.normalized or e.text, set()).update(forms | {_POSSESSIVE.sub("", f) for f in forms})
    if not subjects:
        return None
    texts = [f"{chunk.title}\n{chunk.text}" for chunk in evidence]
    # 北京 normalised to 'Beijing' is still mentioned by a Chinese text that says 北京
    absent = [s for s, forms in subjects.items()
              if not any(tx.mentions(f, t) or names_identifier_in(f, t) for f in forms for t in texts)]
    return absent if len(absent) / len(subjects) > 1 - MIN_SUBJECT_COVERAGE else None


_POSSESSIVE = re.compile(r"['’]s?$")


def _described(label: str, text: str) -> bool:
    """A quoted description rather than a name ('New users of sportsbooks', 'the match'): the
    question quotes how it reads the source, which seldom says it in those words."""
    words = text.strip("'\"“”‘’ ").split()
    return label == "QUOTED" and (len(words) >= 3 or (bool(words) and words[0].lower() in ("the", "a", "an")))


def names_identifier_in(form: str, text: str) -> bool:
    """A numbered name ("Python 3.12.0") written as the shared rule reads it (core/reading/identifiers.py)."""
    return bool(IDENTIFIER.fullmatch(form)) and names_identifier(form, text)


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
