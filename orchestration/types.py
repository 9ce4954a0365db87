"""Contracts the Orchestration agent produces (DESIGN.md section 3): tasks, plans, answers.

Plain dataclasses, JSON-serialisable through `to_dict()`. ScoredChunk (the evidence) lives in
`orchestration.retrieval.scored`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .retrieval.filters import Filters
from .retrieval.scored import ScoredChunk  # noqa: F401  (re-exported: part of the contract)


@dataclass
class RetrievalTask:
    """One weighted search the router decided on.

    Attributes:
        id: unique within the plan ("t1", "t2", ...).
        query: the text searched (after the rule's template was filled).
        search: "vector", "keyword" or "hybrid".
        kb: the knowledge base searched.
        weight: 0..1, the task's weight in cross-task fusion.
        priority: lower runs first and wins ties.
        filters: metadata filters applied inside retrieval.
        top_k: results the task contributes.
        rule: the name of the router rule that emitted it (or "retry:<kind>").
        reason: a sentence a person can read saying why the task exists.
        entity: the entity a `for_each: entity` task is about, if any.
    """

    id: str
    query: str
    search: str
    kb: str
    weight: float
    priority: int = 0
    filters: Filters = field(default_factory=Filters)
    top_k: int = 10
    rule: str = ""
    reason: str = ""
    entity: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "query": self.query, "search": self.search, "kb": self.kb,
                "weight": self.weight, "priority": self.priority, "filters": self.filters.to_dict(),
                "top_k": self.top_k, "rule": self.rule, "reason": self.reason, "entity": self.entity}


@dataclass
class Plan:
    """The router's output: tasks plus the fusion and budget settings to run them with.

    `excluded_chunks` never come back from retrieval and `dropped_claims` (sentence texts) are
    never composed again: what validation rejected in earlier attempts (router/adjust.py).
    """

    tasks: list[RetrievalTask]
    fusion_method: str = "rrf"
    fusion_k: float = 60.0
    across_kbs: str = "relevance"  # or "per_kb" (router config fusion.across_kbs)
    max_evidence: int = 8
    context_budget_words: int = 1200
    config_version: str = ""
    notes: list[str] = field(default_factory=list)  # rules that matched / were skipped, and why
    excluded_chunks: list[str] = field(default_factory=list)
    dropped_claims: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"tasks": [t.to_dict() for t in self.tasks], "fusion": {"method": self.fusion_method,
                "k": self.fusion_k, "across_kbs": self.across_kbs}, "max_evidence": self.max_evidence,
                "context_budget_words": self.context_budget_words, "config_version": self.config_version,
                "notes": list(self.notes), "excluded_chunks": list(self.excluded_chunks),
                "dropped_claims": list(self.dropped_claims)}


@dataclass
class Citation:
    """A numbered source of the answer; n is 1-based, by first use in the text."""

    n: int
    chunk_id: str
    kb: str
    source: str | None
    title: str
    updated_at: str | None
    snippet: str
    published_at: str | None = None
    status: str | None = None
    page: int | None = None  # the page of a PDF the cited chunk comes from
    url: str | None = None  # the document's own address (metadata `url`): the one host its answer may link to
    unit: str | None = None  # sentence, list_item, definition, field, table_row or code (None: not one unit)
    section: str | None = None  # the heading the cited chunk falls under
    path: list[str] | None = None  # the headings the cited unit falls under, outermost first (None: not one unit)
    name: str | None = None  # the documented name a cited field describes (a Sphinx setting, option ...)
    version_notes: list[str] | None = None  # the cited field's version notes ("Changed in version 1.0")

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Claim:
    """One sentence of the answer and the citations that must support it.

    Attributes:
        kind: "fact" (a quoted or paraphrased statement), "relation" (a comparison the composer
            derived from two facts), "verdict" (a yes/no question's "Yes." or "No.", citing the
            unit that decides it: orchestration/compose/verdict.py), or "notice" (a statement
            about the answer itself, such as a flagged issue; never needs a citation).
        numbers: the numbers the claim states, as written (validation checks them).
        entity: the comparison side the claim is about, when there is one.
        values: for relations, the compared values {"<entity>": {"value", "unit", "n"}}.
        relation: for relations, "higher", "lower", "earlier", "later" or "same" (subject vs object).
        probability: for a quoted unit, the answer model's probability that it answers the
            question (docs/ANSWER_MODEL.md); None when no model scored it.
    """

    text: str
    citations: list[int] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)
    kind: str = "fact"
    entity: str | None = None
    values: dict[str, dict] = field(default_factory=dict)
    relation: str | None = None
    probability: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class LLMCall:
    """One request to an LLM server while composing: time, tokens and how it ended.

    Attributes:
        model: the model asked.
        ms: wall time of the call, connect to last byte (or to the failure).
        outcome: "ok", or the fallback reason (timeout, connection, http_5xx, ...).
        detail: what happened, for a person ("HTTP 500 from the LLM server", ...).
        prompt_tokens, completion_tokens: from the reply's `usage` (None when it has none).
        finish_reason: the reply's `finish_reason` ("stop", "length", ...), when there is one.
    """

    model: str
    ms: float
    outcome: str = "ok"
    detail: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Feedback:
    """What validation found wrong with a claim of the previous attempt, for a generative retry.

    The loop builds these from the verdict (server/feedback.py); a generative composer sends
    them back to its model with the adjusted evidence. Chunks are named by source and quoted,
    not by number: the next attempt's evidence is numbered anew.

    Attributes:
        kind: the issue kind (unsupported_number, wrong_direction, stale_status, ...).
        problem: what is wrong, as validation wrote it.
        claim: the offending claim's text without its markers (None: about the whole answer).
        cited: the chunks the claim cited: [{"source", "title", "status", "text"}].
    """

    kind: str
    problem: str
    claim: str | None = None
    cited: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ScoredUnit:
    """One of the units an answer's scoring shows: its text (cut), probability of answering,
    kind and heading path, the features that moved it most, the cross-encoder's logit."""

    text: str
    p: float
    unit: str
    path: tuple[str, ...] = ()
    why: Mapping[str, float] = field(default_factory=dict)
    cross_encoder_logit: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "p": self.p, "unit": self.unit, "path": list(self.path), "why": dict(self.why),
                "cross_encoder_logit": self.cross_encoder_logit}


