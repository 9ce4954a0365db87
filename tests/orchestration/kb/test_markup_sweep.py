"""Issue 23's markup sweep: no quotable unit of a real documentation set carries its markup.

The documentation sets of the real-documentation dev set (Poetry's Hugo Markdown docs, restic's
Sphinx reST manual, httpx's MkDocs Markdown, evaluation/data/docsets/) are read by the ingest's readers, chunked as a
build chunks them, and split into the composer's candidate units; no unit may hold reST
directives or roles, inline-literal backticks, template tags, front matter, Markdown headings
or links with their address. (The PEPs were swept the same way by hand: 94,666 units, the only
hits prose that talks about markup, e.g. "use the .. code-block:: directive".)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from orchestration.compose.sentences import chunk_candidates
from orchestration.kb.chunking import chunk_text
from orchestration.kb.documents import Document, iter_documents
from orchestration.retrieval.scored import ScoredChunk

DOCSETS = Path(__file__).resolve().parents[3] / "evaluation" / "data" / "docsets"
LEAKS = {
    "reST directive": re.compile(r"(?:^|\s)\.\. [a-z-]+(?::[a-z-]+)?::"),
    "reST role": re.compile(r":[a-z]+(?::[a-z]+)?:`"),
    "inline literal backticks": re.compile(r"``\S"),
    "template tag": re.compile(r"\{%|%\}|\{\{ ?[\w.]+ ?\}\}"),
    "front matter": re.compile(r"(?m)^(?:---|\+\+\+)\s*$"),
    "Markdown heading": re.compile(r"(?m)^#{1,6} "),
    "Markdown link address": re.compile(r"\]\(\s*(?:https?:|/|\.\.?/|#)"),
    "version note directive": re.compile(r"\b(?:versionadded|versionchanged|deprecated)::"),
    # a version note is metadata: its number must never be quotable as a figure (issue 23)
    "version note": re.compile(r"^(?:New|Added|Changed|Deprecated|Removed) (?:in|since) version \d"),
    # the clean text's own item marker or a bullet glyph ("* is expanded ..." and "5. Running all
    # backups" open real units: a glob and a numbered title)
    "list marker": re.compile(r"^\s*[-•▪]\s"),
    "table syntax": re.compile(r"^\s*\|.*\|\s*$|\|\s*:?-{3,}"),
    # MkDocs block extensions: admonitions, collapsible boxes, content tabs, mkdocstrings
    "MkDocs block marker": re.compile(r"(?:^|\s)(?:!!!|\?\?\?\+?) \w|^=== \"|(?:^|\s)::: [\w.]+"),
    "mkdocstrings option": re.compile(r"(?:^|\s):(?:docstring|members):"),
}
UNITS_AT_LEAST = {"poetry": 1000, "restic": 1000, "httpx": 600}  # the whole set was read


def _units(folder: Path) -> list[str]:
    out = []
    for loaded in iter_documents([folder]):
        if not isinstance(loaded, Document):
            continue
        for i, chunk in enumerate(chunk_text(loaded.text)):
            scored = ScoredChunk(chunk_id=f"{loaded.id}#{i}", kb="sweep", text=chunk.text, title=loaded.title,
                                 metadata=dict(loaded.metadata, section=chunk.section), score=1.0,
                                 units=chunk.units)  # the units a build stores
            out += [c.text for c in chunk_candidates(scored, 0)]
    return out


@pytest.mark.parametrize("docset", sorted(UNITS_AT_LEAST))
def test_no_quotable_unit_of_a_real_documentation_set_carries_markup(docset):
    units = _units(DOCSETS / docset / "pages")
    assert len(units) > UNITS_AT_LEAST[docset]
    found = {name: [u for u in units if pattern.search(u)] for name, pattern in LEAKS.items()}
    assert not any(found.values()), {name: hits[:3] for name, hits in found.items() if hits}


def test_a_markdown_link_whose_address_sits_on_its_own_line_keeps_its_text_only():
    from orchestration.kb.formats.markup import clean_inline

    assert clean_inline("keep the [recommendations for a README]( https://packaging.python.org/x/ ) in mind") \
        == "keep the recommendations for a README in mind"
