"""The systems raced by `bench peers`, one adapter each, all over one `Corpus`.

Promises:
- Every adapter has `name`, `version`, `settings` (what was configured, for the report) and
  `search(i)`, which runs query `i` end to end (query embedding included) and keeps the ranked
  chunk rows in `results[i]`; the race times `search` and scores `results`.
- The peers index exactly `Corpus.texts` with exactly `Corpus.vectors` (txtai's external
  vectors are handed over in document order and checked text by text) and embed the query
  with `Corpus.embed`, the embedder Sightline's retriever uses.
- `load_peers` builds the peers asked for; one whose package is missing is left out with a
  message saying how to install it, never an exception.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Protocol

import numpy as np

PEERS = ("txtai", "haystack")
INSTALL_HINT = "install the peers with `make setup-peers` (see pyproject.toml's `peers` extra)"


@dataclass
class Corpus:
    """What every system indexes and how each embeds a query.

    Attributes:
        texts: chunk texts by row, as Sightline's BM25 and dense arms index them (title + text).
        vectors: the stored passage vectors by row (unit length, float32).
        queries: query texts, by query index.
        embed: one query text -> its unit vector (Sightline's embedder).
    """

    texts: list[str]
    vectors: np.ndarray
    queries: list[str]
    embed: Callable[[str], np.ndarray]


class System(Protocol):
    name: str
    version: str
    settings: dict[str, Any]
    results: dict[int, list[int]]

    def search(self, i: int) -> None:
        """Run query i (embedding included); its ranked chunk rows go to results[i]."""
        ...


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


class SightlineSystem:
    """Sightline's hybrid retrieval as `sightline eval` runs it (evaluation.runner.retrieve)."""

    name = "sightline"

    def __init__(self, retriever: Any, kb: str, queries: Sequence[Any], k: int, rows: dict[str, int]) -> None:
        from evaluation.runner import retrieve

        self._retrieve = retrieve
        self.retriever, self.kb, self.queries, self.k, self.rows = retriever, kb, queries, k, rows
        self.version = package_version("sightline")
        settings = retriever.kb(kb).settings
        self.settings = {"fusion": settings.fusion.method, "weights": dict(settings.fusion.weights),
                         "candidates_per_arm": max(k, 200), "credibility": False}
        self.results: dict[int, list[int]] = {}

    def search(self, i: int) -> None:
        self.retriever.forget_vectors()  # embed every query, as the peers do (a dict clear: ~0.1 us)
        chunks = self._retrieve(self.retriever, self.kb, self.queries[i], "hybrid", self.k)[0]
        self.results[i] = [self.rows[c.chunk_id] for c in chunks]


class TxtaiSystem:
    """txtai `Embeddings` in hybrid mode over the stored vectors (method `external`)."""

    name = "txtai"

    def __init__(self, corpus: Corpus, k: int) -> None:
        from txtai import Embeddings  # ImportError: the peer is not installed

        self.version = package_version("txtai")
        self.k, self.corpus = k, corpus
        self._cursor: int | None = 0  # next stored row handed to txtai while indexing; None after
        # `transform` must be a plain function: txtai calls any other callable to get one
        self.embeddings = Embeddings(method="external", transform=lambda data: self._transform(data), hybrid=True,
                                     backend="faiss", faiss={"components": "IDMap,Flat"})
        self.embeddings.index((row, text, None) for row, text in enumerate(corpus.texts))
        if self._cursor != len(corpus.texts):
            raise RuntimeError(f"txtai took {self._cursor} stored vectors of {len(corpus.texts)}")
        self._cursor = None
        scoring = self.embeddings.config.get("scoring", {})
        self.settings = {"fusion": "convex (normalised BM25 + cosine)", "scoring": scoring.get("method"),
                         "ann": "faiss IDMap,Flat (exact)", "candidates_per_arm": f"{k * 10} (txtai: limit x 10)"}
        self.results: dict[int, list[int]] = {}

    def _transform(self, data: list[str]) -> np.ndarray:
        if self._cursor is None:  # a search: embed the query
            return np.stack([self.corpus.embed(text) for text in data])
        start, end = self._cursor, self._cursor + len(data)
        if list(data) != self.corpus.texts[start:end]:
            raise RuntimeError(f"txtai asked for vectors out of document order at row {start}")
        self._cursor = end
        return self.corpus.vectors[start:end].copy()  # txtai normalises in place

    def search(self, i: int) -> None:
        self.results[i] = [int(uid) for uid, _ in self.embeddings.search(self.corpus.queries[i], self.k)]


class HaystackSystem:
    """A Haystack 2.x pipeline: in-memory BM25 + embedding retrievers joined by reciprocal rank fusion."""

    name = "haystack"

    def __init__(self, corpus: Corpus, k: int, candidates: int) -> None:
        os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no telemetry calls from a benchmark
        from haystack import Document, Pipeline, component  # ImportError: the peer is not installed
        from haystack.components.joiners import DocumentJoiner
        from haystack.components.retrievers.in_memory import InMemoryBM25Retriever, InMemoryEmbeddingRetriever
        from haystack.document_stores.in_memory import InMemoryDocumentStore

        self.version = package_version("haystack-ai")
        self.corpus = corpus

        @component
        class QueryEmbedder:
            """The query's vector from Sightline's embedder, as a Haystack text embedder gives it."""

            @component.output_types(embedding=list[float])
            def run(self, text: str) -> dict[str, list[float]]:
                return {"embedding": corpus.embed(text).tolist()}

        store = InMemoryDocumentStore()
        store.write_documents([Document(id=str(row), content=text, embedding=vector.tolist())
                               for row, (text, vector) in enumerate(zip(corpus.texts, corpus.vectors, strict=True))])
        pipeline = Pipeline()
        pipeline.add_component("embedder", QueryEmbedder())
        pipeline.add_component("bm25", InMemoryBM25Retriever(store, top_k=candidates))
        pipeline.add_component("dense", InMemoryEmbeddingRetriever(store, top_k=candidates))
        pipeline.add_component("joiner", DocumentJoiner(join_mode="reciprocal_rank_fusion", top_k=k))
        pipeline.connect("embedder.embedding", "dense.query_embedding")
        pipeline.connect("bm25", "joiner")
        pipeline.connect("dense", "joiner")
        self.pipeline = pipeline
        self.settings = {"fusion": "reciprocal_rank_fusion (DocumentJoiner)", "bm25": store.bm25_algorithm,
                         "similarity": store.embedding_similarity_function, "candidates_per_arm": candidates}
        self.results: dict[int, list[int]] = {}

    def search(self, i: int) -> None:
        query = self.corpus.queries[i]
        out = self.pipeline.run({"embedder": {"text": query}, "bm25": {"query": query}})
        self.results[i] = [int(doc.id) for doc in out["joiner"]["documents"]]


class QueryEmbeddingOnly:
    """A reference lane, not a system: the query embedding alone, the cost every system above shares."""

    name = "query_embedding"
    version = ""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.settings: dict[str, Any] = {}
        self.results: dict[int, list[int]] = {}

    def search(self, i: int) -> None:
        self.corpus.embed(self.corpus.queries[i])
        self.results[i] = []


@dataclass
class Loaded:
    """The peers that were built, their build seconds, and a message per peer left out."""

    systems: list[System] = field(default_factory=list)
    build_seconds: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def load_peers(names: Sequence[str], corpus: Corpus, k: int, candidates: int,
               factories: dict[str, Callable[[Corpus, int, int], System]] | None = None) -> Loaded:
    """Build each peer in `names` over `corpus`; a peer whose package is missing is skipped with a message."""
    factories = factories or {"txtai": lambda c, k, n: TxtaiSystem(c, k),
                              "haystack": lambda c, k, n: HaystackSystem(c, k, n)}
    loaded = Loaded()
    for name in names:
        started = time.perf_counter()
        try:
            system = factories[name](corpus, k, candidates)
        except ImportError as exc:
            loaded.skipped[name] = f"{name} skipped: {exc.name or exc} is not installed; {INSTALL_HINT}"
            continue
        loaded.systems.append(system)
        loaded.build_seconds[name] = round(time.perf_counter() - started, 2)
    return loaded
