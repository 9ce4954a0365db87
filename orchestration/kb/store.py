"""The chunk store: chunk text, metadata and entities in SQLite, one row per chunk.

Row numbers (0..n-1) are shared with the BM25 and FAISS indexes. Serving opens the file
read-only and immutable; each process (gunicorn worker) opens its own connection lazily,
because a SQLite connection must not cross a fork.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import IndexUnavailable

from .units import Unit, units_from_json, units_to_json

SCHEMA = """
CREATE TABLE chunks (
    row INTEGER PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    doc_id TEXT NOT NULL,
    title TEXT NOT NULL,
    section TEXT NOT NULL,
    position INTEGER NOT NULL,
    text TEXT NOT NULL,
    metadata TEXT NOT NULL,
    entities TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    units TEXT
);
CREATE INDEX chunks_doc ON chunks(doc_id);
"""


@dataclass
class StoredChunk:
    """One chunk as stored: text without the title, metadata including the title."""

    row: int
    chunk_id: str
    doc_id: str
    title: str
    section: str
    position: int
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    entities: list[dict] = field(default_factory=list)
    text_hash: str = ""
    units: tuple[Unit, ...] | None = None  # None: stored before units were (`chunking.read_units`)

    @property
    def indexed_text(self) -> str:
        """What the retrievers index: the title kept with every chunk, then the text."""
        return indexed_text(self.title, self.text)


def indexed_text(title: str, text: str) -> str:
    """What the retrievers index of a chunk: its title, a line break, its text (the text alone untitled)."""
    return f"{title}\n{text}" if title else text


class StoreWriter:
    """A new store file written one chunk at a time, in one transaction: nothing is held but SQLite's
    page cache, so an ingest writes each chunk as it is made.

    Promises: rows are written as given (they must be 0..n-1 in order); the file holds them all
    once `close()` returns, and a writer left by an exception (the `with` form) rolls back.
    """

    def __init__(self, path: Path) -> None:
        self.count = 0
        self._conn = sqlite3.connect(path)
        self._conn.executescript(SCHEMA)
        self._conn.execute("BEGIN")

    def add(self, chunk: StoredChunk) -> None:
        """Write one chunk (its row follows the last one written)."""
        self._conn.execute(
            "INSERT INTO chunks VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (chunk.row, chunk.chunk_id, chunk.doc_id, chunk.title, chunk.section,
             chunk.position, chunk.text, json.dumps(chunk.metadata, ensure_ascii=False),
             json.dumps(chunk.entities, ensure_ascii=False), chunk.text_hash,
             None if chunk.units is None else units_to_json(chunk.units)))
        self.count += 1

    def close(self) -> int:
        """Commit and close; the number of chunks written."""
        self._conn.commit()
        self._conn.close()
        return self.count

    def abandon(self) -> None:
        """Roll back and close (the file is left empty of chunks)."""
        self._conn.rollback()
        self._conn.close()

    def __enter__(self) -> StoreWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abandon()


def write_store(path: Path, chunks: Iterable[StoredChunk]) -> int:
    """Create a new store file holding `chunks` (rows must be 0..n-1 in order); returns n."""
    with StoreWriter(path) as writer:
        for chunk in chunks:
            writer.add(chunk)
    return writer.count


ROW_CACHE = 4096  # decoded chunks kept per store: ~3 KB each, ~12 MB per worker at most


class ChunkStore:
    """Read-only access to a store file; safe to share across fork (connections per process).

    The file is immutable while served, so `get_rows` keeps the chunks it decoded (bounded,
    least recently used first out): evidence recurs across the tasks and retries of a request
    and across requests, and each fetch otherwise re-reads SQLite and re-parses two JSON
    columns. Callers must not change the chunks they get.
    """

    def __init__(self, path: Path, cache_size: int = ROW_CACHE) -> None:
        if not path.is_file():
            raise IndexUnavailable(f"chunk store {path} is missing", field=str(path))
        self.path = path
        self._local = threading.local()
        self._cache: OrderedDict[int, StoredChunk] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != os.getpid():
            uri = f"file:{self.path}?mode=ro&immutable=1"
            try:
                conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
                conn.execute("SELECT 1 FROM chunks LIMIT 1")
            except sqlite3.DatabaseError as exc:
                raise IndexUnavailable(f"chunk store {self.path} is unreadable ({exc})",
                                       field=str(self.path)) from exc
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def forget(self) -> None:
        """Empty the decoded-row cache (benchmarks time a cold cache with it)."""
        with self._cache_lock:
            self._cache.clear()

    def count(self) -> int:
        """Number of chunks."""
        return self._conn().execute("SELECT COUNT(*) FROM chunks").fetchone()[0]

    def get_rows(self, rows: Sequence[int]) -> list[StoredChunk]:
        """The chunks at these rows, in the order asked."""
        if not len(rows):
            return []
        wanted = [int(r) for r in rows]
        with self._cache_lock:
            found = {r: self._cache[r] for r in wanted if r in self._cache}
            for r in found:
                self._cache.move_to_end(r)
        missing = [r for r in dict.fromkeys(wanted) if r not in found]
        fetched: dict[int, StoredChunk] = {}
        for start in range(0, len(missing), 900):  # SQLite's bound-parameter limit
            part = missing[start:start + 900]
            marks = ",".join("?" * len(part))
            for rec in self._conn().execute(f"SELECT * FROM chunks WHERE row IN ({marks})", part):
                fetched[rec[0]] = _from_record(rec)
        if fetched and self._cache_size:
            with self._cache_lock:
                self._cache.update(fetched)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        found.update(fetched)
        return [found[r] for r in wanted if r in found]

    def get_ids(self, chunk_ids: Sequence[str]) -> list[StoredChunk]:
        """The chunks with these ids, in the order asked (unknown ids skipped)."""
        found: dict[str, StoredChunk] = {}
        wanted = list(chunk_ids)
        for start in range(0, len(wanted), 900):
            part = wanted[start:start + 900]
            marks = ",".join("?" * len(part))
            for rec in self._conn().execute(f"SELECT * FROM chunks WHERE chunk_id IN ({marks})", part):
                found[rec[1]] = _from_record(rec)
        return [found[c] for c in wanted if c in found]

    def iter_all(self, batch: int = 2000) -> Iterable[StoredChunk]:
        """Every chunk in row order."""
        for rec in self._iter_columns("*", batch):
            yield _from_record(rec)

    def chunk_ids(self) -> list[str]:
        """Every chunk id, indexed by row."""
        return [cid for (cid,) in self._conn().execute("SELECT chunk_id FROM chunks ORDER BY row")]

    def iter_texts(self, batch: int = 2000) -> Iterator[tuple[int, str, str]]:
        """(row, chunk id, indexed text) of every chunk in row order, no JSON column decoded."""
        for row, chunk_id, title, text in self._iter_columns("row, chunk_id, title, text", batch):
            yield row, chunk_id, indexed_text(title, text)

    def iter_hashes(self, batch: int = 20000) -> Iterator[tuple[int, str]]:
        """(row, text_hash) of every chunk in row order, to reuse embeddings of unchanged chunks."""
        yield from self._iter_columns("row, text_hash", batch)

    def _iter_columns(self, columns: str, batch: int) -> Iterator[tuple]:
        """`columns` (row first; `*` has it first) of every chunk in row order, `batch` rows read at a time."""
        last = -1
        while True:
            records = self._conn().execute(
                f"SELECT {columns} FROM chunks WHERE row > ? ORDER BY row LIMIT ?", (last, batch)).fetchall()
            if not records:
                return
            yield from records
            last = records[-1][0]


def _from_record(rec: tuple) -> StoredChunk:
    """A chunk from its row (a store written before units were kept has ten columns)."""
    return StoredChunk(row=rec[0], chunk_id=rec[1], doc_id=rec[2], title=rec[3], section=rec[4],
                       position=rec[5], text=rec[6], metadata=json.loads(rec[7]),
                       entities=json.loads(rec[8]), text_hash=rec[9],
                       units=units_from_json(rec[10]) if len(rec) > 10 else None)
