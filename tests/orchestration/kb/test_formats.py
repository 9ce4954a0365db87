"""Document formats at ingest: reST with PEP headers, HTML, PDF and Markdown as a user's folder holds them.

Each test reads the small corpus in tests/data/formats/ through the generic loader, then looks
at what a user sees: the metadata, the chunks, and the sentences the composer may quote.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.vocab import STATUS_VALUES
from evaluation.pdf_split_words import split_words
from orchestration.compose.citations import CitationBook
from orchestration.compose.sentences import chunk_candidates
from orchestration.kb.chunking import chunk_text
from orchestration.kb.documents import READERS, SUPPORTED_SUFFIXES, Document, Skipped, iter_documents
from orchestration.kb.formats.headers import PEP_STATUSES
from orchestration.kb.formats.markdown import clean_markdown
from orchestration.kb.formats.markup import is_markup
from orchestration.retrieval.scored import ScoredChunk

from . import pdf_fixture

CORPUS = Path(__file__).resolve().parents[2] / "data" / "formats"
# Markup that must never reach a quotable sentence: reST roles and links, Markdown links, tags.
MARKUP_LEFTOVERS = re.compile(r"`_|<https?:|\]\(|:pep:|:func:|\.\. |</?[a-z]+[ >]|\|\s*\w+\s*\|")


def _load(*names: str) -> tuple[list[Document], list[Skipped]]:
    items = list(iter_documents([CORPUS / name for name in names]))
    return ([i for i in items if isinstance(i, Document)], [i for i in items if isinstance(i, Skipped)])


def _doc(name: str) -> Document:
    docs, skipped = _load(name)
    assert not skipped and len(docs) == 1, skipped
    return docs[0]


def _chunks(doc: Document, **kwargs) -> list[ScoredChunk]:
    """The document's chunks as retrieval would return them (metadata as ingest sets it)."""
    return [ScoredChunk(chunk_id=f"{doc.id}#{piece.position}", kb="t", text=piece.text, title=doc.title,
                        metadata=dict(doc.metadata, title=doc.title, section=piece.section))
            for piece in chunk_text(doc.text, **kwargs)]


def _sentences(doc: Document, keep_code: bool = False) -> list[str]:
    return [c.text for chunk in _chunks(doc) for c in chunk_candidates(chunk, 0, keep_code=keep_code)]


# --- reStructuredText with a PEP header block -----------------------------------------------------

def test_a_pep_header_block_gives_title_status_type_dates_authors_and_supersession():
    doc = _doc("pep-9999.rst")
    meta = doc.metadata
    assert doc.id == "pep-9999" and doc.title == "PEP 9999 – Frozen Configuration Objects"
    assert meta["status"] == "superseded" and meta["source_status"] == "Superseded"
    assert meta["doc_type"] == "standards_track"
    assert meta["published_at"].startswith("2001-02-07")  # Created: 07-Feb-2001
    assert meta["post_history"] == ["2001-02-07", "2001-03-15"]
    assert meta["author"] == ["Jane Roe", "John Doe"]  # e-mail addresses (both spellings) gone
    assert meta["superseded_by"] == ["pep-10000"] and meta["replaces"] == ["pep-9998"]
    assert meta["python_version"] == "3.99" and meta["pep"] == 9999
    assert meta["url"] == "https://peps.python.org/pep-9999/"
    assert meta["discussions_to"].startswith("https://discuss.example.org")  # unknown fields kept
    assert not doc.warnings


@pytest.mark.parametrize("written", sorted(PEP_STATUSES))
def test_every_pep_status_maps_into_the_service_vocabulary_and_the_original_is_kept(tmp_path, written):
    path = tmp_path / "pep-0042.rst"
    path.write_text(f"PEP: 42\nTitle: T\nStatus: {written.title()}\nType: Process\nCreated: 01-Jan-2020\n\n"
                    "Body text of the proposal.\n", encoding="utf-8")
    (doc,) = list(iter_documents([path]))
    assert isinstance(doc, Document)
    assert doc.metadata["status"] in STATUS_VALUES
    assert doc.metadata["source_status"].lower() == written


