"""Building a knowledge base: read, chunk, tag entities, index, write, switch.

`ingest()` is what `sightline ingest` runs. It never damages the build being served: it
writes a new build directory, writes the manifest last, then switches `current` to it
atomically. Embeddings of chunks whose text did not change are reused from the current
build, so updating a large knowledge base only embeds what is new; the rest is embedded in
`workers` one-thread processes (embed_pool.py), or on a GPU with `device="cuda"`. Nothing about the input
raises: every document that cannot be used is reported with its file, line and reason, and
so is what the metadata gave: how many documents carry each field with a meaning, values
dropped (an unreadable date), and a knowledge base none of whose documents carries a date.

It never holds the corpus whole. Documents are read and parsed once into a scratch file on
disk, their metadata counted as they pass; then each is chunked and tagged in turn, and each
chunk is written to the chunk store and counted for BM25 (`bm25_build.py`) as it is made. The
embedding stage reads the texts back from the store a batch at a time and writes the vectors
to a file on disk, which the dense index is built from. Memory holds the finished indexes'
own arrays (postings, filter columns, the FAISS index) and one batch.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import pickle
import shutil
import sys
import tempfile
import time
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
from tqdm import tqdm

from core.errors import ConfigError, KnowledgeBaseError, NoUsableDocuments, SearchEngineUnavailable
from perception import extract_entities
from perception.language import detect_language

from ..retrieval.dense import DenseIndex
from ..retrieval.embedder import CHINESE_EMBEDDER, CPU, CUDA, Embedder, MiniLMTorchEmbedder, check_device, get_embedder
from ..retrieval.filters import FilterColumns
from ..retrieval.tokenize import tokenize
from . import layout, milvus_build
from .bm25_build import BM25Builder
from .chunking import chunk_text
from .config import KBSettings
from .documents import Document, Skipped, iter_documents
from .embed_pool import check_workers, embed_in_workers
from .manifest import read_manifest, write_manifest
from .metadata import COUNTED_FIELDS, DOCUMENT_DATE_FIELDS, FieldMap
from .store import ChunkStore, StoredChunk, StoreWriter, indexed_text

EMBED_BATCH = 64
REUSE_BATCH = 8192  # vectors of unchanged chunks copied from the current build at a time
LANGUAGE_SAMPLE = 2000  # characters of each document read to tell its language
CONFIG_FILE = "config/knowledge_bases.yaml"
NOTE_EXAMPLES = 3  # documents named per note in the summary


@dataclass
class Notice:
    """Something an ingest read and a person should know: a value dropped, a choice made."""

    origin: str  # "file:line" or "file"; "" for the knowledge base as a whole
    message: str

    def __str__(self) -> str:
        return f"{self.origin}: {self.message}" if self.origin else self.message

    def to_dict(self) -> dict[str, str]:
        return {"origin": self.origin, "message": self.message}


@dataclass
class IngestReport:
    """What an ingest did: counts, skipped inputs with reasons, where the build is.

    Also what the documents' metadata gave: how many documents carry each field with a meaning
    (`field_counts`), values dropped and undated knowledge bases (`warnings`) and choices made,
    such as an alias not used because the field itself is given (`notes`).
    """

    kb: str
    documents: int = 0
    chunks: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    embedded: int = 0
    reused_vectors: int = 0
    embedder: str = ""  # the model that embedded the chunks (as the manifest records it)
    embedder_reason: str = ""  # why that one: the KB's config, or the documents' language
    embed_seconds: float = 0.0
    workers: int = 1  # processes that embedded the chunks
    device: str = CPU
    unchanged: bool = False
    build_dir: Path | None = None
    seconds: float = 0.0
    field_counts: dict[str, int] = field(default_factory=dict)
    dated_documents: int = 0  # documents carrying any date (published_at, updated_at, effective_date)
    warnings: list[Notice] = field(default_factory=list)
    notes: list[Notice] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"kb": self.kb, "documents": self.documents, "chunks": self.chunks,
                "embedded": self.embedded, "reused_vectors": self.reused_vectors,
                "embedder": self.embedder, "embedder_reason": self.embedder_reason,
                "embed_seconds": round(self.embed_seconds, 2), "workers": self.workers, "device": self.device,
                "unchanged": self.unchanged, "build_dir": str(self.build_dir) if self.build_dir else None,
                "seconds": round(self.seconds, 2),
                "skipped": [{"origin": s.origin, "reason": s.reason} for s in self.skipped],
                "fields": dict(self.field_counts),
                "warnings": [w.to_dict() for w in self.warnings],
                "notes": [n.to_dict() for n in self.notes]}

    def _fields_line(self) -> str:
        carried = [f"{name} {count}" for name, count in self.field_counts.items() if count]
        return (f"fields carried (of {self.documents} documents): {', '.join(carried)}" if carried
                else "fields carried: none with a meaning")

    def _note_lines(self) -> list[str]:
        """Notes grouped by message: one line each, naming a few of the documents."""
        grouped: dict[str, list[str]] = {}
        for note in self.notes:
            grouped.setdefault(note.message, []).append(note.origin)
        lines = []
        for message, origins in grouped.items():
            named = ", ".join(origins[:NOTE_EXAMPLES]) + (f" and {len(origins) - NOTE_EXAMPLES} more"
                                                          if len(origins) > NOTE_EXAMPLES else "")
            lines.append(f"  - {message}: {len(origins)} document(s) ({named})")
        return lines

    def summary(self) -> str:
        """The final report a person reads after an ingest."""
        head = (f"knowledge base '{self.kb}': unchanged, nothing rebuilt ({self.documents} documents, "
                f"{self.chunks} chunks)" if self.unchanged else
                f"knowledge base '{self.kb}': {self.documents} documents, {self.chunks} chunks written "
                f"({self.embedded} embedded, {self.reused_vectors} reused) in {self.seconds:.1f}s -> {self.build_dir}")
        lines = [head]
        if self.embedder:
            rate = (f", {self.embedded / self.embed_seconds:.1f} chunks/s"
                    if self.embedded and self.embed_seconds > 0 else "")
            where = f"on {self.device}" if self.device != CPU else f"{self.workers} worker(s)"
            lines.append(f"embedder {self.embedder} ({self.embedder_reason}){rate}, {where}")
        lines.append(f"read {self.documents} document(s), skipped {len(self.skipped)} input(s)"
                     + (":" if self.skipped else ""))
        lines += [f"  - {s}" for s in self.skipped]
        if self.field_counts:
            lines.append(self._fields_line())
        if self.warnings:
            lines.append(f"{len(self.warnings)} warning(s):")
            lines += [f"  - {w}" for w in self.warnings]
        if self.notes:
            lines.append(f"{len(self.notes)} note(s):")
            lines += self._note_lines()
        return "\n".join(lines)


def _nothing_usable(report: IngestReport) -> str:
    """The message of an ingest that read no usable document: counts, then the first reasons."""
    shown = report.skipped[:NOTE_EXAMPLES]
    reasons = "; ".join(str(s) for s in shown) or "no input files"
    more = len(report.skipped) - len(shown)
    return (f"knowledge base '{report.kb}': no usable documents: {report.documents} read, {len(report.skipped)} "
            f"skipped ({reasons}{f'; and {more} more, each in the report' if more else ''})")


def _undated_warning(kb: str, dated: bool, candidates: dict[str, int]) -> Notice | None:
    """The warning for a knowledge base none of whose documents carries a date (None when one does).

    `dated`: some document carries a date field; `candidates`: how many documents hold a date in
    each field of their own that no date field took.

    Promises: it proposes a mapping only to a field the documents carry: the documents' own
    fields that hold a date, the most common first, with a `fields:` example naming the first;
    when no field of theirs holds one, it says so and proposes nothing."""
    if dated:
        return None
    message = f"time filters and freshness checks will not apply to KB {kb}: "
    if not candidates:
        return Notice("", message + "none of its documents carries a date, in a field with a meaning or one of "
                                    "their own, so there is no field to map")
    ranked = sorted(candidates.items(), key=lambda item: (-item[1], item[0]))[:NOTE_EXAMPLES]
    held = ", ".join(f"{name} in {count} document(s)" for name, count in ranked)
    example = f"fields: {{published_at: {ranked[0][0]}}}"
    return Notice("", message + f"their dates are in fields of their own ({held}); map the one that dates them "
                                f"with fields.published_at in {CONFIG_FILE}, e.g. {example}")


@dataclass
class _DocumentFacts:
    """What the documents give the report and the embedder's choice, counted as they are read."""

    count_language: bool  # tell each document's language (only when the KB names no embedder)
    field_counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTED_FIELDS, 0))
    dated_documents: int = 0   # documents with a date in a date field
    any_date_field: bool = False  # some document carries a date field at all
    undated_candidates: dict[str, int] = field(default_factory=dict)
    chinese: int = 0
    documents: int = 0
    warnings: list[Notice] = field(default_factory=list)
    notes: list[Notice] = field(default_factory=list)

    def add(self, doc: Document) -> None:
        """Count one document."""
        self.documents += 1
        for name in COUNTED_FIELDS:
            self.field_counts[name] += doc.metadata.get(name) not in (None, "", [])
        self.dated_documents += any(doc.metadata.get(f) for f in DOCUMENT_DATE_FIELDS)
        self.any_date_field = self.any_date_field or any(key in doc.metadata for key in DOCUMENT_DATE_FIELDS)
        for name in doc.undated_date_fields:
            self.undated_candidates[name] = self.undated_candidates.get(name, 0) + 1
        if self.count_language:
            self.chinese += detect_language(f"{doc.title}\n{doc.text[:LANGUAGE_SAMPLE]}") == "zh"
        self.warnings += [Notice(doc.origin, message) for message in doc.warnings]
        self.notes += [Notice(doc.origin, message) for message in doc.notes]

    @property
    def chinese_share(self) -> float:
        """The share of documents whose text is Chinese (perception's rule, on each one's start)."""
        return self.chinese / self.documents if self.documents else 0.0

    def report_to(self, report: IngestReport) -> None:
        """Fill the report's field counts, warnings and notes."""
        report.field_counts = dict(self.field_counts)
        report.dated_documents = self.dated_documents
        undated = _undated_warning(report.kb, self.any_date_field, self.undated_candidates)
        report.warnings += ([undated] if undated is not None else []) + self.warnings
        report.notes += self.notes


