"""Sphinx object descriptions keep their names: a configuration reference read as written.

Found in issue 23: a settings reference (`.. py:data:: NAME`, its description, `Default: ...`,
`.. versionchanged:: X.Y`) became run-on text in which each setting's name was glued to the end
of the previous setting's description ("... See cookies. Default: None 1.0 NEXT_SETTING If ..."):
the version note's number read as a figure, and a question about one setting was refused because
its description no longer carried its name.
"""

from __future__ import annotations

from orchestration.kb.formats.rst import parse_rst

SETTINGS_REFERENCE = """\
Configuration
=============

.. py:data:: CACHE_DIR

    Where downloaded archives are kept between runs. See :ref:`caching`.

    Default: ``None``

    .. versionchanged:: 1.0
        Relative paths are resolved against the project root.

.. py:data:: MAX_WORKERS

    How many archives are fetched at once.

    Default: ``4``

    .. versionadded:: 0.9

.. confval:: retention_days
   :type: ``int``
   :default: ``35``

   Days a finished job's logs are kept.

.. envvar:: TOOL_HOME

   Overrides the home directory.

.. c:member:: uint8_t bits_per_digit

   Bits per digit.
"""


def _paragraphs(text: str) -> list[str]:
    return [block for block in text.split("\n\n") if block and not block.startswith("#")]


def test_each_setting_opens_its_own_description_and_its_default():
    paragraphs = _paragraphs(parse_rst(SETTINGS_REFERENCE).text)
    # a field: its label, then ": description" (formats/markup.py; the chunker reads one field unit)
    assert "CACHE_DIR\n: Where downloaded archives are kept between runs. See caching." in paragraphs
    assert "CACHE_DIR default: None." in paragraphs
    assert "MAX_WORKERS\n: How many archives are fetched at once." in paragraphs
    assert "MAX_WORKERS default: 4." in paragraphs
    assert "retention_days (type int, default 35)\n: Days a finished job's logs are kept." in paragraphs
    assert "TOOL_HOME\n: Overrides the home directory." in paragraphs
    assert "uint8_t bits_per_digit\n: Bits per digit." in paragraphs


def test_a_version_note_says_it_is_a_version_and_whose():
    paragraphs = _paragraphs(parse_rst(SETTINGS_REFERENCE).text)
    assert "Changed in version 1.0 (CACHE_DIR): Relative paths are resolved against the project root." in paragraphs
    assert "Added in version 0.9 (MAX_WORKERS)." in paragraphs
    assert not any(p.split()[0] in ("1.0", "0.9") for p in paragraphs)  # never a bare number opening prose


def test_no_setting_name_stands_alone_to_be_glued_to_its_neighbours():
    for paragraph in _paragraphs(parse_rst(SETTINGS_REFERENCE).text):
        assert paragraph.endswith((".", ":")), paragraph  # every block is a sentence, not a bare name


def test_a_version_note_outside_a_description_has_no_owner():
    text = parse_rst("Intro\n=====\n\nThe cache is local.\n\n.. deprecated:: 3.2\n   Use the shared cache.\n").text
    assert "Deprecated since version 3.2: Use the shared cache." in text