def test_the_header_opens_the_text_so_questions_about_it_have_a_sentence_to_cite():
    """Found on the PEPs: "When was PEP 572 created?" was refused ("the cited sources never name
    PEP 572"): the Created date was metadata only, so no sentence of PEP 572 stated it."""
    from orchestration.focus import fills_slot

    doc = _doc("pep-9999.rst")
    sentences = _sentences(doc)
    assert sentences[:4] == ["PEP 9999 – Author: Jane Roe, John Doe.", "PEP 9999 – Status: Superseded.",
                             "PEP 9999 – Type: Standards Track.", "PEP 9999 – Created: 07-Feb-2001."], \
        "as the published page shows them, names without e-mails, each naming its PEP"
    assert "PEP 9999 – Superseded-By: 10000." in sentences and not any("Discussions-To" in s for s in sentences)
    assert fills_slot("date", sentences[3]) and fills_slot("actor", sentences[0])
    assert _chunks(doc)[0].text.startswith("PEP 9999 – Author: Jane Roe, John Doe.")


def test_rst_markup_never_becomes_a_sentence_code_stays_fenced_and_flagged():
    doc = _doc("pep-9999.rst")
    assert "```python\nfrom config import freeze" in doc.text  # the code-block directive, options dropped
    assert "```\n$ python -m config show" in doc.text          # the `::` literal block
    assert ":linenos:" not in doc.text and "public domain" not in doc.text  # options; the Copyright section
    assert "inside a directive plain docutils does not know" in doc.text    # unknown directives keep their text
    sentences = _sentences(doc)
    # :func:`~os.path.join`: under a `~` Sphinx shows the name's last part (issue 34; was "os.path.join")
    assert "It builds on PEP 8 and the attrs project, and uses join for paths." in sentences
    # a table row is read with its column names, never quoted raw (compose/sentences.table_row_sentence)
    assert "retries – Default: 3." in sentences
    assert not [s for s in sentences if MARKUP_LEFTOVERS.search(s) or "freeze(" in s or "|" in s]
    chunks = chunk_text(doc.text)
    assert any(c.has_code for c in chunks)
    coded = [c for chunk in _chunks(doc) for c in chunk_candidates(chunk, 0, keep_code=True) if c.notes.get("code")]
    assert coded and coded[0].text.startswith("from config import freeze")


def test_a_txt_file_with_a_header_block_reads_its_metadata_and_plain_text_stays_plain(tmp_path):
    (tmp_path / "memo.txt").write_text("Title: Office move\nStatus: Draft\nDate: 2024-05-02\n\n"
                                       "We move to the new office in June.\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("Note: the printer is broken.\nIt will be fixed on Monday.\n",
                                        encoding="utf-8")
    docs = {d.id: d for d in iter_documents([tmp_path]) if isinstance(d, Document)}
    memo, notes = docs["memo"], docs["notes"]
    assert memo.title == "Office move" and memo.metadata["status"] == "draft"
    assert memo.metadata["published_at"].startswith("2024-05-02")  # `Date` is a published-date alias
    assert memo.text == "We move to the new office in June."
    assert notes.metadata == {} and notes.title == "Note: the printer is broken."  # one field line is prose


# --- HTML ---------------------------------------------------------------------------------------

def test_html_metadata_comes_from_title_and_meta_tags():
    doc = _doc("page.html")
    assert doc.title == "Rotating your API keys | Example Docs"
    assert doc.metadata["published_at"].startswith("2024-03-05T09:00")
    assert doc.metadata["updated_at"].startswith("2024-06-10T12:30")
    assert doc.metadata["author"] == ["Ana Lima"]
    assert doc.metadata["url"] == "https://docs.example.org/keys/rotate"