class _DocumentSpill:
    """The documents read, kept in an unnamed scratch file for the passes after reading (the
    checksum, the chunking): the corpus is read and parsed once, and never held in memory."""

    def __init__(self, directory: Path) -> None:
        self._file: BinaryIO = tempfile.TemporaryFile(dir=directory, prefix="ingest-documents-")

    def add(self, doc: Document) -> None:
        """Keep one document (what chunking and the checksum read of it)."""
        pickle.dump((doc.id, doc.title, doc.text, doc.metadata), self._file, protocol=pickle.HIGHEST_PROTOCOL)

    def documents(self) -> Iterator[Document]:
        """The documents kept, in the order read (one pass at a time)."""
        self._file.seek(0)
        while True:
            try:
                doc_id, title, text, metadata = pickle.load(self._file)
            except EOFError:
                return
            yield Document(doc_id, title, text, metadata)

    def close(self) -> None:
        """Remove the scratch file."""
        self._file.close()


def _scratch_dir(kb_dir: Path) -> Path:
    """Where an ingest keeps scratch files before its build directory exists: the KB's directory,
    else its nearest existing parent (the data disk, not a memory-backed /tmp)."""
    return next(p for p in (kb_dir, *kb_dir.parents) if p.is_dir())


def _load_documents(paths: Iterable[Path], report: IngestReport, spill: _DocumentSpill, facts: _DocumentFacts,
                    fields: FieldMap | None = None) -> None:
    """Read all paths into `spill` and `facts`, duplicates of an id skipped with a pointer to the first."""
    first_seen: dict[str, str] = {}
    for item in iter_documents(list(paths), fields):
        if isinstance(item, Skipped):
            report.skipped.append(item)
        elif item.id in first_seen:
            report.skipped.append(Skipped(item.origin, f"duplicate document id '{item.id}' "
                                                       f"(first seen at {first_seen[item.id]})"))
        else:
            first_seen[item.id] = item.origin
            spill.add(item)
            facts.add(item)


