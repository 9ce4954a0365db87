"""Answer units are read once, at ingest, and stored with their chunk (issue 23, item 1).

Found in issue 23: a bulleted list of tiers ("Tier 2: 6 hours per period", "Tier 3: 8 hours per
period") arrived as one run-on sentence with its neighbours, so a question about one tier could
not be answered from its own item; glossary lines ("SLA - service level agreement") never became
candidates. Each format here is a real-looking snippet read by its reader, chunked, stored and
read back; the units are what the composer quotes.
"""

from __future__ import annotations

import sqlite3

from orchestration.compose.sentences import chunk_candidates
from orchestration.kb.chunking import chunk_text, read_units
from orchestration.kb.formats.html import parse_html
from orchestration.kb.formats.markdown import clean_markdown
from orchestration.kb.formats.rst import parse_rst
from orchestration.kb.store import ChunkStore, StoredChunk, write_store
from orchestration.kb.units import Unit, units_from_json, units_to_json
from orchestration.retrieval.scored import ScoredChunk

from .test_sphinx_objects import SETTINGS_REFERENCE

HANDBOOK_PAGE = """\
# Leave policy

## Overtime tiers

Overtime is paid in tiers. The tiers are:

- Tier 1: 4 hours per period
- Tier 2: 6 hours per period
- Tier 3: 8 hours per period

## Glossary

SLA - service level agreement

PTO - paid time off, earned monthly
"""


