"""Comparisons between publications: a side is covered by citing one of its articles."""

import pytest

from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer, Citation, Claim
from perception import PerceptionAgent
from validation.checks import comparison
from validation.context import CheckContext

from .conftest import NOW

QUERY = "Did TechCrunch report a higher valuation for OpenAI than The Verge did?"


def _chunk(cid, source, text):
    return ScoredChunk(chunk_id=cid, kb="news", text=text, title="t", metadata={"source": source})


@pytest.fixture(scope="module")
def perception():
    agent = PerceptionAgent(use_ner=False, known_sources=["TechCrunch", "The Verge"])
    agent.warm_up()
    return agent.run(QUERY, NOW)


def _answer(chunks):
    claims = [Claim(f"{c.text} [{n}]", [n]) for n, c in enumerate(chunks, start=1)]
    cites = [Citation(n, c.chunk_id, "news", c.metadata["source"], "t", None, c.text) for n, c in enumerate(chunks, 1)]
    return Answer(" ".join(c.text for c in claims), claims, cites)


def test_sources_are_the_sides(perception):
    assert perception.action == "compare"
    assert {e.normalized for e in perception.entities if e.label == "SOURCE"} == {"TechCrunch", "The Verge"}


def test_citing_an_article_of_each_outlet_covers_both_sides(perception):
    chunks = [_chunk("a#0", "TechCrunch", "OpenAI was valued at $86 billion."),
              _chunk("b#0", "The Verge", "The company is worth about $80 billion.")]
    assert comparison.check(perception, _answer(chunks), chunks, CheckContext(NOW)) == []


def test_an_outlet_with_no_cited_article_is_a_missing_side(perception):
    chunks = [_chunk("a#0", "TechCrunch", "OpenAI was valued at $86 billion."),
              _chunk("b#0", "The Verge", "The company is worth about $80 billion.")]
    issues = comparison.check(perception, _answer(chunks[:1]), chunks, CheckContext(NOW))
    assert [(i.kind, i.entity) for i in issues] == [("missing_side", "The Verge")]
    assert "b#0" in issues[0].detail