# Code whose change alters what a build contains: a new version of any of these rebuilds the
# index on the next ingest (unchanged chunk texts keep their embeddings, so it stays cheap).
_PIPELINE_FILES = (
    Path(__file__).with_name("chunking.py"),
    Path(__file__).with_name("units.py"),
    Path(__file__).with_name("documents.py"),
    Path(__file__).with_name("metadata.py"),
    Path(__file__).parents[1] / "retrieval" / "tokenize.py",
    Path(__file__).parents[1] / "retrieval" / "bm25.py",
    Path(__file__).parents[1] / "retrieval" / "filters.py",
    Path(__file__).parents[1] / "retrieval" / "stopwords_en.txt",
    Path(__file__).parents[1] / "retrieval" / "stopwords_zh.txt",
)


def choose_embedder(settings: KBSettings, chinese_share: float, default: Embedder) -> tuple[Embedder, str]:
    """The embedder of this KB's dense arm and why: the KB's `embedder` setting, else e5 when most
    documents are Chinese (`chinese_share` of them; MiniLM reads Chinese as characters), else `default`."""
    if settings.embedder is not None:
        chosen = default if settings.embedder == default.key else get_embedder(settings.embedder, default.threads)
        return chosen, f"embedder: {settings.embedder} in {CONFIG_FILE}"
    if chinese_share > 0.5:
        chosen = default if default.key == CHINESE_EMBEDDER else get_embedder(CHINESE_EMBEDDER, default.threads)
        return chosen, (f"{chinese_share:.0%} of the documents are Chinese; set embedder: for KB {settings.name} "
                        f"in {CONFIG_FILE} to choose another")
    return default, f"the default; {chinese_share:.0%} of the documents are Chinese"


