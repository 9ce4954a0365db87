"""The search backend interface: one knowledge base's two arms, run by a search engine.

`local` is no object: it is the build's own BM25 and FAISS files, searched in search.py with
the caller's visible rows' BM25 statistics and per-call shared scans (unchanged, bit for bit).
An engine backend (milvus_backend.py) runs each arm as one engine search with Sightline's
filters and the caller's ACL translated to the engine's expression, and returns the local
build's rows with the engine's scores; search.py fuses them as it fuses the local arms, and
names the candidates a filter rejected from the build's own filter columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from .filters import Filters

Hits = tuple[np.ndarray, np.ndarray]  # rows (int64) and scores (float32), best first, ties by row


class SearchBackend(Protocol):
    """What an engine backend promises for one knowledge base's build."""

    kind: str  # the backend's name in knowledge_bases.yaml ("milvus")

    def keyword(self, tokens: Sequence[str], filters: Filters, groups: Sequence[str] | None, k: int) -> Hits:
        """The `k` best rows for Sightline's query tokens by the engine's BM25, among rows that
        pass `filters` and that a caller with `groups` may read (None: every row)."""
        ...

    def vector(self, vector: np.ndarray, filters: Filters, groups: Sequence[str] | None, k: int) -> Hits:
        """The `k` rows of highest inner product with the normalised `vector`, under the same conditions."""
        ...

    def describe(self) -> dict[str, str]:
        """What the trace shows of the backend: its kind, where it is and what it searches."""
        ...

    def close(self) -> None:
        """Let go of the connection (a later search reconnects)."""
        ...
