"""Documentation read as its rendered page shows it (issue 34, item 5: Sphinx and mdBook sources).

Found in issue 34 on real documentation sets: Sphinx roles kept their source syntax in quoted
sentences (`.SessionMixin.permanent` with its leading dot in 49 places, bare `(/blueprints)`
targets); an mdBook chapter whose first heading is `##` was titled by its file name ("ch03 03 how
functions work"); and a footnote reference read as text glued to its word ("hash tables^siphash").

The fixtures are small pages in the shape those projects write (tests/data/formats/sessions.rst,
a Flask-docs-like reST page; tests/data/formats/ch08-03-hash-maps.md, a Rust-book-like chapter),
read by the real loader and chunker; each test asserts the unit texts or the title a user sees.
"""

from __future__ import annotations

from pathlib import Path

from orchestration.kb.chunking import chunk_text
from orchestration.kb.documents import Document, iter_documents
from orchestration.kb.formats.markdown import parse_markdown
from orchestration.kb.formats.rst import rst_to_text

CORPUS = Path(__file__).resolve().parents[2] / "data" / "formats"


def _doc(name: str) -> Document:
    (doc,) = iter_documents([CORPUS / name])
    assert isinstance(doc, Document), doc
    return doc


def _units(text: str) -> list[str]:
    """The text of every answer unit of a clean text, in order."""
    return [unit.text_in(chunk.text) for chunk in chunk_text(text) for unit in chunk.units]


# --- Sphinx roles -----------------------------------------------------------------------------------

def test_a_python_role_shows_its_name_without_the_search_dot_and_only_its_last_part_under_a_tilde():
    units = _units(_doc("sessions.rst").text)
    assert ("Unless told otherwise the application stores it in a signed cookie, written by "
            "SecureCookieSessionInterface.") in units  # before: flask.sessions.SecureCookieSessionInterface
    assert ("Set SessionMixin.permanent to keep the session after the browser closes (see blueprints); "
            "how long it lasts is set by PERMANENT_SESSION_LIFETIME.") in units  # before: .SessionMixin / /blueprints
    assert ("The session is opened by open_session before the view runs, and flask.session is only a "
            "proxy to it.") in units  # before: .SessionInterface.open_session


def test_a_doc_or_ref_role_shows_its_link_text_or_the_pages_name_never_its_path_or_inventory():
    units = _units(_doc("sessions.rst").text)
    assert "The testing guide shows how to read the session in a test." in units
    assert "A signed cookie is tamper-proof, not encrypted; tutorial walks through it." in units
    assert not [u for u in units if "/blueprints" in u or "itsdangerous:" in u or "tutorial/index" in u]
    text, _title = rst_to_text("See :doc:`packaging:specifications/pyproject-toml` and :ref:`pep8-naming`.")
    assert text == "See pyproject-toml and pep8-naming."


def test_a_literal_role_keeps_its_text_as_written_a_file_its_dot_and_a_sample_loses_its_braces():
    units = _units(_doc("sessions.rst").text)
    assert ("Keep the .env file that holds the key out of version control, and read the configuration "
            "chapter before writing SECRET_KEY = value into it.") in units  # before: SECRET_KEY = {value}
    assert rst_to_text("Run :command:`ls ~/.config` on :file:`~/.bashrc`.")[0] == "Run ls ~/.config on ~/.bashrc."


# --- an mdBook chapter ------------------------------------------------------------------------------

def test_a_chapter_whose_first_heading_is_level_two_is_titled_by_it_not_by_its_file_name(tmp_path):
    assert _doc("ch08-03-hash-maps.md").title == "Keeping Scores in a Hash Map"  # before: "ch08 03 hash maps"
    titled = tmp_path / "ch01-00-getting-started.md"
    titled.write_text("---\ntitle: Getting Started\n---\n## Installation\n\nInstall it.\n", encoding="utf-8")
    (doc,) = iter_documents([titled])
    assert isinstance(doc, Document) and doc.title == "Getting Started"  # front matter wins, as before
    assert parse_markdown("### Detail\n\nText.\n\n## Overview\n\nMore.\n")[1] == "Overview"  # the highest level
    assert parse_markdown("```\n# a comment\n```\n\nJust text.\n")[1] is None  # no heading: the file name


def test_a_page_that_opens_with_prose_is_not_titled_by_its_first_section():
    """An MkDocs page (httpx's advanced/ssl.md) opens with prose and has `###` sections: its title is
    in the site's nav, and its first section ("Enabling and disabling verification") is not it."""
    page = "HTTPX verifies the host's certificate.\n\n### Enabling and disabling verification\n\nBy default...\n"
    assert parse_markdown(page)[1] is None  # the loader then titles it by its file name
    assert parse_markdown("Intro.\n\n## Usage\n\n# The Tool\n")[1] == "The Tool"  # a `#` heading anywhere


def test_a_footnote_mark_leaves_its_sentence_and_its_definition_is_a_unit_of_its_own():
    units = _units(_doc("ch08-03-hash-maps.md").text)
    assert ("The default hasher is SipHash, chosen because it holds up against denial-of-service attacks "
            "on hash tables.") in units  # before: "hash tables^siphash."
    assert ("Faster hashers exist, and a map can be built with another one when speed matters more than "
            "that protection.") in units  # before: "protection [^hasher]."
    assert "https://en.wikipedia.org/wiki/SipHash" in units  # before: swallowed as a link reference definition
    assert "Crates on crates.io offer hashers that trade this protection for speed." in units  # was "[^hasher]: ..."
    assert "A footnote mark in code stays code: map[^key]." in units
    assert not [u for u in units if "^siphash" in u or "[^hasher]" in u]
