"""Test material for the validation checks: demo-KB chunks, real perceptions, answer builders.

Chunks are built straight from `orchestration/demo_kb` with the real loader and chunker (no
index, no embedding model), so claims are checked against the text users would retrieve.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

import pytest

import orchestration
from orchestration.kb.chunking import chunk_text
from orchestration.kb.documents import Document, iter_documents
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer, Citation, Claim
from perception import PerceptionAgent
from perception.types import Perception
from validation import CheckContext

NOW = dt.date(2025, 7, 10)
DEMO_KB = Path(orchestration.__file__).parent / "demo_kb"


def _load_chunks() -> dict[str, ScoredChunk]:
    """Every chunk of the demo KBs by chunk id (KB name = folder name)."""
    out: dict[str, ScoredChunk] = {}
    for kb in ("manuals", "policies", "reports"):
        for doc in iter_documents([DEMO_KB / kb]):
            assert isinstance(doc, Document), doc
            for piece in chunk_text(doc.text):
                chunk_id = f"{doc.id}#{piece.position}"
                out[chunk_id] = ScoredChunk(chunk_id=chunk_id, kb=kb, text=piece.text, title=doc.title,
                                            metadata=dict(doc.metadata, title=doc.title))
    return out


CHUNKS = _load_chunks()


def chunk(doc_id: str, phrase: str) -> ScoredChunk:
    """The first chunk of document `doc_id` whose text contains `phrase`."""
    for chunk_id, found in CHUNKS.items():
        if chunk_id.rsplit("#", 1)[0] == doc_id and phrase in found.text:
            return found
    raise LookupError(f"no chunk of {doc_id} contains {phrase!r}")


def answer(claims: Iterable[Claim], cited: Iterable[ScoredChunk], language: str = "en") -> Answer:
    """An answer whose citation n (1-based) is the n-th chunk of `cited`."""
    citations = [Citation(n=n, chunk_id=c.chunk_id, kb=c.kb, source=c.metadata.get("source"), title=c.title,
                          updated_at=c.metadata.get("updated_at"), snippet=c.text[:80],
                          published_at=c.metadata.get("published_at"), status=c.metadata.get("status"))
                 for n, c in enumerate(cited, start=1)]
    claims = list(claims)
    text = " ".join(c.text for c in claims)
    return Answer(text=text, claims=claims, citations=citations, language=language)


@pytest.fixture(scope="session")
def perceive():
    """A function query -> Perception from the real rules-only Perception agent (now = NOW)."""
    agent = PerceptionAgent(use_ner=False)
    agent.warm_up()
    cache: dict[str, Perception] = {}

    def run(query: str) -> Perception:
        if query not in cache:
            cache[query] = agent.run(query, NOW)
        return cache[query]

    return run


@pytest.fixture
def context() -> CheckContext:
    """Today = NOW, no maximum ages, the default stale statuses."""
    return CheckContext(now=NOW)


# --- the chunks the tests cite ---------------------------------------------------------

A320_2023 = chunk("manuals-a320neo-perf-2023", "2,290 kg per block hour")
A320_2021 = chunk("manuals-a320neo-perf-2021", "2,350 kg per block hour")
A320_2023_ZH = chunk("manuals-a320neo-perf-2023-zh", "2,290")
MAX8_2023 = chunk("manuals-b737max8-perf-2023", "2,360 kg per block hour")
COMPARISON_2023 = chunk("manuals-fuel-efficiency-comparison-2023", "2,290")
QUALITY_Q2 = chunk("reports-quality-summary-q2-2025", "87%")
QUALITY_Q1_ZH = chunk("reports-quality-summary-q1-2025-zh", "82%")
INVOICE_2024 = chunk("policies-invoice-contract-mismatch-2024", "5 working days")
INVOICE_2025_DRAFT = chunk("policies-invoice-contract-mismatch-2025-draft", "Vendor Settlement Office")
TRAVEL_2021 = chunk("policies-travel-2021", "longer than 8 hours")
TRAVEL_2023 = chunk("policies-travel-2023", "longer than 10 hours")
FAULT_E4027 = chunk("manuals-fault-e4027", "E4027")
ORDER_0688 = chunk("reports-po-2025-0688", "USD 8,900")
ORDER_0705 = chunk("reports-po-2025-0705", "USD 62,300")

EVIDENCE = [A320_2023, A320_2021, A320_2023_ZH, MAX8_2023, COMPARISON_2023, QUALITY_Q2, QUALITY_Q1_ZH,
            INVOICE_2024, INVOICE_2025_DRAFT, TRAVEL_2021, TRAVEL_2023, FAULT_E4027, ORDER_0688, ORDER_0705]


def rows(adjustments, claims=()) -> list[tuple]:
    """(action, params, reason) of each adjustment; a DropClaims shown as {"claim": i}, the index of
    the answer claim whose text (markers stripped) it names, so a table row reads like the issue."""
    from core.text import strip_markers

    texts = [strip_markers(c.text) for c in claims]
    out = []
    for a in adjustments:
        params = a.params()
        if a.action == "drop_claim":
            params = {"claim": texts.index(a.claims[0])} if len(a.claims) == 1 and a.claims[0] in texts else params
        out.append((a.action, params, a.reason))
    return out


@pytest.fixture(scope="session")
def ner_agent():
    """A warmed Perception agent with statistical NER (a model fixture: the suite marks its tests `model`)."""
    agent = PerceptionAgent(use_ner=True)
    agent.warm_up()
    return agent
