"""Ingest streams, and builds what a whole-corpus build through the public API builds.

The reference below holds every chunk in a list and writes it with the public builders
(`write_store`, `BM25Index.build`, `FilterColumns.build`, `embedder.passages`), as ingest did
before it streamed; the streamed build must match it file for file: chunk ids, every store
column, BM25 arrays and scores, filter columns and vectors, bit for bit.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from orchestration.kb import bm25_build, layout
from orchestration.kb.bm25_build import BM25Builder
from orchestration.kb.config import KBSettings
from orchestration.kb.documents import Document, iter_documents
from orchestration.kb.ingest import _chunk_documents, ingest
from orchestration.kb.metadata import FieldMap
from orchestration.kb.store import ChunkStore, write_store
from orchestration.retrieval import bm25
from orchestration.retrieval.bm25 import BM25Index
from orchestration.retrieval.dense import DenseIndex
from orchestration.retrieval.filters import FilterColumns
from orchestration.retrieval.tokenize import tokenize

BM25_ARRAYS = ("indptr", "indices", "data", "tf", "doc_len")


def _same_bm25(built: BM25Index, reference: BM25Index) -> None:
    assert list(built.vocab.items()) == list(reference.vocab.items())
    for name in BM25_ARRAYS:
        ours, theirs = np.asarray(getattr(built, name)), np.asarray(getattr(reference, name))
        assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs), name
    assert built.stats == reference.stats and built.n_docs == reference.n_docs


# --- the BM25 builder ------------------------------------------------------------------------------

ROWS = [["valve", "check", "valve"], [], ["check"], ["fuel", "burn", "fuel", "fuel", "valve"], ["apu"] * 4,
        ["burn"], [], ["valve", "apu", "check", "fuel", "burn", "valve"]]


@pytest.mark.parametrize("block_rows", [1, 2, 3, 8192])
@pytest.mark.parametrize("weight_slice", [1, 3, 1 << 22])
def test_the_bm25_builder_gives_the_index_built_from_every_row_at_once(monkeypatch, block_rows, weight_slice):
    reference = BM25Index.build(ROWS)  # every posting weighed at once
    monkeypatch.setattr(bm25_build, "BLOCK_ROWS", block_rows)
    monkeypatch.setattr(bm25, "WEIGHT_SLICE", weight_slice)
    builder = BM25Builder()
    for tokens in ROWS:
        builder.add(tokens)
    _same_bm25(builder.finish(), reference)


def test_the_bm25_builder_of_random_rows_matches_to_the_bit(monkeypatch):
    monkeypatch.setattr(bm25_build, "BLOCK_ROWS", 37)
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(300)]
    rows = [[words[int(i)] for i in rng.zipf(1.3, size=int(rng.integers(0, 80))) % 300] for _ in range(500)]
    builder = BM25Builder()
    for tokens in rows:
        builder.add(tokens)
    _same_bm25(builder.finish(), BM25Index.build(rows))


@pytest.mark.parametrize("rows", [[[]], [[], []], [["only"]]], ids=["one empty row", "two empty rows", "one token"])
def test_the_bm25_builder_of_rows_without_tokens_matches_too(rows):
    builder = BM25Builder()
    for tokens in rows:
        builder.add(tokens)
    _same_bm25(builder.finish(), BM25Index.build(rows))


def test_the_bm25_builder_refuses_zero_rows_as_the_index_does(tmp_path):
    with pytest.raises(ValueError, match="zero documents"):
        BM25Builder(tmp_path).finish()
    assert list(tmp_path.iterdir()) == []  # its scratch file is gone


# --- a whole build ---------------------------------------------------------------------------------

LONG = " ".join(f"Step {i} of the valve check takes {i + 3} minutes and needs torque wrench T{i}." for i in range(60))


def _corpus(folder: Path, extra: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    docs = [
        {"id": "manual", "title": "Valve checks", "text": f"## Torque\n\n{LONG}\n\n## Fuel\n\nThe A320neo burns "
                                                          "2,290 kg of fuel per hour at cruise.",
         "metadata": {"published_at": "2023-03-15", "status": "effective", "source": "Airbus", "acl": ["crew"]}},
        {"id": "apu", "title": "APU start", "text": "Fault E5102 means the APU failed to start within 60 seconds.",
         "metadata": {"published_at": "2024-01-10", "status": "draft", "authority": 4}},
        {"id": "untitled", "text": "Cabin pressure is checked every 500 flight hours."},
        {"id": "config", "title": "Config", "text": "Set the cache size:\n\n```yaml\ncache: 35\n```\n\nThen restart."},
        {"id": "twin", "title": "APU start", "text": "Fault E5102 means the APU failed to start within 60 seconds."},
    ] + ([{"id": "new", "title": "New", "text": "A new note on hydraulic pumps."}] if extra else [])
    (folder / "docs.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    return folder


def _reference(settings: KBSettings, folder: Path, out: Path, embedder) -> dict:
    """The build of `folder` with every chunk held in a list, through the public builders."""
    documents = [d for d in iter_documents([folder], FieldMap(settings.fields)) if isinstance(d, Document)]
    chunks = list(_chunk_documents(documents, len(documents), settings, progress=False))
    out.mkdir()
    write_store(out / "chunks.sqlite", chunks)
    texts = [c.indexed_text for c in chunks]
    return {"chunks": chunks, "bm25": BM25Index.build(tokenize(t) for t in texts),
            "columns": FilterColumns.build(c.metadata for c in chunks),
            "vectors": embedder.passages(texts, batch_size=64)}


def _current(kb_dir: Path) -> Path:
    build = layout.current_build(kb_dir)
    assert build is not None
    return build


def _rows(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT * FROM chunks ORDER BY row").fetchall()


def test_a_streamed_build_equals_the_whole_corpus_reference_file_for_file(tmp_path, embedder):
    settings = KBSettings(name="stream", paths=(_corpus(tmp_path / "src"),))
    kb_dir = tmp_path / "data" / "kb" / "stream"
    report = ingest(settings, kb_dir, embedder, progress=False)
    build = _current(kb_dir)
    reference = _reference(settings, tmp_path / "src", tmp_path / "reference", embedder)

    chunk_ids = [c.chunk_id for c in reference["chunks"]]
    assert chunk_ids[0] == "manual#0" and chunk_ids[-3:] == ["untitled#0", "config#0", "twin#0"]
    assert report.chunks == len(chunk_ids) > 5  # the manual is several chunks
    assert ChunkStore(build / "chunks.sqlite").chunk_ids() == chunk_ids
    assert _rows(build / "chunks.sqlite") == _rows(tmp_path / "reference" / "chunks.sqlite")

    bm25 = BM25Index.load(build / "bm25")
    _same_bm25(bm25, reference["bm25"])
    for query in ("valve torque", "APU fault E5102", "cache", "pressure hours"):
        assert np.array_equal(bm25.get_scores(tokenize(query)), reference["bm25"].get_scores(tokenize(query)))

    columns = FilterColumns.load(build / "columns")
    for name in ("day", "acl_code", "fresh_day", "authority"):
        assert np.array_equal(getattr(columns, name), getattr(reference["columns"], name)), name
    assert {n: np.asarray(c).tolist() for n, c in columns.codes.items()} == {
        n: c.tolist() for n, c in reference["columns"].codes.items()}
    assert (columns.vocab, columns.acl_groups, columns.display) == (
        reference["columns"].vocab, reference["columns"].acl_groups, reference["columns"].display)

    dense = DenseIndex.load(build / "dense")
    assert np.array_equal(dense.reconstruct(np.arange(report.chunks)), reference["vectors"])
    assert sorted(p.name for p in build.iterdir()) == ["bm25", "chunks.sqlite", "columns", "dense", "manifest.json"]
    assert sorted(p.name for p in kb_dir.iterdir() if not p.name.startswith(".")) == ["builds", "current"]


def test_an_update_reuses_the_vectors_of_unchanged_texts_and_embeds_only_the_new(tmp_path, embedder):
    settings = KBSettings(name="stream", paths=(_corpus(tmp_path / "src"),))
    kb_dir = tmp_path / "data" / "kb" / "stream"
    first = ingest(settings, kb_dir, embedder, progress=False)
    old = ChunkStore(_current(kb_dir) / "chunks.sqlite")
    old_vectors = DenseIndex.load(_current(kb_dir) / "dense").reconstruct(np.arange(first.chunks))
    _corpus(tmp_path / "src", extra=True)

    updated = ingest(settings, kb_dir, embedder, progress=False)

    assert (updated.reused_vectors, updated.embedded) == (first.chunks, 1)
    new = ChunkStore(_current(kb_dir) / "chunks.sqlite")
    new_vectors = DenseIndex.load(_current(kb_dir) / "dense").reconstruct(np.arange(updated.chunks))
    old_row = {c.text_hash: c.row for c in old.iter_all()}  # a text held twice: its last row, as before
    assert old_row[new.get_ids(["twin#0"])[0].text_hash] == old.get_ids(["twin#0"])[0].row
    for chunk in new.iter_all():
        if chunk.chunk_id != "new#0":
            assert np.array_equal(new_vectors[chunk.row], old_vectors[old_row[chunk.text_hash]]), chunk.chunk_id
    fresh = embedder.passages([new.get_ids(["new#0"])[0].indexed_text], batch_size=64)[0]
    assert np.array_equal(new_vectors[new.get_ids(["new#0"])[0].row], fresh)
