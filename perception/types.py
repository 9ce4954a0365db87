"""The Perception contract: plain, JSON-serialisable dataclasses (DESIGN.md section 3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from core.vocab import ACTIONS, DOC_TYPE_VALUES, ENTITY_LABELS, LANGUAGES, STATUS_VALUES  # noqa: F401 - re-exported

from .question import Question

ORIGINS = ("ner", "rule", "pattern", "inferred")  # inferred: a comparison side read across "vs"


def _iso(value: date | None) -> str | None:
    """An ISO date string, or None for an open bound."""
    return value.isoformat() if value is not None else None


def _from_iso(value: Any) -> date | None:
    """A date from an ISO string (a date object or None passes through)."""
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


@dataclass(frozen=True)
class Entity:
    """One extracted entity.

    Args:
        text: the surface text exactly as it appears in the query.
        label: CODE, ORG, PERSON, PLACE, PRODUCT, SOURCE, TERM, QUOTED, EVENT or WORK.
        span: (start, end) character offsets into the query, end exclusive.
        origin: "rule" (a lexicon), "pattern" (a regular expression) or "ner" (the statistical model).
        normalized: the canonical form (a KB source name, a lexicon's preferred term, an upper-case code).
    """

    text: str
    label: str
    span: tuple[int, int]
    origin: str
    normalized: str

    def to_dict(self) -> dict:
        """The entity as JSON-ready data (span as a two-item list)."""
        return {"text": self.text, "label": self.label, "span": [self.span[0], self.span[1]],
                "origin": self.origin, "normalized": self.normalized}

    @classmethod
    def from_dict(cls, data: dict) -> Entity:
        """Rebuild an entity from `to_dict()` output."""
        span = data.get("span") or (0, 0)
        return cls(text=data["text"], label=data["label"], span=(int(span[0]), int(span[1])),
                   origin=data.get("origin", "rule"),
                   normalized=data.get("normalized", data["text"]))


@dataclass(frozen=True)
class TimeWindow:
    """An inclusive date window; None on a side means open on that side.

    Args:
        start: first day included, or None.
        end: last day included, or None.
        text: the query text the window came from (several phrases joined by "; ").
    """

    start: date | None
    end: date | None
    text: str

    def contains(self, day: date) -> bool:
        """True when `day` lies inside the window (open sides accept everything)."""
        return (self.start is None or day >= self.start) and (self.end is None or day <= self.end)

    def to_dict(self) -> dict:
        """The window with ISO date strings."""
        return {"start": _iso(self.start), "end": _iso(self.end), "text": self.text}

    @classmethod
    def from_dict(cls, data: dict) -> TimeWindow:
        """Rebuild a window from `to_dict()` output."""
        return cls(start=_from_iso(data.get("start")), end=_from_iso(data.get("end")),
                   text=data.get("text", ""))


@dataclass(frozen=True)
class Constraints:
    """Filters and intent flags the router and validation read.

    Args:
        time: the time window, or None when the query states no time.
        status: normalised status values (see STATUS_VALUES), in order of appearance.
        doc_type: normalised document types (see DOC_TYPE_VALUES), in order of appearance.
        source: publication / source names exactly as in KB `source` metadata.
        quantitative: True when the query asks for a number (how many, rate, highest, 多少 ...).
        unknown_sources: publications the query cites that no knowledge base holds documents
            from ("an article by Bloomberg" when no KB has Bloomberg; perception/publications.py).
    """

    time: TimeWindow | None = None
    status: list[str] = field(default_factory=list)
    doc_type: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    quantitative: bool = False
    unknown_sources: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The constraints as JSON-ready data."""
        return {"time": self.time.to_dict() if self.time else None, "status": list(self.status),
                "doc_type": list(self.doc_type), "source": list(self.source),
                "quantitative": self.quantitative, "unknown_sources": list(self.unknown_sources)}

    @classmethod
    def from_dict(cls, data: dict) -> Constraints:
        """Rebuild constraints from `to_dict()` output."""
        time = data.get("time")
        return cls(time=TimeWindow.from_dict(time) if time else None,
                   status=list(data.get("status", [])), doc_type=list(data.get("doc_type", [])),
                   source=list(data.get("source", [])),
                   quantitative=bool(data.get("quantitative", False)),
                   unknown_sources=list(data.get("unknown_sources", [])))


@dataclass(frozen=True)
class Perception:
    """What the Perception agent understood of one query.

    Args:
        query: the query as received.
        language: "en" or "zh".
        action: compare, explain, how_to, list, summarize or lookup.
        entities: extracted entities, ordered by span.
        constraints: time window, status, doc type, source, quantitative flag.
        keywords: content words, codes and entities for the keyword (BM25) arm.
        question: what it asks (perception/question.py): kind, slot and unit, counted noun,
            asked subject, polarity, identifiers, sub-questions; `slot` and `slot_head` are its
            `slot` and `head`.
        notes: the explainability trace: one dict per decision, each with at least
            "rule" and "text" (and "span" and "produced" when they apply); time phrases that
            were not understood appear with rule "time.not_understood".
    """

    query: str
    language: str
    action: str
    entities: list[Entity] = field(default_factory=list)
    constraints: Constraints = field(default_factory=Constraints)
    keywords: list[str] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)
    question: Question = field(default_factory=lambda: Question(""))

    @property
    def slot(self) -> str:
        """The kind of fact that would answer it (core.vocab.SLOTS): the question's slot."""
        return self.question.slot

    @property
    def slot_head(self) -> str:
        """The question's word the slot attaches to ("won" in "Who won X?"), "" when none is read."""
        return self.question.head

    def to_dict(self) -> dict:
        """DESIGN.md section 3's shape, with dates as ISO strings."""
        return {"query": self.query, "language": self.language, "action": self.action,
                "entities": [e.to_dict() for e in self.entities],
                "constraints": self.constraints.to_dict(), "keywords": list(self.keywords),
                "slot": self.slot, "slot_head": self.slot_head, "question": self.question.to_dict(),
                "notes": [dict(n) for n in self.notes]}

    @classmethod
    def from_dict(cls, data: dict) -> Perception:
        """Rebuild a Perception from `to_dict()` output (round-trips exactly)."""
        return cls(query=data["query"], language=data["language"], action=data["action"],
                   entities=[Entity.from_dict(e) for e in data.get("entities", [])],
                   constraints=Constraints.from_dict(data.get("constraints") or {}),
                   keywords=list(data.get("keywords", [])),
                   notes=[dict(n) for n in data.get("notes", [])],
                   question=Question.from_dict(data["question"]) if data.get("question") else
                   Question(str(data["query"]), slot=str(data.get("slot", "fact")),
                            head=str(data.get("slot_head", ""))))