@dataclass(frozen=True)
class AnswerScoring:
    """The learned ranker's reading of an answer (orchestration/compose/ranker.py): the refusal's
    parameters (`refusal`: bias, unit_logit, rules_unanswered, threshold; `threshold` the unit-level
    one when the refusal has none) and the most probable units, best first."""

    threshold: float
    refusal: Mapping[str, float]
    best: tuple[ScoredUnit, ...]

    @property
    def refusal_threshold(self) -> float:
        """Below this probability of being answered, the question is refused."""
        return float(self.refusal.get("threshold", self.threshold))

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "refusal": dict(self.refusal), "best": [u.to_dict() for u in self.best]}


@dataclass(frozen=True)
class ShortAnswer:
    """The asked-for value as the answer's lead unit writes it ("30 days"), with the lead's
    citation number (orchestration/compose/short_answer.py)."""

    text: str
    citation: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "citation": self.citation}


@dataclass
class Answer:
    """The composed answer: text with [n] markers, its claims and its citations."""

    text: str
    claims: list[Claim] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    composer: str = "extractive"
    language: str = "en"
    notes: list[str] = field(default_factory=list)  # e.g. "LLM timed out; extractive fallback"
    # why a generative composer's answer was not used (timeout, http_5xx, uncited, ...), else None
    fallback: str | None = None
    llm_calls: list[LLMCall] = field(default_factory=list)  # the LLM requests made for this answer
    # candidate sentence ("<chunk_id>@<offset>") -> why it was chosen or not: the compose step's
    # trace (kept / rejected), not part of the answer body
    decisions: dict[str, str] = field(default_factory=dict)
    # the learned ranker's reading, when it ranked the units (None: the lexical ranker, an LLM)
    scoring: AnswerScoring | None = None
    # a value question's value, as the lead unit writes it (None: no value asked, or none written)
    short_answer: ShortAnswer | None = None
    # the question's terms as the lexical ranking weighed them (rarer among the candidate units
    # counts more: QueryTerms.by_rarity), for the compose step's trace
    term_weights: dict[str, float] = field(default_factory=dict)

    def citation(self, n: int) -> Citation | None:
        """The citation numbered n, or None."""
        return next((c for c in self.citations if c.n == n), None)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "claims": [c.to_dict() for c in self.claims],
                "citations": [c.to_dict() for c in self.citations], "composer": self.composer,
                "language": self.language, "notes": list(self.notes), "fallback": self.fallback,
                "llm_calls": [c.to_dict() for c in self.llm_calls],
                "short_answer": self.short_answer.to_dict() if self.short_answer else None}
