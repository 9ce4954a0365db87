"""The systems compared, one small adapter each, behind one interface (`System`).

Promises: every adapter takes its inputs (corpus arrays or vectors, the queries, where to save) at
construction, and then
- `build()` builds the index as a worker would get it (saved, then loaded from disk where the system
  saves at all), drops its build inputs, and returns what building cost: `build_s`, usually
  `build_rss_growth_mb`, and `disk_mb` (None for a system that saves nothing);
- `details()` returns what was built (postings, index kind, HNSW parameters, bm25s method);
- `search(i)` runs query `i`, top-K, the way a caller of that system must.
`name` is the system's key in the JSON report. BM25: our `BM25Index`, `rank_bm25.BM25Okapi` (also our
score oracle, see `bm25_parity`), `bm25s`. Dense: our `DenseIndex` (flat or HNSW) and a numpy scan.
Heavy libraries are imported inside `build`, so importing this module stays cheap.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from benchmarks.retrieval.harness import MB, K, sig3, timed_build
from benchmarks.synthetic import Corpus

if TYPE_CHECKING:
    from orchestration.retrieval.dense import DenseParams

WORKER_EMBEDDER = "minilm"  # the embedder a deployed worker runs


class System(Protocol):
    """One system under comparison (see the module docstring for what each method promises)."""

    name: str

    def build(self) -> dict[str, Any]:
        """Build, save and load the index; return build seconds, RSS growth and disk size."""
        ...

    def details(self) -> dict[str, Any]:
        """What was built, for the report (empty where there is nothing to say)."""
        ...

    def search(self, i: int) -> Any:
        """Top-K for query `i`."""
        ...


def top_k_of(scores: np.ndarray) -> np.ndarray:
    """Top-K positions of a full score array, best first (what a caller of rank_bm25 must do)."""
    part = np.argpartition(-scores, K)[:K]
    return part[np.argsort(-scores[part], kind="stable")]


def disk_mb(directory: Path) -> float:
    """Total size of the files under `directory` in MB."""
    return round(sum(p.stat().st_size for p in directory.rglob("*") if p.is_file()) / MB, 1)


def build_figures(build_s: float, rss_growth: float, disk: float | None) -> dict[str, Any]:
    """What `System.build` returns: seconds (2 decimals), RSS growth and disk size in MB."""
    return {"build_s": round(build_s, 2), "build_rss_growth_mb": rss_growth, "disk_mb": disk}


def build_save_load(build: Callable[[], Any], load: Callable[[Path], Any], directory: Path) -> tuple[Any, dict]:
    """Build one of our indexes, save it, drop the built copy and load it back as a worker would.

    Returns:
        The loaded index and its `build_figures`.
    """
    built, build_s, rss_growth = timed_build(build)
    built.save(directory)
    del built
    gc.collect()
    return load(directory), build_figures(build_s, rss_growth, disk_mb(directory))


# --- BM25 ------------------------------------------------------------------------------

class _FromTermIds:
    """The inputs of a BM25 system indexed from the corpus's term-id arrays (held until `build`)."""

    def __init__(self, arrays: list[np.ndarray], vocab: dict[str, int], queries: list[list[str]],
                 directory: Path) -> None:
        self._arrays: list[np.ndarray] | None = arrays
        self._vocab = vocab
        self._queries = queries
        self._directory = directory


class OursBM25(_FromTermIds):
    """Our `BM25Index`, built from term ids, saved, and searched as loaded (memory-mapped)."""

    name = "ours"
    index: Any = None

    def build(self) -> dict[str, Any]:
        from orchestration.retrieval.bm25 import BM25Index

        assert self._arrays is not None, "built twice"
        build = functools.partial(BM25Index.build_from_term_ids, self._arrays, self._vocab)
        self._arrays = None
        self.index, figures = build_save_load(build, BM25Index.load, self._directory)
        return figures

    def details(self) -> dict[str, Any]:
        return {"postings": self.index.stats["n_postings"]}

    def search(self, i: int) -> Any:
        return self.index.search(self._queries[i], K)


