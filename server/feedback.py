"""What a generative composer is told on a retry: each issue of the previous answer, made plain.

The loop turns the verdict into `Feedback` records (orchestration/types.py): the claim that
failed (markers stripped), the chunks it cited (source, title, status, the cited sentence) and
what is wrong (the issue's detail). Issues about no claim (an unanswered question, a missing
comparison side) become feedback about the answer as a whole.
"""

from __future__ import annotations

from core.text import strip_markers
from orchestration.types import Answer, Feedback
from validation.types import Verdict

MAX_FEEDBACK = 8


def feedback_for(answer: Answer, verdict: Verdict) -> list[Feedback]:
    """The feedback for a retry of `answer` (at most MAX_FEEDBACK items, in issue order).

    A cited chunk is quoted by its citation snippet: the sentence of it closest to the claim.
    """
    out: list[Feedback] = []
    for issue in verdict.issues:
        claim = answer.claims[issue.claim] if issue.claim is not None and issue.claim < len(answer.claims) else None
        cited = []
        for n in (claim.citations if claim is not None else []):
            citation = answer.citation(n)
            if citation is None:
                cited.append({"source": None, "title": f"[{n}], a number no evidence chunk had", "text": ""})
                continue
            cited.append({"source": citation.source, "title": citation.title, "status": citation.status,
                          "text": citation.snippet})
        item = Feedback(kind=issue.kind, problem=issue.detail,
                        claim=strip_markers(claim.text) if claim is not None else None, cited=cited)
        if item not in out:
            out.append(item)
    return out[:MAX_FEEDBACK]
