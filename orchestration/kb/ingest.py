"""Building a knowledge base: read, chunk, tag entities, index, write, switch.

`ingest()` is what `sightline ingest` runs. It never damages the build being served: it
writes a new build directory, writes the manifest last, then switches `current` to it
atomically. Embeddings of chunks whose text did not change are reused from the current
build, so updating a large knowledge base only embeds what is new; the rest is embedded in
`workers` one-thread processes (embed_pool.py), or on a GPU with `device="cuda"`. Nothing about the input
raises: every document that cannot be used is reported with its file, line and reason, and
so is what the metadata gave: how many documents carry each field with a meaning, values
dropped (an unreadable date), and a knowledge base none of whose documents carries a date.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from core.errors import ConfigError, KnowledgeBaseError, NoUsableDocuments, SearchEngineUnavailable
from perception import extract_entities
from perception.language import detect_language

from ..retrieval.bm25 import BM25Index
from ..retrieval.dense import DenseIndex
from ..retrieval.embedder import CHINESE_EMBEDDER, CPU, CUDA, Embedder, MiniLMTorchEmbedder, check_device, get_embedder
from ..retrieval.filters import FilterColumns
from ..retrieval.tokenize import tokenize
from . import layout, milvus_build
from .chunking import chunk_text
from .config import KBSettings
from .documents import Document, Skipped, iter_documents
from .embed_pool import check_workers, embed_in_workers
from .manifest import read_manifest, write_manifest
from .metadata import COUNTED_FIELDS, DOCUMENT_DATE_FIELDS, FieldMap
from .store import ChunkStore, StoredChunk, write_store

EMBED_BATCH = 64
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


def _undated_warning(kb: str, documents: list[Document]) -> Notice | None:
    """The warning for a knowledge base none of whose documents carries a date (None when one does).

    Promises: it proposes a mapping only to a field the documents carry: the documents' own
    fields that hold a date, the most common first, with a `fields:` example naming the first;
    when no field of theirs holds one, it says so and proposes nothing."""
    if any(key in doc.metadata for doc in documents for key in DOCUMENT_DATE_FIELDS):
        return None
    message = f"time filters and freshness checks will not apply to KB {kb}: "
    candidates: dict[str, int] = {}
    for doc in documents:
        for name in doc.undated_date_fields:
            candidates[name] = candidates.get(name, 0) + 1
    if not candidates:
        return Notice("", message + "none of its documents carries a date, in a field with a meaning or one of "
                                    "their own, so there is no field to map")
    ranked = sorted(candidates.items(), key=lambda item: (-item[1], item[0]))[:NOTE_EXAMPLES]
    held = ", ".join(f"{name} in {count} document(s)" for name, count in ranked)
    example = f"fields: {{published_at: {ranked[0][0]}}}"
    return Notice("", message + f"their dates are in fields of their own ({held}); map the one that dates them "
                                f"with fields.published_at in {CONFIG_FILE}, e.g. {example}")


def _read_metadata_report(documents: list[Document], report: IngestReport) -> None:
    """Fill the report's field counts, warnings and notes from the documents read."""
    report.field_counts = {name: sum(1 for doc in documents if doc.metadata.get(name) not in (None, "", []))
                           for name in COUNTED_FIELDS}
    report.dated_documents = sum(1 for doc in documents if any(doc.metadata.get(f) for f in DOCUMENT_DATE_FIELDS))
    undated = _undated_warning(report.kb, documents)
    if undated is not None:
        report.warnings.append(undated)
    for doc in documents:
        report.warnings += [Notice(doc.origin, message) for message in doc.warnings]
        report.notes += [Notice(doc.origin, message) for message in doc.notes]


def _load_documents(paths: Iterable[Path], report: IngestReport, fields: FieldMap | None = None
                    ) -> list[Document]:
    """Documents from all paths, duplicates of an id skipped with a pointer to the first."""
    documents: list[Document] = []
    first_seen: dict[str, str] = {}
    for item in iter_documents(list(paths), fields):
        if isinstance(item, Skipped):
            report.skipped.append(item)
        elif item.id in first_seen:
            report.skipped.append(Skipped(item.origin, f"duplicate document id '{item.id}' "
                                                       f"(first seen at {first_seen[item.id]})"))
        else:
            first_seen[item.id] = item.origin
            documents.append(item)
    return documents


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