def test_html_navigation_scripts_and_page_chrome_are_dropped_and_the_article_kept():
    doc = _doc("page.html")
    for gone in ("Navigation link", "Pricing plans", "UA-SECRET-TRACKER", "font-family", "Search the docs",
                 "Example Docs home", "footer links", "unrelated webinars", "video.example.org"):
        assert gone not in doc.text, gone
    assert "Read the key creation guide before you start." in _sentences(doc)  # a link is its text
    assert "```bash\nexample-cli keys create --name prod-2024" in doc.text
    assert "| Team | 20 |" in doc.text  # kept for search ...
    # ... never quoted raw: read with its column names
    assert [s for s in _sentences(doc) if "Team" in s] == ["Team – Keys allowed: 20."]
    assert not [s for s in _sentences(doc) if MARKUP_LEFTOVERS.search(s) or "|" in s]


@pytest.mark.parametrize(("head", "field", "expected"), [
    ('<meta name="date" content="2023-01-02">', "published_at", "2023-01-02"),
    ('<meta name="dcterms.created" content="2022-11-30">', "published_at", "2022-11-30"),
    ('<meta property="og:updated_time" content="2024-02-03T10:00:00+00:00">', "updated_at", "2024-02-03"),
    ("", "published_at", "2021-07-08"),  # no meta: the article's <time datetime>
])
def test_html_dates_are_read_from_each_usual_place(tmp_path, head, field, expected):
    (tmp_path / "p.html").write_text(f"<html><head><title>T</title>{head}</head><body><article>"
                                     '<p>Posted <time datetime="2021-07-08">July 8</time>.</p>'
                                     "<p>The office opens at nine every weekday morning.</p></article></body></html>",
                                     encoding="utf-8")
    (doc,) = list(iter_documents([tmp_path]))
    assert isinstance(doc, Document) and doc.metadata[field].startswith(expected)


def test_html_in_a_declared_charset_is_read_and_undeclared_non_utf8_is_skipped(tmp_path):
    (tmp_path / "latin.html").write_bytes('<html><head><meta charset="iso-8859-1"><title>Café</title></head>'
                                          "<body><p>Le café ouvre à huit heures du matin.</p></body></html>"
                                          .encode("latin-1"))
    (tmp_path / "bare.html").write_bytes("<p>caf\u00e9 ouvert</p>".encode("latin-1"))
    items = {Path(i.origin).name: i for i in iter_documents([tmp_path])}
    assert isinstance(items["latin.html"], Document) and items["latin.html"].title == "Café"
    assert isinstance(items["bare.html"], Skipped) and "UTF-8" in items["bare.html"].reason


# --- PDF ----------------------------------------------------------------------------------------

def test_the_test_pdf_is_what_its_generator_writes():
    assert (CORPUS / "report.pdf").read_bytes() == pdf_fixture.build()


def test_pdf_pages_become_documents_whose_chunks_and_citations_carry_the_page():
    docs, skipped = _load("report.pdf")
    assert not skipped
    assert [d.id for d in docs] == ["report/page-1", "report/page-2", "report/page-3"]
    assert {d.title for d in docs} == {"Fleet Maintenance Report 2024"}
    assert docs[0].metadata["published_at"].startswith("2024-03-05T10:15")  # /CreationDate
    assert docs[0].metadata["updated_at"].startswith("2024-06-10")          # /ModDate
    assert docs[0].metadata["author"] == ["Jane Roe"]
    fuel = docs[1]
    chunks = _chunks(fuel)
    assert chunks and all(c.metadata["page"] == 2 for c in chunks)
    assert all("borescope" not in c.text and "cabin pressure" not in c.text for c in chunks)  # no other page's text
    book = CitationBook()
    book.cite(chunks[0], "The A320neo burned 2,290 kg of fuel per hour on the Lisbon route.")
    (citation,) = book.citations()
    assert citation.page == 2 and citation.to_dict()["page"] == 2