def on_device(embedder: Embedder, device: str, kb: str) -> Embedder:
    """The embedder that runs on `device`: `embedder` itself on the CPU; on CUDA, the fp32 MiniLM
    model in fp16, which only a KB configured for that model (`embedder: minilm-torch`) accepts.

    Raises:
        ConfigError (field `device`): CUDA for a KB of another embedder, or no CUDA here.
    """
    if device == CPU:
        return embedder
    if embedder.key != MiniLMTorchEmbedder.key:
        raise ConfigError(f"--device cuda embeds with the fp32 MiniLM model only, and KB {kb} uses embedder "
                          f"{embedder.key}: set `embedder: {MiniLMTorchEmbedder.key}` for it in {CONFIG_FILE} "
                          "(or globally), or use --device cpu", field="device")
    gpu = MiniLMTorchEmbedder(device=CUDA)
    gpu.warm_up()  # refuses now, before any reading and chunking, when torch sees no GPU
    return gpu


def _source_checksum(documents: Iterable[Document], settings: KBSettings, embedder: Embedder) -> str:
    """A hash of everything that determines the build's content: inputs, settings, pipeline code."""
    digest = hashlib.sha256()
    digest.update(json.dumps([embedder.name, settings.chunk_words, settings.overlap_words,
                              settings.dense.hnsw_threshold]).encode())
    for path in _PIPELINE_FILES:
        digest.update(path.read_bytes())
    if settings.milvus is not None and settings.backend == "milvus":  # a local KB's checksum is unchanged
        digest.update(json.dumps([settings.backend, settings.milvus.uri, settings.milvus.collection]).encode())
        digest.update(Path(__file__).with_name("milvus_build.py").read_bytes())
    for doc in documents:
        digest.update(json.dumps([doc.id, doc.title, doc.text, doc.metadata], sort_keys=True,
                                 ensure_ascii=False).encode())
    return digest.hexdigest()


