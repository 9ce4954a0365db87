"""A built knowledge base opened for serving: store, BM25, dense index and filter columns.

The constructor is cheap; `warm_up()` maps everything read-only. Opening refuses a build
whose manifest is missing, whose files are missing or truncated, or whose embedder differs
from the configured one, with a message that says how to rebuild.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import IndexUnavailable

from ..retrieval.bm25 import BM25Index
from ..retrieval.dense import DenseIndex
from ..retrieval.filters import FilterColumns
from . import layout
from .config import KBSettings
from .manifest import read_manifest
from .store import ChunkStore


class KnowledgeBase:
    """One knowledge base's indexes, mapped read-only (shared by forked workers)."""

    def __init__(self, settings: KBSettings, kb_dir: Path, embedder_name: str) -> None:
        self.settings = settings
        self.name = settings.name
        self.kb_dir = kb_dir
        self.embedder_name = embedder_name
        self.build_dir: Path | None = None
        self.manifest: dict[str, Any] = {}
        self.store: ChunkStore | None = None
        self.bm25: BM25Index | None = None
        self.dense: DenseIndex | None = None
        self.columns: FilterColumns | None = None
        self.chunk_ids: list[str] = []  # row -> chunk id, for traces without a store lookup

    @property
    def rebuild_hint(self) -> str:
        paths = " ".join(str(p) for p in self.settings.paths) or "PATH..."
        return f"rebuild it with `sightline ingest {paths} --kb {self.name} --rebuild`"

    @property
    def ready(self) -> bool:
        return self.store is not None

    def warm_up(self) -> None:
        """Open the current build; IndexUnavailable names the directory and the fix."""
        if self.ready:
            return
        build = layout.current_build(self.kb_dir)
        if build is None or not build.is_dir():
            raise IndexUnavailable(
                f"knowledge base '{self.name}' has no index at {self.kb_dir}; build it with "
                f"`sightline ingest {' '.join(str(p) for p in self.settings.paths) or 'PATH...'} --kb {self.name}`"
                + (" (or `sightline ingest --demo`)" if self.settings.paths else ""),
                field=self.name)
        manifest = read_manifest(build, self.rebuild_hint)
        built_with = manifest.get("embedder", {}).get("name")
        if built_with != self.embedder_name:
            raise IndexUnavailable(
                f"knowledge base '{self.name}' was built with embedder '{built_with}' but "
                f"'{self.embedder_name}' is configured; {self.rebuild_hint}", field=self.name)
        try:
            store = ChunkStore(build / "chunks.sqlite")
            bm25 = BM25Index.load(build / "bm25")
            dense = DenseIndex.load(build / "dense", self.settings.dense)
            columns = FilterColumns.load(build / "columns")
            count = manifest["counts"]["chunks"]
            if not (bm25.n_docs == dense.size == columns.day.shape[0] == count):
                raise IndexUnavailable(f"{build}: index sizes disagree (bm25 {bm25.n_docs}, dense {dense.size}, "
                                       f"manifest {count}); {self.rebuild_hint}", field=self.name)
        except IndexUnavailable as exc:
            raise IndexUnavailable(f"{exc.message}; {self.rebuild_hint}"
                                   if self.rebuild_hint not in exc.message else exc.message,
                                   field=self.name) from exc
        except (OSError, ValueError, KeyError) as exc:
            raise IndexUnavailable(f"knowledge base '{self.name}' at {build} is damaged ({exc}); "
                                   f"{self.rebuild_hint}", field=self.name) from exc
        self.build_dir, self.manifest = build, manifest
        self.chunk_ids = store.chunk_ids()
        self.bm25, self.dense, self.columns, self.store = bm25, dense, columns, store

    def describe(self) -> dict[str, Any]:
        """Name, counts, build time and embedder, as `GET /kb` shows them."""
        return {"name": self.name, "description": self.settings.description,
                "ready": self.ready,
                "chunks": self.manifest.get("counts", {}).get("chunks"),
                "documents": self.manifest.get("counts", {}).get("documents"),
                "built_at": self.manifest.get("built_at"),
                "embedder": self.manifest.get("embedder"),
                "dense_index": self.dense.kind if self.dense else None}
