"""The dense arm: a FAISS inner-product index over unit vectors, memory-mapped on load.

Exact (`IndexFlatIP`) below `hnsw_threshold` vectors, HNSW above. Loading uses
`IO_FLAG_MMAP_IFC`, which maps Flat and HNSW storage without copying it, so gunicorn
workers share the pages. Filters are applied inside the search with an ID selector; when a
filter leaves few rows on an HNSW index, those rows are scored exactly instead, because a
graph walk over a sparse selection loses recall.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import faiss
import numpy as np

from core.errors import IndexUnavailable

from .topk import top_k

INDEX_FILE = "index.faiss"


@dataclass(frozen=True)
class DenseParams:
    """Index choice and HNSW parameters (from config)."""

    hnsw_threshold: int = 200_000
    hnsw_m: int = 32
    ef_construction: int = 200
    ef_search: int = 128
    exact_below_selected: int = 20_000  # filtered HNSW search falls back to exact below this


class DenseIndex:
    """A FAISS index whose row numbers are the knowledge base's chunk rows."""

    def __init__(self, index: faiss.Index, params: DenseParams) -> None:
        self.index = index
        self.params = params
        if isinstance(index, faiss.IndexHNSW):
            index.hnsw.efSearch = params.ef_search

    @property
    def kind(self) -> str:
        """"hnsw" or "flat"."""
        return "hnsw" if isinstance(self.index, faiss.IndexHNSW) else "flat"

    @property
    def size(self) -> int:
        return self.index.ntotal

    @classmethod
    def build(cls, vectors: np.ndarray, params: DenseParams = DenseParams()) -> DenseIndex:
        """Index unit vectors (rows in chunk order); HNSW when there are many."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        dim = vectors.shape[1]
        index: faiss.Index
        if vectors.shape[0] >= params.hnsw_threshold:
            index = faiss.IndexHNSWFlat(dim, params.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = params.ef_construction
        else:
            index = faiss.IndexFlatIP(dim)
        index.add(vectors)
        return cls(index, params)

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        faiss.write_index(self.index, str(directory / INDEX_FILE))
        (directory / "dense.json").write_text(
            json.dumps({"kind": self.kind, "size": self.size, "dim": self.index.d,
                        "params": self.params.__dict__}), encoding="utf-8")

    @classmethod
    def load(cls, directory: Path, params: DenseParams | None = None) -> DenseIndex:
        """Map a saved index without copying it (IO_FLAG_MMAP_IFC)."""
        path = directory / INDEX_FILE
        try:
            meta = json.loads((directory / "dense.json").read_text(encoding="utf-8"))
            index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC)
        except (OSError, ValueError, RuntimeError) as exc:
            raise IndexUnavailable(f"dense index {path} is unreadable ({exc})", field=str(path)) from exc
        return cls(index, params or DenseParams(**meta["params"]))

    def reconstruct(self, rows: np.ndarray) -> np.ndarray:
        """The stored vectors of these rows."""
        rows = np.asarray(rows, dtype=np.int64)
        return self.index.reconstruct_batch(rows) if rows.size else np.empty((0, self.index.d), np.float32)

    def search(self, queries: np.ndarray, k: int, allowed: np.ndarray | None = None
               ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Top-k rows for each query vector (batched), restricted to `allowed` rows.

        Returns:
            One (rows, scores) pair per query, best first.
        """
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if queries.shape[0] == 0 or self.size == 0 or k <= 0:
            return [(np.empty(0, np.int64), np.empty(0, np.float32)) for _ in range(queries.shape[0])]
        k = min(k, self.size)
        if allowed is None:
            scores, rows = self.index.search(queries, k)
            return [_valid(r, s) for r, s in zip(rows, scores, strict=True)]
        selected = np.flatnonzero(allowed)
        if selected.size == 0:
            return [(np.empty(0, np.int64), np.empty(0, np.float32)) for _ in range(queries.shape[0])]
        if self.kind == "hnsw" and selected.size < self.params.exact_below_selected:
            return self._exact_over(queries, selected, k)
        bitmap = np.packbits(np.asarray(allowed, dtype=np.uint8), bitorder="little")
        selector = faiss.IDSelectorBitmap(allowed.shape[0], faiss.swig_ptr(bitmap))
        if self.kind == "hnsw":
            # faiss's own stubs lack SearchParametersHNSW and the keyword constructor SWIG adds
            search_params = faiss.SearchParametersHNSW(  # type: ignore[attr-defined]
                sel=selector, efSearch=max(self.params.ef_search, k))
        else:
            search_params = faiss.SearchParameters(sel=selector)  # type: ignore[call-arg]
        scores, rows = self.index.search(queries, min(k, selected.size), params=search_params)
        return [_valid(r, s) for r, s in zip(rows, scores, strict=True)]

    def scan(self, query: np.ndarray) -> np.ndarray | None:
        """One query vector's score against every row of an exact index (None for HNSW).

        The values are FAISS's own inner products (`fvec_inner_products_ny`, the kernel the flat
        search runs), so `select` over them returns what `search` would, bit for bit, under any
        number of masks: several filtered searches of one query scan the vectors once.
        """
        if self.kind != "flat" or self.size == 0:
            return None
        flat = self._flat_vectors()
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        out = np.empty(self.size, dtype=np.float32)
        faiss.fvec_inner_products_ny(  # type: ignore[attr-defined]  # not in faiss's stubs
            faiss.swig_ptr(out), faiss.swig_ptr(query), faiss.swig_ptr(flat), self.index.d, self.size)
        return out

    def _flat_vectors(self) -> np.ndarray:
        """The flat index's stored vectors as an (n, d) array, without a copy (mapped pages)."""
        codes = faiss.rev_swig_ptr(cast("faiss.IndexFlat", self.index).get_xb(), self.size * self.index.d)
        return np.asarray(codes).reshape(self.size, self.index.d)

    @staticmethod
    def select(scores: np.ndarray, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Top-k rows of a `scan`, best first, restricted to `allowed` rows, as `search` ranks them.

        FAISS orders equal scores by descending row (its result heap compares (score, id)), so
        the selection runs on the reversed arrays, where `top_k`'s lower-position-first is that.
        """
        last = scores.shape[0] - 1
        positions, best = top_k(scores[::-1], k, allowed=None if allowed is None else allowed[::-1])
        return last - positions, best

    def _exact_over(self, queries: np.ndarray, selected: np.ndarray, k: int
                    ) -> list[tuple[np.ndarray, np.ndarray]]:
        vectors = self.reconstruct(selected)
        all_scores = queries @ vectors.T
        out = []
        for scores in all_scores:
            positions, best = top_k(scores.astype(np.float32), k)
            out.append((selected[positions], best))
        return out


def _valid(rows: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = rows >= 0
    return rows[keep].astype(np.int64), scores[keep].astype(np.float32)