def test_a_pdf_without_a_title_in_its_information_takes_its_first_line(tmp_path, monkeypatch):
    monkeypatch.setitem(pdf_fixture.INFO, "Title", "Microsoft Word - draft3.docx")
    (tmp_path / "scan.pdf").write_bytes(pdf_fixture.build())
    docs = [d for d in iter_documents([tmp_path]) if isinstance(d, Document)]
    assert docs[0].title == "Fleet Maintenance Report 2024"


def test_a_word_processor_pdf_keeps_its_words_whole():
    # Page 1 of the U.S. Copyright Office's DMCA summary (1998, WordPerfect through Acrobat
    # PDFWriter; a U.S. government work). pypdf read it as "signed into law b y", "Assuranc e
    # Act", "relating to th e functions": 29 split words per 1,000 in the 18-page file (docs/PDF.md).
    (page,) = _load("dmca-summary-page1.pdf")[0]
    assert page.id == "dmca-summary-page1/page-1" and page.metadata["page"] == 1
    assert page.title == "The Digital Millennium Copyright Act of 1998"     # /Title, still read by pypdf
    assert page.metadata["author"] == ["United States Copyright Office - jmf"]
    assert "The Digital Millennium Copyright Act (DMCA) was signed into law by" in page.text
    assert "the “Computer Maintenance Competition Assurance Act,” creates an exemption" in page.text
    assert "Title IV contains six miscellaneous provisions, relating to the functions of the Copyright" in page.text
    assert not split_words(page.text)


def test_a_broken_file_is_skipped_with_a_reason_and_the_others_are_ingested():
    items = list(iter_documents([CORPUS]))
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert [Path(s.origin).name for s in skipped] == ["broken.pdf"]
    assert "cannot be read as PDF" in skipped[0].reason and "complete" in skipped[0].reason
    assert {d.id for d in items if isinstance(d, Document)} >= {"pep-9999", "page", "guide", "report/page-3"}


# --- Markdown and the dispatch table -------------------------------------------------------------

def test_markdown_links_tables_and_html_are_cleaned_and_code_kept_fenced():
    doc = _doc("guide.md")
    sentences = _sentences(doc)
    assert "Deploy with the deployment tool and check the health endpoint." in sentences
    assert "staging – Replicas: 2." in sentences  # a table row, read with its column names
    assert not [s for s in sentences if MARKUP_LEFTOVERS.search(s) or "replicas:" in s or "|" in s]
    assert "```yaml\nreplicas: 6\n" in doc.text and any(c.has_code for c in chunk_text(doc.text))
    assert "| production | 6 |" in doc.text and "|---|" not in doc.text
    cleaned = clean_markdown('Watch <iframe src="v"></iframe> this <b>now</b>. ![x](y.png) See <https://a.org>.')
    assert cleaned == "Watch this now. See https://a.org."


def test_every_line_of_clean_text_is_prose_or_markup_the_composer_knows():
    """The ingest writes only what the composer recognises: a line is a sentence, or markup it skips."""
    for doc in _load("")[0]:
        in_code = False
        for line in doc.text.splitlines():
            if line.startswith("```"):
                in_code = not in_code
            elif line and not in_code and not is_markup(line):
                assert not MARKUP_LEFTOVERS.search(line), (doc.id, line)


def test_the_dispatch_table_lists_every_format_and_refuses_others_by_name(tmp_path):
    assert {".rst", ".html", ".htm", ".pdf", ".md", ".txt", ".jsonl"} <= SUPPORTED_SUFFIXES == set(READERS)
    (tmp_path / "sheet.xlsx").write_bytes(b"PK\x03\x04")
    (skipped,) = list(iter_documents([tmp_path]))
    assert isinstance(skipped, Skipped)
    assert "unsupported file type '.xlsx'" in skipped.reason and ".pdf" in skipped.reason
