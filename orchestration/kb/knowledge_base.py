"""A built knowledge base opened for serving: store, BM25, dense index and filter columns.

The constructor is cheap; `warm_up()` maps everything read-only. Opening refuses a build
whose manifest is missing, whose files are missing, truncated or fail their checksum, or
built by an embedder the configuration does not accept for it, with a message that names the
file and says how to rebuild. An open build is held (layout.hold) until `close()`, so no prune deletes it.
While it is served, `require_intact()` (before each request's search) and `changed()` (the
watcher, for /readyz) compare its files with what was opened (integrity.BuildFiles): a file
truncated under the mapping is refused with a reason instead of crashing the worker (SIGBUS).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import IndexUnavailable, SearchEngineUnavailable

from ..retrieval.backend import SearchBackend
from ..retrieval.bm25 import BM25Index
from ..retrieval.bm25_visible import VisibleBM25, visible_to
from ..retrieval.dense import DenseIndex
from ..retrieval.filters import FilterColumns
from ..retrieval.milvus_backend import MilvusBackend
from . import layout
from .config import KBSettings
from .integrity import BuildFiles, stamp
from .manifest import read_manifest, served_files, verify
from .store import ChunkStore


class KnowledgeBase:
    """One knowledge base's indexes, mapped read-only (shared by forked workers)."""

    def __init__(self, settings: KBSettings, kb_dir: Path, accepted: str | Sequence[str]) -> None:
        """`accepted`: the embedder model name(s) an index of this KB may have been built with
        (one when the KB's config names its embedder; the default and the Chinese one when the
        ingest chose by language)."""
        self.settings = settings
        self.name = settings.name
        self.kb_dir = kb_dir
        self.accepted = (accepted,) if isinstance(accepted, str) else tuple(accepted)
        self.embedder_name: str | None = None  # the model that built the open build (its manifest's)
        self.build_dir: Path | None = None
        self.manifest: dict[str, Any] = {}
        self.store: ChunkStore | None = None
        self.bm25: BM25Index | None = None
        self.dense: DenseIndex | None = None
        self.columns: FilterColumns | None = None
        self.engine: SearchBackend | None = None  # None: the local backend (the build's own files)
        self.chunk_ids: list[str] = []  # row -> chunk id, for traces without a store lookup
        self._hold: int | None = None  # fd holding the open build against pruning (layout.hold)
        self.files: BuildFiles | None = None  # the open build's files as opened (size, mtime, inode)
        # the last build refused: its directory, its files as they were then, and why
        self._failed: tuple[Path, tuple, IndexUnavailable] | None = None

    @property
    def rebuild_hint(self) -> str:
        paths = " ".join(str(p) for p in self.settings.paths) or "PATH..."
        return f"rebuild it with `sightline ingest {paths} --kb {self.name} --rebuild`"

    @property
    def ready(self) -> bool:
        return self.store is not None

    @property
    def failure(self) -> str | None:
        """Why the last build tried was refused, naming the file and the fix (None when none was)."""
        return None if self._failed is None else self._failed[2].message

    def warm_up(self) -> None:
        """Open the current build; IndexUnavailable names the directory, the file and the fix.

        Every file's SHA-256 is checked against the manifest first (about 0.6 s per GB of
        index; the demo KBs take a few ms), so a damaged build is refused instead of served.
        A failed open is remembered per build and its files: asking again for the same damaged
        build re-raises without hashing it again; a new build, or the same one whose files have
        changed since (a copy that was still being written), is tried afresh.
        """
        if self.ready:
            return
        build = layout.current_build(self.kb_dir)
        if build is None or not build.is_dir():
            raise IndexUnavailable(
                f"knowledge base '{self.name}' has no index at {self.kb_dir}; build it with "
                f"`sightline ingest {' '.join(str(p) for p in self.settings.paths) or 'PATH...'} --kb {self.name}`"
                + (" (or `sightline ingest --demo`)" if self.settings.paths else ""),
                field=self.name)
        resolved = build.resolve()
        files = _file_stamps(resolved)
        if self._failed is not None and self._failed[:2] == (resolved, files):
            raise self._failed[2]
        try:
            self._open(build)
        except IndexUnavailable as exc:
            self._failed = (resolved, files, exc)
            raise
        self._failed = None

    def _open(self, build: Path) -> None:
        backend = self.settings.backend
        manifest = read_manifest(build, self.rebuild_hint, backend)
        served = dict(manifest, files=served_files(manifest, backend))  # what this process reads and watches
        built_with = manifest.get("embedder", {}).get("name")
        if built_with not in self.accepted:
            raise IndexUnavailable(
                f"knowledge base '{self.name}' was built with embedder '{built_with}' but "
                f"{' or '.join(repr(a) for a in self.accepted)} is configured; {self.rebuild_hint}",
                field=self.name)
        try:
            hold_fd = layout.hold(build)
        except OSError as exc:
            raise IndexUnavailable(f"knowledge base '{self.name}': build {build} cannot be opened ({exc}); "
                                   f"{self.rebuild_hint}", field=self.name) from exc
        try:
            damaged = verify(build, served)
            if damaged:
                raise IndexUnavailable(
                    f"knowledge base '{self.name}' at {build} is damaged: {', '.join(damaged)} "
                    f"{'does' if len(damaged) == 1 else 'do'} not match the manifest's checksum; "
                    f"{self.rebuild_hint}", field=self.name)
            store = ChunkStore(build / "chunks.sqlite")
            bm25 = BM25Index.load(build / "bm25")
            # on an engine backend the engine searches the vectors: its hosts need no dense index
            dense = DenseIndex.load(build / "dense", self.settings.dense) if backend == "local" else None
            columns = FilterColumns.load(build / "columns")
            count = manifest["counts"]["chunks"]
            if not (bm25.n_docs == columns.day.shape[0] == count and (dense is None or dense.size == count)):
                raise IndexUnavailable(f"{build}: index sizes disagree (bm25 {bm25.n_docs}, "
                                       f"dense {dense.size if dense else '-'}, manifest {count}); "
                                       f"{self.rebuild_hint}", field=self.name)
            chunk_ids = store.chunk_ids()
            engine = self._engine(build, manifest, columns)
            files = BuildFiles(self.name, build, served, self.rebuild_hint)  # sizes as mapped = the manifest's
        except SearchEngineUnavailable:  # the build is whole: no rebuild hint
            layout.release(hold_fd)
            raise
        except IndexUnavailable as exc:
            layout.release(hold_fd)
            raise IndexUnavailable(f"{exc.message}; {self.rebuild_hint}"
                                   if self.rebuild_hint not in exc.message else exc.message,
                                   field=self.name) from exc
        except Exception as exc:  # noqa: BLE001 - numpy, FAISS and SQLite each raise their own errors
            layout.release(hold_fd)
            raise IndexUnavailable(f"knowledge base '{self.name}' at {build} is damaged "
                                   f"({type(exc).__name__}: {exc}); {self.rebuild_hint}", field=self.name) from exc
        self.build_dir, self.manifest, self._hold, self.files = build, manifest, hold_fd, files
        self.embedder_name = built_with
        self.chunk_ids = chunk_ids
        self.bm25, self.dense, self.columns, self.store = bm25, dense, columns, store
        self.engine = engine

    def _engine(self, build: Path, manifest: dict[str, Any], columns: FilterColumns) -> SearchBackend | None:
        """The engine backend the KB's config names, on the build's own collection (None: local),
        filtering on the build's ACL codes (`columns`) when its collection has them.

        Raises:
            IndexUnavailable: the build has no collection (built for the local backend).
            SearchEngineUnavailable: the engine cannot be reached or lacks the collection.
        """
        if self.settings.backend == "local":
            return None
        assert self.settings.milvus is not None  # config.py requires it for backend: milvus
        collection = manifest.get("milvus", {}).get("collection")
        if collection is None:
            raise IndexUnavailable(f"knowledge base '{self.name}' is configured for backend: milvus but build "
                                   f"{build} has no Milvus collection", field=self.name)
        engine = MilvusBackend(self.name, self.settings.milvus, collection,
                               columns if manifest["milvus"].get("acl_field") == "acl_code" else None)
        engine.check()
        return engine

    def keyword_index(self, acl_groups: Sequence[str] | None) -> BM25Index | VisibleBM25:
        """The keyword index as a caller with `acl_groups` sees it (None: every row): its BM25
        statistics are those of the chunks the caller may read (retrieval/bm25_visible.py)."""
        assert self.bm25 is not None and self.columns is not None, "warm_up() first"
        return visible_to(self.bm25, self.columns.acl_mask(acl_groups))

    def changed(self) -> str | None:
        """Why the open build must not be served (a file changed on disk since it was opened,
        named with how), or None when it is intact or nothing is open. A few `stat` calls."""
        return self.files.problem() if self.files is not None else None

    def require_intact(self) -> None:
        """Return when the open build's files are as opened; IndexUnavailable (503) naming the
        knowledge base, the files and the rebuild command otherwise. Call it before reading
        the mapped indexes: a truncated file would kill the process (SIGBUS)."""
        if self.files is not None:
            self.files.require_intact()

    def current_changed(self) -> bool:
        """Whether `current` now points to another build than the one open (False when unopened)."""
        if self.build_dir is None:
            return False
        build = layout.current_build(self.kb_dir)
        return build is not None and build.resolve() != self.build_dir.resolve()

    def reopened(self) -> KnowledgeBase:
        """A new KnowledgeBase on the current build, fully opened; this one is left as it is.

        Raises:
            IndexUnavailable: the current build is missing or damaged.
        """
        fresh = KnowledgeBase(self.settings, self.kb_dir, self.accepted)
        fresh._failed = self._failed
        try:
            fresh.warm_up()
        except IndexUnavailable:
            self._failed = fresh._failed  # the watcher asks this object again: never re-hash that build
            raise
        return fresh

    def close(self) -> None:
        """Let go of the build (its hold, so pruning may delete it); the object is not ready after."""
        layout.release(self._hold)
        self._hold = None
        self.files = None
        if self.engine is not None:
            self.engine.close()
        self.store = self.bm25 = self.dense = self.columns = self.engine = None

    def describe(self) -> dict[str, Any]:
        """Name, counts, build time and embedder, as `GET /kb` shows them."""
        return {"name": self.name, "description": self.settings.description,
                "ready": self.ready,
                "chunks": self.manifest.get("counts", {}).get("chunks"),
                "documents": self.manifest.get("counts", {}).get("documents"),
                "built_at": self.manifest.get("built_at"),
                "build_id": self.build_dir.name if self.build_dir else None,
                "embedder": self.manifest.get("embedder"),
                "dense_index": self.dense.kind if self.dense else self.engine.kind if self.engine else None}


def _file_stamps(build: Path) -> tuple:
    """Every file of a build directory with its `integrity.stamp`: what tells a build still being
    copied from the same build once complete (cheap: a build has a few dozen files)."""
    return tuple(sorted((os.path.relpath(path, build), stamp(path))
                        for root, _dirs, names in os.walk(build) for path in (os.path.join(root, n) for n in names)))