def _chunk_documents(documents: Iterable[Document], total: int, settings: KBSettings, progress: bool
                     ) -> Iterator[StoredChunk]:
    """The chunks of `documents` (`total` of them, for the progress bar), one document at a time, rows 0..n-1."""
    row = 0
    for doc in tqdm(documents, total=total, desc="chunking", unit="doc", disable=not progress, file=sys.stderr):
        for piece in chunk_text(doc.text, settings.chunk_words, settings.overlap_words):
            metadata = dict(doc.metadata, title=doc.title)
            if piece.section:
                metadata.setdefault("section", piece.section)
            if piece.has_code:
                metadata["has_code"] = True  # the chunk holds a fenced code block (quoted only for config questions)
            indexed = indexed_text(doc.title, piece.text)
            entities = [e.to_dict() for e in extract_entities(indexed)]
            yield StoredChunk(
                row=row, chunk_id=f"{doc.id}#{piece.position}", doc_id=doc.id,
                title=doc.title, section=piece.section, position=piece.position, text=piece.text,
                metadata=metadata, entities=entities, units=piece.units,
                text_hash=hashlib.sha256(indexed.encode("utf-8")).hexdigest())
            row += 1


def _write_chunks(chunks: Iterable[StoredChunk], store: StoreWriter, bm25: BM25Builder) -> FilterColumns:
    """Write each chunk to the store and count its terms for BM25 as it is made; the filter
    columns of them all (their builder pulls the chunks, so no chunk outlives its row)."""
    def metadata() -> Iterator[dict]:
        for chunk in chunks:
            store.add(chunk)
            bm25.add(tokenize(chunk.indexed_text))
            yield chunk.metadata

    return FilterColumns.build(metadata())


def _digests(hashes: Iterable[str]) -> np.ndarray:
    """Hex SHA-256 text hashes as 32-byte values (`S32`), in order."""
    raw = b"".join(bytes.fromhex(h) for h in hashes)
    return np.frombuffer(raw, dtype="S32")


@dataclass
class _PreviousVectors:
    """The current build's vectors, by the hash of their chunk's text: hashes sorted, each once."""

    hashes: np.ndarray  # S32, sorted
    rows: np.ndarray    # int64: the row of each hash in the current build (the last row holding it)
    index: DenseIndex

    def rows_of(self, hashes: np.ndarray) -> np.ndarray:
        """The current build's row of each hash; -1 where none holds it."""
        at = np.minimum(np.searchsorted(self.hashes, hashes), self.hashes.size - 1)
        return np.where(self.hashes[at] == hashes, self.rows[at], -1)


def _previous_vectors(kb_dir: Path, embedder: Embedder) -> _PreviousVectors | None:
    """The current build's vectors by text hash, when there is one and its embedder matches."""
    current = layout.current_build(kb_dir)
    if current is None:
        return None
    try:
        manifest = read_manifest(current, "")
        if manifest.get("embedder", {}).get("name") != embedder.name:
            return None
        rows, raw = array("q"), bytearray()
        for row, text_hash in ChunkStore(current / "chunks.sqlite").iter_hashes():
            rows.append(row)
            raw += bytes.fromhex(text_hash)
        digests, row_of = np.frombuffer(raw, dtype="S32"), np.frombuffer(rows, dtype=np.int64)
        index = DenseIndex.load(current / "dense")
    except KnowledgeBaseError:
        return None
    if not digests.size:
        return None
    order = np.argsort(digests, kind="stable")  # equal hashes stay in row order: the last is kept
    digests, row_of = digests[order], row_of[order]
    last = np.r_[digests[1:] != digests[:-1], True]
    return _PreviousVectors(digests[last], row_of[last], index)