def _units(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(type, text, path) of every unit of every chunk of a clean text."""
    return [(u.type, u.text_in(c.text), u.path) for c in chunk_text(text) for u in c.units]


def _candidates(text: str) -> list:
    out = []
    for chunk in chunk_text(text):
        scored = ScoredChunk(chunk_id=f"d#{chunk.position}", kb="kb", text=chunk.text, title="Handbook",
                             metadata={"section": chunk.section}, units=chunk.units)
        out.extend(chunk_candidates(scored, 0))
    return out


def test_each_list_item_is_its_own_unit_under_its_headings_with_the_sentence_that_introduces_it():
    chunk = chunk_text(clean_markdown(HANDBOOK_PAGE))[0]
    items = [u for u in chunk.units if u.type == "list_item"]
    assert [u.text_in(chunk.text) for u in items] == [
        "Tier 1: 4 hours per period", "Tier 2: 6 hours per period", "Tier 3: 8 hours per period"]
    assert {u.path for u in items} == {("Leave policy", "Overtime tiers")}
    assert {chunk.units[u.lead].text_in(chunk.text) for u in items if u.lead is not None} == {"The tiers are:"}
    tier3 = next(c for c in _candidates(clean_markdown(HANDBOOK_PAGE)) if "Tier 3" in c.text)
    assert tier3.text == "Tier 3: 8 hours per period"  # before: glued to Tier 2 and the glossary
    assert tier3.unit == "list_item" and tier3.lead == "The tiers are:"


def test_glossary_lines_are_definitions_and_headings_are_paths_not_quotes():
    units = _units(clean_markdown(HANDBOOK_PAGE))
    assert ("definition", "SLA - service level agreement", ("Leave policy", "Glossary")) in units
    assert ("definition", "PTO - paid time off, earned monthly", ("Leave policy", "Glossary")) in units
    assert ("heading", "Glossary", ("Leave policy",)) in units  # a heading's path ends above it
    quoted = [c.text for c in _candidates(clean_markdown(HANDBOOK_PAGE))]
    assert "SLA - service level agreement" in quoted
    assert "Glossary" not in quoted and "Overtime tiers" not in quoted


def test_a_sentence_leading_into_something_is_no_definition():
    units = _units("The options are: fast, slow and off.\n\nNote that this is not a term: it is a sentence.")
    assert [t for t, _text, _path in units] == ["sentence", "sentence"]


def test_a_sphinx_configuration_reference_keeps_each_setting_in_its_own_units():
    parsed = parse_rst(SETTINGS_REFERENCE)
    units = _units(parsed.text)
    texts = [text for _type, text, _path in units]
    assert "CACHE_DIR: Where downloaded archives are kept between runs." in texts
    assert "MAX_WORKERS default: 4." in texts
    assert "Changed in version 1.0 (CACHE_DIR): Relative paths are resolved against the project root." in texts
    assert all(path == ("Configuration",) for _type, _text, path in units if _type != "heading")
    assert not any("None 1.0" in t or "MAX_WORKERS How" in t for t in texts)  # the finding's run-on text


def test_a_sphinx_setting_is_a_field_with_its_name_and_its_version_notes_as_metadata():
    chunk = chunk_text(parse_rst(SETTINGS_REFERENCE).text)[0]
    fields = {u.name: u for u in chunk.units if u.type == "field"}
    assert set(fields) == {"CACHE_DIR", "MAX_WORKERS", "retention_days", "TOOL_HOME", "bits_per_digit"}
    assert fields["CACHE_DIR"].text_in(chunk.text) == "CACHE_DIR: Where downloaded archives are kept between runs."
    assert fields["CACHE_DIR"].notes == ("Changed in version 1.0",)
    assert fields["MAX_WORKERS"].notes == ("Added in version 0.9",)
    assert fields["retention_days"].notes == () and fields["TOOL_HOME"].notes == ()
    notes = [u.text_in(chunk.text) for u in chunk.units if u.type == "version_note"]
    assert notes == ["Changed in version 1.0 (CACHE_DIR): Relative paths are resolved against the project root.",
                     "Added in version 0.9 (MAX_WORKERS)."]
    assert units_from_json(units_to_json(chunk.units)) == chunk.units  # the metadata is stored


# A Markdown settings reference as MkDocs and Hugo sites write one (Poetry's configuration page):
# a heading that is the setting's name in a code span, "**Key**: value" lines, then its description.
MARKDOWN_SETTINGS = """\
## Available settings

### `virtualenvs.path`

**Type**: `string`

**Default**: `{cache-dir}/virtualenvs`

**Environment Variable**: `POETRY_VIRTUALENVS_PATH`

Directory where virtual environments will be created.

It is rarely useful at the local level.

### `virtualenvs.prompt`

**Type**: `string`

*Introduced in 1.2.0*

Format string defining the prompt to be displayed when the virtual environment is activated.

### `installer.max-workers`

**Type**: `int`

**Default**: `number_of_cores + 4`

### Troubleshooting

Note: settings are read once per command.
"""


def test_a_markdown_setting_is_a_field_with_its_details_in_its_label_and_its_version_as_a_note():
    # before, "Default: {cache-dir}/virtualenvs" was a definition of its own and the description a
    # sentence without the setting's name: "Where does Poetry create virtual environments by
    # default?" could quote the description but never the default
    chunk = chunk_text(clean_markdown(MARKDOWN_SETTINGS))[0]
    fields = {u.name: u.text_in(chunk.text) for u in chunk.units if u.type == "field"}
    assert fields["virtualenvs.path"] == (
        "virtualenvs.path (type string, default {cache-dir}/virtualenvs, environment variable "
        "POETRY_VIRTUALENVS_PATH): Directory where virtual environments will be created.")
    assert fields["virtualenvs.prompt"].startswith("virtualenvs.prompt (type string): Format string")
    prompt = next(u for u in chunk.units if u.name == "virtualenvs.prompt")
    assert prompt.notes == ("Added in version 1.2.0",)  # metadata, never quoted as a figure
    texts = [u.text_in(chunk.text) for u in chunk.units]
    assert "It is rarely useful at the local level." in texts  # later paragraphs stay prose
    # a setting without a description still says its name with its default
    assert "installer.max-workers (type int, default number_of_cores + 4)." in texts
    assert "Note: settings are read once per command." in texts  # a "Key: value" outside a setting
    assert not any(t.startswith(("Type:", "Default:")) for t in texts)


def test_a_built_html_settings_reference_reads_as_its_markdown_source_does():
    # the same page as a static-site generator renders it (permalink anchors included)
    page = """<html><body><main>
    <h2>Available settings</h2>
    <h3 id="virtualenvspath"><code>virtualenvs.path</code><a class="headerlink" href="#virtualenvspath">¶</a></h3>
    <p><strong>Type</strong>: <code>string</code></p>
    <p><strong>Default</strong>: <code>{cache-dir}/virtualenvs</code></p>
    <p><strong>Environment Variable</strong>: <code>POETRY_VIRTUALENVS_PATH</code></p>
    <p>Directory where virtual environments will be created.</p>
    <p>It is rarely useful at the local level.</p>
    <h3 id="virtualenvsprompt"><code>virtualenvs.prompt</code></h3>
    <p><strong>Type</strong>: <code>string</code></p>
    <p><em>Introduced in 1.2.0</em></p>
    <p>Format string defining the prompt to be displayed when the virtual environment is activated.</p>
    <h3 id="installermax-workers"><code>installer.max-workers</code></h3>
    <p><strong>Type</strong>: <code>int</code></p>
    <p><strong>Default</strong>: <code>number_of_cores + 4</code></p>
    <h3>Troubleshooting</h3>
    <p>Note: settings are read once per command.</p>
    </main></body></html>"""
    from_html = _units(parse_html(page).text)
    from_markdown = _units(clean_markdown(MARKDOWN_SETTINGS))
    assert from_html == from_markdown
    assert ("field", "virtualenvs.path (type string, default {cache-dir}/virtualenvs, environment variable "
            "POETRY_VIRTUALENVS_PATH): Directory where virtual environments will be created.",
            ("Available settings", "virtualenvs.path")) in from_html


def test_a_class_is_a_field_too_and_its_note_is_its_own_in_rest_and_in_built_html():
    rest = parse_rst("API\n===\n\n.. py:class:: Bar(x, y)\n\n   The bar of the API.\n\n"
                     "   .. versionadded:: 2.1\n\n   .. py:method:: run(n)\n\n      Runs it n times.\n")
    html = parse_html('<main><h1>API</h1><dl class="py class"><dt class="sig"><em class="property">class</em> '
                      '<span class="descname">Bar</span>(x, y)</dt><dd><p>The bar of the API.</p>'
                      '<div class="versionadded"><p><span class="versionmodified added">New in version 2.1.</span>'
                      '</p></div></dd></dl></main>')
    for parsed in (rest, html):
        chunk = chunk_text(parsed.text)[0]
        fields = {u.name: u.notes for u in chunk.units if u.type == "field"}
        assert fields["Bar"] in (("Added in version 2.1",), ("New in version 2.1",)), fields
    assert {u.name for u in chunk_text(rest.text)[0].units if u.type == "field"} == {"Bar", "run"}


def test_a_version_note_is_never_quoted_so_its_number_never_reads_as_a_figure():
    # the finding: "Default: None 1.0 NEXT_SETTING": the version's number was a figure in the prose
    quoted = [c.text for c in _candidates(parse_rst(SETTINGS_REFERENCE).text)]
    assert "MAX_WORKERS default: 4." in quoted
    assert "CACHE_DIR: Where downloaded archives are kept between runs." in quoted
    assert not any("version" in text for text in quoted), quoted


def test_a_sphinx_built_html_reference_reads_as_the_rest_source_does():
    page = ('<html><body><main><h1>Configuration<a class="headerlink" href="#c">¶</a></h1>'
            '<dl class="py data"><dt class="sig sig-object py" id="CACHE_DIR"><span class="sig-name descname">'
            '<span class="pre">CACHE_DIR</span></span><a class="headerlink" href="#CACHE_DIR">¶</a></dt>'
            '<dd><p>Where downloaded archives are kept between runs.</p><p>Default: <code>None</code></p>'
            '<div class="versionchanged"><p><span class="versionmodified changed">Changed in version 1.0: </span>'
            'Relative paths are resolved against the project root.</p></div></dd></dl>'
            '<dl><dt>SLA</dt><dd>service level agreement</dd></dl></main></body></html>')
    chunk = chunk_text(parse_html(page).text)[0]
    units = [(u.type, u.text_in(chunk.text), u.name, u.notes) for u in chunk.units]
    assert units == [
        ("heading", "Configuration", None, ()),  # the permalink's ¶ is gone
        ("field", "CACHE_DIR: Where downloaded archives are kept between runs.", "CACHE_DIR",
         ("Changed in version 1.0",)),
        ("definition", "CACHE_DIR default: None.", None, ()),  # whose default, as in the reST source
        ("version_note", "Changed in version 1.0 (CACHE_DIR): Relative paths are resolved against the project root.",
         None, ()),
        ("definition", "SLA: service level agreement", None, ()),  # a plain dl stays a definition
    ]


def test_an_html_list_and_definition_list_are_items_and_definitions():
    page = ("<html><body><main><h1>Support</h1><p>Response times by plan:</p><ul><li>Basic: next business day"
            "</li><li>Premium: within 4 hours</li></ul><dl><dt>SLA</dt><dd>service level agreement</dd></dl>"
            "</main></body></html>")
    units = _units(parse_html(page).text)
    assert ("list_item", "Premium: within 4 hours", ("Support",)) in units
    assert ("definition", "SLA: service level agreement", ("Support",)) in units


def test_a_rst_bullet_list_is_items():
    parsed = parse_rst("Limits\n======\n\nThe limits are:\n\n* at most 10 jobs per user\n* at most 2 GB per job\n")
    units = _units(parsed.text)
    assert ("list_item", "at most 2 GB per job", ("Limits",)) in units


def test_units_are_stored_with_their_chunk_and_read_back(tmp_path):
    chunk = chunk_text(clean_markdown(HANDBOOK_PAGE))[0]
    assert units_from_json(units_to_json(chunk.units)) == chunk.units
    stored = StoredChunk(row=0, chunk_id="d#0", doc_id="d", title="Handbook", section=chunk.section, position=0,
                         text=chunk.text, units=chunk.units)
    write_store(tmp_path / "chunks.sqlite", [stored])
    assert ChunkStore(tmp_path / "chunks.sqlite").get_rows([0])[0].units == chunk.units


def test_a_store_written_before_units_were_kept_is_read_from_its_text(tmp_path):
    path = tmp_path / "chunks.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE chunks (row INTEGER PRIMARY KEY, chunk_id TEXT, doc_id TEXT, title TEXT, "
                       "section TEXT, position INTEGER, text TEXT, metadata TEXT, entities TEXT, text_hash TEXT);")
    with conn:
        conn.execute("INSERT INTO chunks VALUES (0,'d#0','d','T','',0,?,'{}','[]','h')",
                     ("Backups run every night at two. They are kept for 35 days.",))
    conn.close()
    old = ChunkStore(path).get_rows([0])[0]
    assert old.units is None
    sentences = ["Backups run every night at two.", "They are kept for 35 days."]
    assert [u.text_in(old.text) for u in read_units(old.text)] == sentences
    scored = ScoredChunk(chunk_id="d#0", kb="kb", text=old.text, title="T", metadata={})
    assert [c.text for c in chunk_candidates(scored, 0)] == sentences


def test_a_unit_is_an_exact_piece_of_its_chunk():
    for chunk in chunk_text(clean_markdown(HANDBOOK_PAGE) + "\n\n" + parse_rst(SETTINGS_REFERENCE).text, 60, 10):
        for unit in chunk.units:
            assert isinstance(unit, Unit) and 0 <= unit.start < unit.end <= len(chunk.text)
            assert unit.text_in(chunk.text).strip() == unit.text_in(chunk.text)


def test_a_pdf_page_s_bullets_are_list_items_and_a_wrapped_item_reads_whole():
    from orchestration.kb.formats.pdf import _page_text

    raw = ("Overtime is paid in tiers. The tiers are:\n• Tier 1: 4 hours per\nperiod\n• Tier 2: 6 hours per period\n"
           "  • Tier 3: 8 hours per period\n\nOvertime is approved by the team lead.")
    units = _units(_page_text(raw))
    assert [(t, text) for t, text, _path in units if t == "list_item"] == [
        ("list_item", "Tier 1: 4 hours per period"), ("list_item", "Tier 2: 6 hours per period"),
        ("list_item", "Tier 3: 8 hours per period")]
    assert ("sentence", "Overtime is approved by the team lead.", ()) in units


def test_a_colon_inside_a_quotation_makes_no_definition():
    # PEP 427's FAQ: the colon belongs to the quoted header line, so the paragraph is a sentence
    # (before, a definition of the term 'A wheel with "Root-Is-Purelib', which a "What is a
    # wheel?" question then ranked above "A wheel is a ZIP-format archive ...")
    units = _units('A wheel with "Root-Is-Purelib: false" with all its files in purelib is equivalent to a '
                   'wheel with "Root-Is-Purelib: true".\n\nSee (section 3: layout) for more.\n\n'
                   'Root-Is-Purelib: true when the archive is pure Python')
    assert [t for t, _text, _path in units] == ["sentence", "sentence", "definition"]
