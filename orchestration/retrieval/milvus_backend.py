"""The `milvus` search backend: both arms as Milvus searches over a build's collection.

Each arm is one `search` call: the keyword arm on the BM25 function's sparse field with
Sightline's query tokens (milvus_client.engine_text), the vector arm on the dense field by inner
product; both with the filters and the caller's ACL as one expression (milvus_expr.py). The
engine's BM25 statistics are its own, over every row of the collection (per segment in
milvus-lite): unlike the local backend they count rows the caller may not read
(docs/SECURITY.md). The client connects on first use in each process, so forked workers never
share a connection.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..kb.config import MilvusSettings
from .backend import Hits
from .filters import FilterColumns, Filters
from .milvus_client import connect, engine_text, unavailable
from .milvus_expr import expression


class MilvusBackend:
    """One build's collection on a Milvus engine (a milvus-lite file or a cluster)."""

    kind = "milvus"

    def __init__(self, kb: str, settings: MilvusSettings, collection: str, columns: FilterColumns | None = None
                 ) -> None:
        """Cheap: records where to search; the first search connects. `columns`: the build's filter
        columns, when its collection holds `acl_code`: a caller's ACL is then one scalar test on
        the codes it may read (else a test of the `acl` array, 5-10x slower in milvus-lite)."""
        self.kb = kb
        self.settings = settings
        self.collection = collection
        self.columns = columns
        self._client: Any = None
        self._pid = 0

    def _connected(self) -> Any:
        """This process's client (a forked worker connects anew), with the build's collection
        loaded: a collection starts released in a new milvus-lite process, and in a cluster after
        a restart or a release ("call load() before search"); loading a loaded one returns at once."""
        if self._client is None or self._pid != os.getpid():
            client = connect(self.kb, self.settings)
            try:
                client.load_collection(self.collection)
            except Exception:
                client.close()
                raise
            self._client, self._pid = client, os.getpid()
        return self._client

    def check(self) -> None:
        """Return when the build's collection is there; SearchEngineUnavailable otherwise.

        Promises: the connection is let go after, so a process that forks workers (gunicorn's
        preload) holds none, and a milvus-lite file stays free for the one process that searches.
        """
        client = connect(self.kb, self.settings)  # no load: a check only asks whether it is there
        try:
            present = client.has_collection(self.collection)
        except Exception as exc:  # noqa: BLE001 - the engine's own errors, mapped to one
            raise unavailable(self.kb, self.settings, exc) from exc
        finally:
            client.close()
        if not present:
            raise unavailable(self.kb, self.settings, LookupError(f"collection {self.collection} is missing"))

    def keyword(self, tokens: Sequence[str], filters: Filters, groups: Sequence[str] | None, k: int) -> Hits:
        """See SearchBackend.keyword; no tokens: no rows (the engine is not asked)."""
        if not tokens:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        return self._search([engine_text(list(tokens))], "sparse", "BM25", filters, groups, k)

    def vector(self, vector: np.ndarray, filters: Filters, groups: Sequence[str] | None, k: int) -> Hits:
        """See SearchBackend.vector."""
        return self._search([np.asarray(vector, np.float32).tolist()], "dense", "IP", filters, groups, k)

    def _search(self, data: list, field: str, metric: str, filters: Filters, groups: Sequence[str] | None,
                k: int) -> Hits:
        """One engine search; rows and scores ordered as the local arms order them.

        milvus-lite reports a BM25 hit's distance as minus its score, a cluster as the score:
        BM25 scores are never negative, so the score is the distance's magnitude on both.
        """
        try:
            hits = self._connected().search(self.collection, data=data, anns_field=field, limit=k,
                                            filter=expression(filters, groups, self._readable(groups)),
                                            output_fields=["row"],
                                            search_params={"metric_type": metric})[0]
        except Exception as exc:  # noqa: BLE001 - the engine's own errors, mapped to one
            raise unavailable(self.kb, self.settings, exc) from exc
        rows = np.fromiter((h["entity"]["row"] for h in hits), np.int64, len(hits))
        scores = np.fromiter((h["distance"] for h in hits), np.float32, len(hits))
        if metric == "BM25":
            scores = np.abs(scores)
        order = np.lexsort((rows, -scores))
        return rows[order], scores[order]

    def _readable(self, groups: Sequence[str] | None) -> list[int] | None:
        """The ACL codes a caller with `groups` may read, when the collection holds them."""
        return None if self.columns is None else self.columns.readable_codes(groups)

    def describe(self) -> dict[str, str]:
        """See SearchBackend.describe (the collection; the uri, a host's path or address, is not shown)."""
        return {"kind": self.kind, "collection": self.collection}

    def close(self) -> None:
        """See SearchBackend.close."""
        if self._client is not None and self._pid == os.getpid():
            self._client.close()
        self._client = None
