"""Sub-questions: a query that asks several things ("who handles it and what is the process?").

Reading the query is Perception's job: the composer answers each part, it never parses the
query itself. Promises: `split_questions` returns at least one part; a query asking one thing
returns itself unchanged; clauses that ask nothing ("发票金额与合同不一致") are context and are
added to every part, so each part is searchable on its own; each part says the kind of answer
it asks for (who -> "actor", how/process -> "steps", when -> "date", how many -> "number").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .types import Perception

# Clause breaks; " and " / " or " only when a question word follows.
_CLAUSE = re.compile(r"[，,；;？?。！!]+|\s+(?:and|or|also)\s+(?=(?:who|what|which|when|where|why|how)\b)", re.I)
_QUESTION_EN = re.compile(r"\b(who|whom|whose|what|which|when|where|why|how)\b", re.I)
_QUESTION_ZH = re.compile(r"(谁|什么|哪个|哪些|哪里|哪|如何|怎么|怎样|多少|几|何时|吗|是否|为何|为什么)")

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


def sub_questions(perception: Perception) -> list[SubQuestion]:
    """The perceived query's sub-questions (see `split_questions`)."""
    return split_questions(perception.query)
