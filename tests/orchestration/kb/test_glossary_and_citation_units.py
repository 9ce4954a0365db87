"""A glossary entry reads term then meaning; a citation says what it quotes and under which heading.

Found in issue 23: glossary and definition lines ("SLA - service level agreement") never became
answer candidates (an HTML `<dl>` came out as a bare term and a meaning apart); and the trace and
citations did not say what kind of text a citation quotes or where in its document it stands.
"""

from __future__ import annotations

from orchestration.compose.citations import CitationBook
from orchestration.compose.sentences import chunk_candidates
from orchestration.kb.formats.html import parse_html
from orchestration.retrieval.scored import ScoredChunk

GLOSSARY = """<html><body><main><h1>Glossary</h1><p>Terms used on this site:</p>
<dl><dt>SLA</dt><dd>service level agreement, the uptime we promise</dd>
<dt>RPO</dt><dd><p>recovery point objective, the data loss we allow</p></dd>
<dt>RTO</dt><dt>Recovery time</dt><dd>how long a restore may take</dd></dl>
</main></body></html>
"""


def test_a_definition_list_reads_term_then_meaning():
    lines = parse_html(GLOSSARY).text.split("\n\n")
    assert "SLA: service level agreement, the uptime we promise" in lines
    assert "RPO: recovery point objective, the data loss we allow" in lines
    assert "RTO" in lines and "Recovery time: how long a restore may take" in lines


def test_a_citation_says_what_it_quotes_and_under_which_heading():
    text = "The Standard plan includes four support hours per period. Unused hours do not roll over."
    chunk = ScoredChunk(chunk_id="c0", kb="kb", text=text, metadata={"section": "Support tiers"}, score=1.0,
                        title="Plans")
    first = chunk_candidates(chunk, 0)[0]
    book = CitationBook()
    book.cite(chunk, first.text, first.unit)
    [citation] = book.citations()
    assert (citation.unit, citation.section) == ("sentence", "Support tiers")
    assert citation.snippet == "The Standard plan includes four support hours per period."


def test_a_cited_setting_names_it_and_carries_its_version_notes():
    from orchestration.kb.chunking import chunk_text
    from orchestration.kb.formats.rst import parse_rst

    from .test_sphinx_objects import SETTINGS_REFERENCE

    stored = chunk_text(parse_rst(SETTINGS_REFERENCE).text)[0]
    chunk = ScoredChunk(chunk_id="c0", kb="kb", text=stored.text, metadata={}, score=1.0, title="Settings",
                        units=stored.units)
    field = next(c for c in chunk_candidates(chunk, 0) if c.text.startswith("CACHE_DIR:"))
    book = CitationBook()
    book.cite(chunk, field.text, field.unit, field.path)
    [citation] = book.citations()
    assert (citation.unit, citation.name, citation.version_notes) == ("field", "CACHE_DIR", ["Changed in version 1.0"])
    assert "version" not in citation.snippet