def _chinese_share(documents: list[Document]) -> float:
    """The share of documents whose text is Chinese (perception's rule, on each one's start)."""
    zh = sum(1 for doc in documents if detect_language(f"{doc.title}\n{doc.text[:LANGUAGE_SAMPLE]}") == "zh")
    return zh / len(documents) if documents else 0.0


def choose_embedder(settings: KBSettings, documents: list[Document], default: Embedder) -> tuple[Embedder, str]:
    """The embedder of this KB's dense arm and why: the KB's `embedder` setting, else e5 when most
    documents are Chinese (MiniLM reads Chinese as characters), else `default`."""
    if settings.embedder is not None:
        chosen = default if settings.embedder == default.key else get_embedder(settings.embedder, default.threads)
        return chosen, f"embedder: {settings.embedder} in {CONFIG_FILE}"
    share = _chinese_share(documents)
    if share > 0.5:
        chosen = default if default.key == CHINESE_EMBEDDER else get_embedder(CHINESE_EMBEDDER, default.threads)
        return chosen, (f"{share:.0%} of the documents are Chinese; set embedder: for KB {settings.name} "
                        f"in {CONFIG_FILE} to choose another")
    return default, f"the default; {share:.0%} of the documents are Chinese"


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


def _source_checksum(documents: list[Document], settings: KBSettings, embedder: Embedder) -> str:
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


def _chunk_documents(documents: list[Document], settings: KBSettings, progress: bool) -> list[StoredChunk]:
    chunks: list[StoredChunk] = []
    for doc in tqdm(documents, desc="chunking", unit="doc", disable=not progress, file=sys.stderr):
        for piece in chunk_text(doc.text, settings.chunk_words, settings.overlap_words):
            metadata = dict(doc.metadata, title=doc.title)
            if piece.section:
                metadata.setdefault("section", piece.section)
            if piece.has_code:
                metadata["has_code"] = True  # the chunk holds a fenced code block (quoted only for config questions)
            indexed = f"{doc.title}\n{piece.text}" if doc.title else piece.text
            entities = [e.to_dict() for e in extract_entities(indexed)]
            chunks.append(StoredChunk(
                row=len(chunks), chunk_id=f"{doc.id}#{piece.position}", doc_id=doc.id,
                title=doc.title, section=piece.section, position=piece.position, text=piece.text,
                metadata=metadata, entities=entities, units=piece.units,
                text_hash=hashlib.sha256(indexed.encode("utf-8")).hexdigest()))
    return chunks


def _previous_vectors(kb_dir: Path, embedder: Embedder) -> tuple[dict[str, int], DenseIndex | None]:
    """text_hash -> row of the current build and its dense index, when the embedder matches."""
    current = layout.current_build(kb_dir)
    if current is None:
        return {}, None
    try:
        manifest = read_manifest(current, "")
        if manifest.get("embedder", {}).get("name") != embedder.name:
            return {}, None
        return ChunkStore(current / "chunks.sqlite").rows_by_hash(), DenseIndex.load(current / "dense")
    except KnowledgeBaseError:
        return {}, None


def _encode(todo: list[StoredChunk], embedder: Embedder, workers: int) -> Iterable[tuple[list[int], np.ndarray]]:
    """(rows, vectors) of each EMBED_BATCH of `todo`, in order: in this process with one worker
    (or for a single batch, which is not worth starting processes), else in `workers` processes."""
    batches = (todo[start:start + EMBED_BATCH] for start in range(0, len(todo), EMBED_BATCH))
    if workers == 1 or len(todo) <= EMBED_BATCH:
        for batch in batches:
            yield [c.row for c in batch], embedder.passages([c.indexed_text for c in batch], batch_size=EMBED_BATCH)
        return
    rows: list[list[int]] = []  # rows of the batches handed to the pool and not yet answered

    def texts() -> Iterable[list[str]]:
        for batch in batches:
            rows.append([c.row for c in batch])
            yield [c.indexed_text for c in batch]

    for vectors in embed_in_workers(texts(), embedder.key, workers, EMBED_BATCH):
        yield rows.pop(0), vectors


