"""Answer shapes: `cue_bonus` rewards sentences shaped like an answer to a sub-question's kind.

The sub-questions themselves are Perception's (perception/questions.py). A bonus goes to a
sentence shaped like the answer the part asks for (who -> a team or person, how/process ->
steps, when -> a date, how many -> a number); it never makes an unrelated sentence relevant.
"""

from __future__ import annotations

import re

from .sentences import Candidate

_CUES: dict[str, tuple[str, ...]] = {
    "actor": (r"\b(team|department|office|director|controller|manager|clerk|engineer|officer|"
              r"committee|responsible|verif(?:y|ies))\b", r"(部|组|办公室|总监|会计|负责|工程师)"),
    "steps": (r"\b(then|after|before|first|within|must|routes?|places?|returns?|requests?|releases?)\b",
              r"(先|随后|然后|之后|完成后|须|应|内)"),
    "date": (r"\b(19|20)\d\d\b", r"(\d{4}\s*年|\d{4}-\d{2})"),
    "number": (r"\d", r"\d"),
}

def cue_bonus(kind: str | None, candidate: Candidate, weight: float = 0.15) -> float:
    """`weight` when the sentence has the shape the question kind asks for, else 0."""
    if kind is None:
        return 0.0
    pattern_en, pattern_zh = _CUES[kind]
    pattern = pattern_zh if candidate.language == "zh" else pattern_en
    return weight if re.search(pattern, candidate.text, re.I) else 0.0