def _batches(todo: Iterable[tuple[int, str]], size: int) -> Iterator[tuple[list[int], list[str]]]:
    """(rows, texts) of each `size` consecutive (row, text) items of `todo` (a text or its hash)."""
    rows: list[int] = []
    texts: list[str] = []
    for row, text in todo:
        rows.append(row)
        texts.append(text)
        if len(rows) == size:
            yield rows, texts
            rows, texts = [], []
    if rows:
        yield rows, texts


def _encode(todo: Iterable[tuple[int, str]], count: int, embedder: Embedder, workers: int
            ) -> Iterable[tuple[list[int], np.ndarray]]:
    """(rows, vectors) of each EMBED_BATCH of the `count` (row, text) pairs of `todo`, in order: in
    this process with one worker (or for a single batch, which is not worth starting processes),
    else in `workers` processes."""
    batches = _batches(todo, EMBED_BATCH)
    if workers == 1 or count <= EMBED_BATCH:
        for rows, batch in batches:
            yield rows, embedder.passages(batch, batch_size=EMBED_BATCH)
        return
    pending: deque[list[int]] = deque()  # rows of the batches handed to the pool and not yet answered

    def texts() -> Iterable[list[str]]:
        for rows, batch in batches:
            pending.append(rows)
            yield batch

    for vectors in embed_in_workers(texts(), embedder.key, workers, EMBED_BATCH):
        yield pending.popleft(), vectors


def _reuse(store: ChunkStore, previous: _PreviousVectors | None, vectors: np.ndarray) -> np.ndarray:
    """Copy into `vectors` those of the current build whose chunk text is unchanged; which rows got one."""
    reused = np.zeros(vectors.shape[0], dtype=bool)
    if previous is None:
        return reused
    for rows, hashes in _batches(store.iter_hashes(), REUSE_BATCH):
        old = previous.rows_of(_digests(hashes))
        new = np.asarray(rows, dtype=np.int64)
        keep = old >= 0
        if keep.any():
            vectors[new[keep]] = previous.index.reconstruct(old[keep])
            reused[new[keep]] = True
    return reused


def _embed(store: ChunkStore, vectors: np.ndarray, embedder: Embedder, kb_dir: Path, report: IngestReport,
           progress: bool, reuse: bool = True, workers: int = 1) -> None:
    """Fill `vectors` (a row per chunk of `store`): reused from the current build where the text is
    unchanged (unless `reuse` is False), encoded otherwise (in `workers` processes when more than
    one), the texts read back from the store a batch at a time."""
    reused = _reuse(store, _previous_vectors(kb_dir, embedder) if reuse else None, vectors)
    report.reused_vectors = int(reused.sum())
    todo = ((row, text) for row, _chunk_id, text in store.iter_texts() if not reused[row])
    count = vectors.shape[0] - report.reused_vectors
    started = time.perf_counter()
    # tqdm's rate (chunks/s) and remaining time are the ETA a person reads
    bar = tqdm(total=count, desc=f"embedding ({embedder.key})", unit="chunk", disable=not progress,
               file=sys.stderr, smoothing=0.1)
    for rows, batch_vectors in _encode(todo, count, embedder, workers):
        vectors[rows] = batch_vectors
        bar.update(len(rows))
    bar.close()
    report.embedded = count
    report.embed_seconds = time.perf_counter() - started


def _vector_file(directory: Path, rows: int, dim: int) -> np.ndarray:
    """A float32 (rows, dim) array in an unnamed file in `directory`, zeros until written."""
    return np.memmap(tempfile.TemporaryFile(dir=directory, prefix="vectors-"), dtype=np.float32, mode="w+",
                     shape=(rows, dim))


