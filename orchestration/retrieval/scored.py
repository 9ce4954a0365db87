"""ScoredChunk: a retrieved chunk with its fused score and how it got there (DESIGN.md 3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ScoredChunk:
    """One piece of evidence.

    Attributes:
        score: the ranking score. Out of one search (Retriever): `fused` x `credibility`. Out
            of the executor's cross-task fusion: the plan-level fused score, equal to `fused`
            (each task's list was already ordered by its credibility-weighted scores).
        fused: the fused score before credibility (after the executor: the cross-task fusion).
        ranks / scores: 1-based rank and raw score per list it appeared in
            ("<task>:keyword", "<task>:vector", or a task id after cross-task fusion).
        credibility: the multiplier; credibility_factors its parts.
        units: the chunk's answer units as the ingest stored them (`orchestration/kb/units.py`);
            None for a chunk of an older build.
    """

    chunk_id: str
    kb: str
    text: str
    title: str
    metadata: dict[str, Any]
    entities: list[dict] = field(default_factory=list)
    score: float = 0.0
    fused: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)
    credibility: float = 1.0
    credibility_factors: dict[str, float] = field(default_factory=dict)
    units: tuple[Any, ...] | None = None

    @property
    def doc_id(self) -> str:
        """The document the chunk comes from (chunk ids are `<doc id>#<position>`)."""
        return self.chunk_id.rsplit("#", 1)[0]

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "doc_id": self.doc_id, "kb": self.kb, "title": self.title, "text": self.text,
                "metadata": self.metadata, "entities": self.entities, "score": round(self.score, 6),
                "fused": round(self.fused, 6), "ranks": self.ranks,
                "scores": {k: round(v, 6) for k, v in self.scores.items()},
                "credibility": round(self.credibility, 6), "credibility_factors": self.credibility_factors}