def _embed(chunks: list[StoredChunk], embedder: Embedder, kb_dir: Path, report: IngestReport,
           progress: bool, reuse: bool = True, workers: int = 1) -> np.ndarray:
    """Vectors for all chunks: reused from the current build where the text is unchanged
    (unless `reuse` is False), encoded otherwise (in `workers` processes when more than one)."""
    vectors = np.zeros((len(chunks), embedder.dim), dtype=np.float32)
    old_rows, old_index = _previous_vectors(kb_dir, embedder) if reuse else ({}, None)
    reusable = [(c.row, old_rows[c.text_hash]) for c in chunks if c.text_hash in old_rows]
    if reusable and old_index is not None:
        new_rows, prev_rows = (np.array(x) for x in zip(*reusable, strict=True))
        vectors[new_rows] = old_index.reconstruct(prev_rows)
        report.reused_vectors = len(reusable)
    reused = {row for row, _ in reusable} if old_index is not None else set()
    todo = [c for c in chunks if c.row not in reused]
    started = time.perf_counter()
    # tqdm's rate (chunks/s) and remaining time are the ETA a person reads
    bar = tqdm(total=len(todo), desc=f"embedding ({embedder.key})", unit="chunk", disable=not progress,
               file=sys.stderr, smoothing=0.1)
    for rows, batch_vectors in _encode(todo, embedder, workers):
        vectors[rows] = batch_vectors
        bar.update(len(rows))
    bar.close()
    report.embedded = len(todo)
    report.embed_seconds = time.perf_counter() - started
    return vectors


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
    documents = _load_documents(paths if paths is not None else settings.paths, report, FieldMap(settings.fields))
    report.documents = len(documents)
    if not documents:
        raise NoUsableDocuments(_nothing_usable(report), report.to_dict())
    _read_metadata_report(documents, report)
    embedder, report.embedder_reason = choose_embedder(settings, documents, embedder)
    embedder = on_device(embedder, device, settings.name)
    report.embedder = embedder.name
    checksum = _source_checksum(documents, settings, embedder)
    current = layout.current_build(kb_dir)
    if current is not None and not rebuild:
        try:
            manifest = read_manifest(current, "")
            if manifest.get("source_checksum") == checksum:
                report.unchanged, report.build_dir = True, current
                report.chunks = manifest["counts"]["chunks"]
                report.seconds = time.perf_counter() - started
                return report
        except KnowledgeBaseError:
            pass  # damaged current build: build a new one
    kb_dir.mkdir(parents=True, exist_ok=True)
    layout.prune(kb_dir)
    build_dir = layout.new_build_dir(kb_dir)
    engine: dict[str, str] = {}  # the build's Milvus collection, on that backend
    try:
        stage("chunk")
        chunks = _chunk_documents(documents, settings, progress)
        report.chunks = len(chunks)
        stage("store")
        write_store(build_dir / "chunks.sqlite", chunks)
        stage("bm25")
        BM25Index.build(tokenize(c.indexed_text) for c in chunks).save(build_dir / "bm25")
        stage("columns")
        columns = FilterColumns.build(c.metadata for c in chunks)
        columns.save(build_dir / "columns")
        stage("embed")
        vectors = _embed(chunks, embedder, kb_dir, report, progress, reuse=not rebuild, workers=report.workers)
        stage("dense")
        DenseIndex.build(vectors, settings.dense).save(build_dir / "dense")
        if settings.backend == "milvus" and settings.milvus is not None:
            stage("milvus")
            engine["collection"] = milvus_build.build_collection(settings.name, settings.milvus, build_dir, chunks,
                                                                 vectors, columns)
        stage("manifest")
        write_manifest(build_dir, {
            "kb": settings.name,
            "built_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "embedder": {"name": embedder.name, "key": embedder.key, "dim": embedder.dim,
                         "chosen_by": report.embedder_reason, "device": report.device,
                         "precision": getattr(embedder, "precision", "as packaged")},
            "counts": {"documents": len(documents), "chunks": len(chunks), "skipped": len(report.skipped)},
            "fields": dict(report.field_counts),   # documents carrying each field with a meaning (`kb list`)
            "dated_documents": report.dated_documents,
            "settings": {"chunk_words": settings.chunk_words, "overlap_words": settings.overlap_words,
                         "dense_kind": "hnsw" if len(chunks) >= settings.dense.hnsw_threshold else "flat"},
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
    layout.prune(kb_dir)
    if engine and settings.milvus is not None:
        milvus_build.switch_alias(settings.name, settings.milvus, engine["collection"])
        milvus_build.prune_collections(settings.name, settings.milvus, _collections(kb_dir))
    report.build_dir = build_dir
    report.seconds = time.perf_counter() - started
    return report