def _collections(kb_dir: Path) -> list[str]:
    """The Milvus collections the builds on disk name in their manifests (a serving process may hold any)."""
    builds = kb_dir / layout.BUILDS
    names = []
    for build in sorted(builds.iterdir()) if builds.is_dir() else []:
        try:
            names.append(read_manifest(build, "").get("milvus", {}).get("collection"))
        except KnowledgeBaseError:
            continue  # unfinished or damaged: it serves nothing
    return [n for n in names if n]


@dataclass(frozen=True)
class _BuildOptions:
    """How a build runs: `stage` called with each stage's name, `rebuild` (embed everything anew),
    `progress` (bars on stderr)."""

    stage: Callable[[str], None]
    rebuild: bool = False
    progress: bool = True


def _build(settings: KBSettings, kb_dir: Path, build_dir: Path, embedder: Embedder, spill: _DocumentSpill,
           report: IngestReport, how: _BuildOptions, engine: dict[str, str]) -> None:
    """Write the build's files into `build_dir` (all but the manifest), and on the milvus backend
    its collection (named in `engine` once written). Each stage streams: chunks go to the store and
    to BM25's term counts as they are made, vectors to a file on disk."""
    stage, progress = how.stage, how.progress
    stage("chunk")
    with contextlib.closing(BM25Builder(build_dir)) as bm25:
        with StoreWriter(build_dir / "chunks.sqlite") as writer:
            columns = _write_chunks(_chunk_documents(spill.documents(), report.documents, settings, progress),
                                    writer, bm25)
            stage("store")
        report.chunks = writer.count
        stage("bm25")
        bm25.finish().save(build_dir / "bm25")
    stage("columns")
    columns.save(build_dir / "columns")
    stage("embed")
    store = ChunkStore(build_dir / "chunks.sqlite")
    vectors = _vector_file(build_dir, report.chunks, embedder.dim)
    _embed(store, vectors, embedder, kb_dir, report, progress, reuse=not how.rebuild, workers=report.workers)
    stage("dense")
    DenseIndex.build(vectors, settings.dense).save(build_dir / "dense")
    if settings.backend == "milvus" and settings.milvus is not None:
        stage("milvus")
        engine["collection"] = milvus_build.build_collection(settings.name, settings.milvus, build_dir,
                                                             store.iter_texts(), vectors, columns)
        engine["acl_field"] = "acl_code"  # searches filter on this scalar field (milvus_expr.acl_expression)


def ingest(settings: KBSettings, kb_dir: Path, embedder: Embedder, paths: Iterable[Path] | None = None,
           rebuild: bool = False, progress: bool = True,
           on_stage: Callable[[str], None] | None = None, workers: int = 1, device: str = CPU) -> IngestReport:
    """Build (or update) a knowledge base from its documents and switch serving to it.

    Args:
        settings: the knowledge base's settings (chunking, dense index, paths).
        kb_dir: its directory under the data dir.
        embedder: the default embedding model (loaded on first use); the KB's `embedder`
            setting, or Chinese documents, choose another (`choose_embedder`).
        paths: files and folders to read; defaults to `settings.paths`.
        rebuild: build even when the inputs are unchanged, and embed everything anew.
        progress: show progress bars on stderr.
        on_stage: called with each stage name (used by tests to interrupt a build).
        workers: processes that embed (one thread each); 1 embeds in this process. The vectors
            are the same either way (tests/orchestration/kb/test_ingest_workers.py).
        device: `cpu`, or `cuda` to embed in this process on a GPU (`on_device`).

    Returns:
        The report; `unchanged` is True when nothing needed building.

    Raises:
        NoUsableDocuments: no usable document at all; the message has the counts and the first
            reasons, the exception's `report` every input skipped and why.
        ConfigError: `workers` below 1, or a `device` this KB or machine cannot embed on.
    """
    started = time.perf_counter()
    stage = on_stage or (lambda _name: None)
    report = IngestReport(kb=settings.name, workers=check_workers(workers) if device == CPU else 1,
                          device=check_device(device))
    with contextlib.closing(_DocumentSpill(_scratch_dir(kb_dir))) as spill:
        facts = _DocumentFacts(count_language=settings.embedder is None)
        _load_documents(paths if paths is not None else settings.paths, report, spill, facts,
                        FieldMap(settings.fields))
        report.documents = facts.documents
        if not facts.documents:
            raise NoUsableDocuments(_nothing_usable(report), report.to_dict())
        facts.report_to(report)
        embedder, report.embedder_reason = choose_embedder(settings, facts.chinese_share, embedder)
        embedder = on_device(embedder, device, settings.name)
        report.embedder = embedder.name
        checksum = _source_checksum(spill.documents(), settings, embedder)
        unchanged = None if rebuild else _unchanged_build(kb_dir, checksum)
        if unchanged is not None:
            report.unchanged, report.build_dir = True, unchanged[0]
            report.chunks = unchanged[1]["counts"]["chunks"]
            report.seconds = time.perf_counter() - started
            return report
        kb_dir.mkdir(parents=True, exist_ok=True)
        layout.prune(kb_dir)
        build_dir = layout.new_build_dir(kb_dir)
        engine = _build_and_switch(settings, kb_dir, build_dir, embedder, spill, report, checksum,
                                   _BuildOptions(stage, rebuild, progress))
    layout.prune(kb_dir)
    if engine and settings.milvus is not None:
        milvus_build.switch_alias(settings.name, settings.milvus, engine["collection"])
        milvus_build.prune_collections(settings.name, settings.milvus, _collections(kb_dir))
    report.build_dir = build_dir
    report.seconds = time.perf_counter() - started
    return report


