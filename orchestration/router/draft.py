"""A retrieval task before ranking, with where its filters came from (emit -> hints -> planner)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..types import RetrievalTask


@dataclass
class Draft:
    """A task before ranking, with where its filters came from.

    Attributes:
        task: the task (id assigned after ranking).
        from_perception: the filter fields taken from the perception ("time", "status",
            "doc_type", "source"); `relax_filters` may drop status and doc_type ones.
        order: emission order, the last tie-breaker.
    """

    task: RetrievalTask
    from_perception: set[str] = field(default_factory=set)
    order: int = 0
