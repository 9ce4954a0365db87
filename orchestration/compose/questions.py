"""Sub-questions: a query that asks several things ("who handles it and what is the process?").

Promises: `split_questions` returns at least one part; a query asking one thing returns
itself unchanged; clauses that ask nothing ("发票金额与合同不一致") are context and are added to
every part, so each part is searchable on its own. `cue_bonus` rewards sentences shaped like
an answer to the part's question word (who -> a team or person, how/process -> steps,
when -> a date, how many -> a number); it never makes an unrelated sentence relevant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .sentences import Candidate

# Clause breaks; " and " / " or " only when a question word follows.
_CLAUSE = re.compile(r"[，,；;？?。！!]+|\s+(?:and|or|also)\s+(?=(?:who|what|which|when|where|why|how)\b)", re.I)
_QUESTION_EN = re.compile(r"\b(who|whom|whose|what|which|when|where|why|how)\b", re.I)
_QUESTION_ZH = re.compile(r"(谁|什么|哪个|哪些|哪里|哪|如何|怎么|怎样|多少|几|何时|吗|是否|为何|为什么)")

_CUES: dict[str, tuple[str, ...]] = {
    "actor": (r"\b(team|department|office|director|controller|manager|clerk|engineer|officer|"
              r"committee|responsible|verif(?:y|ies))\b", r"(部|组|办公室|总监|会计|负责|工程师)"),
    "steps": (r"\b(then|after|before|first|within|must|routes?|places?|returns?|requests?|releases?)\b",
              r"(先|随后|然后|之后|完成后|须|应|内)"),
    "date": (r"\b(19|20)\d\d\b", r"(\d{4}\s*年|\d{4}-\d{2})"),
    "number": (r"\d", r"\d"),
}
_KIND_EN = {"who": "actor", "whom": "actor", "whose": "actor", "when": "date", "how": "steps"}
_KIND_ZH = (("谁", "actor"), ("哪个部门", "actor"), ("部门", "actor"), ("流程", "steps"), ("如何", "steps"),
            ("怎么", "steps"), ("步骤", "steps"), ("何时", "date"), ("什么时候", "date"), ("多少", "number"),
            ("几", "number"))
_PROCESS_EN = re.compile(r"\b(process|procedure|steps?|workflow)\b", re.I)
_HOW_MANY_EN = re.compile(r"\bhow (many|much|long|far)\b", re.I)


@dataclass(frozen=True)
class SubQuestion:
    """One part of the query: its searchable text and the kind of answer it asks for.

    Attributes:
        text: the part with the query's context clauses prepended.
        ask: the question clause alone.
        kind: "actor", "steps", "date", "number" or None (any sentence shape).
    """

    text: str
    ask: str
    kind: str | None


def _is_question(clause: str) -> bool:
    """True when the clause contains a question word (English or Chinese)."""
    return bool(_QUESTION_EN.search(clause) or _QUESTION_ZH.search(clause))


def question_kind(clause: str) -> str | None:
    """What shape of answer the clause asks for ("actor", "steps", "date", "number"), or None."""
    if _HOW_MANY_EN.search(clause):
        return "number"
    if _PROCESS_EN.search(clause):
        return "steps"
    for word, kind in _KIND_ZH:
        if word in clause:
            return kind
    match = _QUESTION_EN.search(clause)
    return _KIND_EN.get(match.group(1).lower()) if match else None


def split_questions(query: str) -> list[SubQuestion]:
    """The query's sub-questions; a single question comes back as one part.

    Args:
        query: the query text.

    Returns:
        One SubQuestion per clause that asks something, each with the non-asking clauses
        prepended; `[SubQuestion(query, query, kind)]` when fewer than two clauses ask.
    """
    clauses: list[tuple[str, bool]] = []  # (clause, asks something)
    start = 0
    for match in list(_CLAUSE.finditer(query)) + [None]:
        end = match.start() if match else len(query)
        clause = query[start:end].strip()
        if clause:
            marked = bool(match and re.search(r"[?？]", match.group()))
            clauses.append((clause, marked or _is_question(clause)))
        start = match.end() if match else end
    asking = [c for c, asks in clauses if asks]
    if len(asking) < 2:
        return [SubQuestion(query, query, question_kind(query))]
    context = " ".join(c for c, asks in clauses if not asks)
    return [SubQuestion(f"{context} {ask}".strip(), ask, question_kind(ask)) for ask in asking]


def cue_bonus(kind: str | None, candidate: Candidate, weight: float = 0.15) -> float:
    """`weight` when the sentence has the shape the question kind asks for, else 0."""
    if kind is None:
        return 0.0
    pattern_en, pattern_zh = _CUES[kind]
    pattern = pattern_zh if candidate.language == "zh" else pattern_en
    return weight if re.search(pattern, candidate.text, re.I) else 0.0