class RankBM25:
    """`rank_bm25.BM25Okapi` on the same tokens, in memory; top-K by argpartition of `get_scores`."""

    name = "rank_bm25"

    def __init__(self, corpus: Corpus, queries: list[list[str]]) -> None:
        self._corpus: Corpus | None = corpus
        self._queries = queries
        self.model: Any = None

    def build(self) -> dict[str, Any]:
        from rank_bm25 import BM25Okapi

        assert self._corpus is not None, "built twice"
        token_lists = self._corpus.token_lists()
        self._corpus = None
        self.model, build_s, rss_growth = timed_build(lambda: BM25Okapi(token_lists))
        return build_figures(build_s, rss_growth, None)

    def details(self) -> dict[str, Any]:
        return {}

    def search(self, i: int) -> Any:
        return top_k_of(self.model.get_scores(self._queries[i]))


class Bm25s(_FromTermIds):
    """`bm25s.BM25` (its default method), indexed from the same ids and saved; one thread per query."""

    name = "bm25s"
    retriever: Any = None

    def build(self) -> dict[str, Any]:
        import bm25s

        assert self._arrays is not None, "built twice"
        id_lists = [a.tolist() for a in self._arrays]
        self._arrays = None
        retriever = self.retriever = bm25s.BM25()
        _, build_s, rss_growth = timed_build(
            functools.partial(retriever.index, (id_lists, self._vocab), show_progress=False))
        del id_lists
        retriever.save(str(self._directory))
        return build_figures(build_s, rss_growth, disk_mb(self._directory))

    def details(self) -> dict[str, Any]:
        return {"method": self.retriever.method}

    def search(self, i: int) -> Any:
        return self.retriever.retrieve([self._queries[i]], k=K, show_progress=False, n_threads=1)


def bm25_parity(ours: OursBM25, oracle: RankBM25, queries: list[list[str]]) -> dict[str, float]:
    """Largest score difference and top-10 agreement between our index and BM25Okapi (both built)."""
    diffs, overlap = [], []
    for tokens in queries:
        a, b = ours.index.get_scores(tokens), oracle.model.get_scores(tokens)
        diffs.append(float(np.max(np.abs(a - b))))
        overlap.append(len(set(top_k_of(a).tolist()) & set(top_k_of(b).tolist())) / K)
    return {"max_abs_score_diff": sig3(max(diffs)), "top10_overlap": round(float(np.mean(overlap)), 4),
            "queries": len(queries)}


# --- dense -----------------------------------------------------------------------------

class OursDense:
    """Our `DenseIndex` with the given params (`label` "flat" or "hnsw"), saved and loaded (mmap)."""

    def __init__(self, label: str, params: DenseParams, vectors: np.ndarray, queries: np.ndarray,
                 directory: Path) -> None:
        self.name = f"ours_{label}"
        self._label = label
        self._params = params
        self._vectors: np.ndarray | None = vectors
        self._queries = queries
        self._directory = directory
        self.index: Any = None

    def build(self) -> dict[str, Any]:
        from orchestration.retrieval.dense import DenseIndex

        assert self._vectors is not None, "built twice"
        build = functools.partial(DenseIndex.build, self._vectors, self._params)
        self._vectors = None
        self.index, figures = build_save_load(build, DenseIndex.load, self._directory)
        return figures

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.index.kind}
        if self._label == "hnsw":
            out.update({"m": self._params.hnsw_m, "ef_construction": self._params.ef_construction,
                        "ef_search": self._params.ef_search})
        return out

    def search(self, i: int) -> Any:
        return self.index.search(self._queries[i:i + 1], K)


class NumpyScan:
    """The exact baseline: `vectors @ q` and a top-K by argpartition, over the same float32 vectors."""

    name = "numpy"

    def __init__(self, vectors: np.ndarray, queries: np.ndarray) -> None:
        self._vectors = vectors
        self._queries = queries

    def build(self) -> dict[str, Any]:
        return {"build_s": 0.0, "disk_mb": round(self._vectors.nbytes / MB, 1)}

    def details(self) -> dict[str, Any]:
        return {}

    def search(self, i: int) -> np.ndarray:
        return top_k_of(self._vectors @ self._queries[i])