def _unchanged_build(kb_dir: Path, checksum: str) -> tuple[Path, dict] | None:
    """The current build and its manifest when it was built from the same sources (`checksum`)."""
    current = layout.current_build(kb_dir)
    if current is None:
        return None
    try:
        manifest = read_manifest(current, "")
    except KnowledgeBaseError:
        return None  # damaged current build: build a new one
    return (current, manifest) if manifest.get("source_checksum") == checksum else None


def _build_and_switch(settings: KBSettings, kb_dir: Path, build_dir: Path, embedder: Embedder,
                      spill: _DocumentSpill, report: IngestReport, checksum: str, how: _BuildOptions) -> dict[str, str]:
    """Write the build into `build_dir`, its manifest last, and switch `current` to it; the build's
    Milvus collection (`{"collection": name}`, on that backend; else empty).

    Promises: on any failure or interrupt the build directory is removed and its collection
    dropped, and `current` is left as it was."""
    engine: dict[str, str] = {}  # the build's Milvus collection, on that backend
    stage = how.stage
    try:
        _build(settings, kb_dir, build_dir, embedder, spill, report, how, engine)
        stage("manifest")
        write_manifest(build_dir, {
            "kb": settings.name,
            "built_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "embedder": {"name": embedder.name, "key": embedder.key, "dim": embedder.dim,
                         "chosen_by": report.embedder_reason, "device": report.device,
                         "precision": getattr(embedder, "precision", "as packaged")},
            "counts": {"documents": report.documents, "chunks": report.chunks, "skipped": len(report.skipped)},
            "fields": dict(report.field_counts),   # documents carrying each field with a meaning (`kb list`)
            "dated_documents": report.dated_documents,
            "settings": {"chunk_words": settings.chunk_words, "overlap_words": settings.overlap_words,
                         "dense_kind": "hnsw" if report.chunks >= settings.dense.hnsw_threshold else "flat"},
            "source_checksum": checksum,
            **({"milvus": engine} if engine else {}),
        })
        stage("switch")
        layout.switch_to(kb_dir, build_dir)
    except BaseException:
        shutil.rmtree(build_dir, ignore_errors=True)
        if engine and settings.milvus is not None:  # written, never aliased: dropped (the build's error wins)
            with contextlib.suppress(SearchEngineUnavailable):
                milvus_build.prune_collections(settings.name, settings.milvus, _collections(kb_dir))
        raise
    return engine
