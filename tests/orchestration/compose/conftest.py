"""Fixtures for composer tests: real perceptions and evidence built from the demo Markdown.

Evidence is made by parsing and chunking the demo documents directly (no retrieval, no
embedding model), in the order a test lists them, so tests are fast and say exactly which
evidence they give the composer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestration.kb.chunking import chunk_text
from orchestration.kb.documents import Document, iter_documents
from orchestration.retrieval.scored import ScoredChunk

DEMO_KB = Path(__file__).resolve().parents[3] / "orchestration" / "demo_kb"
NOW = "2025-07-10"


@pytest.fixture(scope="session")
def demo_documents() -> dict[str, tuple[str, Document]]:
    """Every demo document by id, with its knowledge base name."""
    out: dict[str, tuple[str, Document]] = {}
    for kb_dir in sorted(p for p in DEMO_KB.iterdir() if p.is_dir()):
        for doc in iter_documents([kb_dir]):
            assert isinstance(doc, Document), doc
            out[doc.id] = (kb_dir.name, doc)
    return out


def chunk_of(kb: str, doc: Document, position: int, text: str, score: float, section: str = "") -> ScoredChunk:
    """A ScoredChunk as retrieval would return it for one chunk of a document (metadata as ingest sets it)."""
    metadata = dict(doc.metadata, title=doc.title)
    if section:
        metadata.setdefault("section", section)
    return ScoredChunk(chunk_id=f"{doc.id}#{position}", kb=kb, text=text, title=doc.title,
                       metadata=metadata, score=score, fused=score)


@pytest.fixture(scope="session")
def evidence(demo_documents):
    """evidence(*doc_ids) -> every chunk of those documents, in the order given, scores falling."""

    def build(*doc_ids: str) -> list[ScoredChunk]:
        chunks: list[ScoredChunk] = []
        for doc_id in doc_ids:
            kb, doc = demo_documents[doc_id]
            for piece in chunk_text(doc.text):
                chunks.append(chunk_of(kb, doc, piece.position, piece.text, 1.0 / (1 + len(chunks)), piece.section))
        return chunks

    return build


@pytest.fixture(scope="session")
def perceive():
    """perceive(query) -> the real Perception (rules only, now = 2025-07-10)."""
    from perception import PerceptionAgent

    agent = PerceptionAgent(use_ner=False)
    agent.warm_up()
    return lambda query: agent.run(query, NOW)


@pytest.fixture
def synthetic():
    """synthetic(text, doc_id=..., source=..., language=...) -> one hand-written evidence chunk."""

    def build(text: str, doc_id: str = "doc", source: str = "Test Source", title: str = "Test document",
              position: int = 0, score: float = 1.0, **metadata) -> ScoredChunk:
        meta = {"source": source, "title": title, "status": "effective",
                "published_at": "2024-01-01", "updated_at": "2024-02-01", **metadata}
        return ScoredChunk(chunk_id=f"{doc_id}#{position}", kb="test", text=text, title=title,
                           metadata=meta, score=score, fused=score)

    return build
