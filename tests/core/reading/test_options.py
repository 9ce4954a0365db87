"""Options and setting keys as a question or a document writes them (core/reading/identifiers.py)."""

import pytest

from core.reading.identifiers import names_option, options_in


@pytest.mark.parametrize("text, options", [
    ("How long does restic wait between attempts when --retry-lock is set?", ("--retry-lock",)),
    ("What is the default value of Poetry's installer.max-workers setting?", ("installer.max-workers",)),
    ("When I pass both --with and --without to poetry install, which one wins?", ("--with", "--without")),
    ("Where is Poetry's config.toml file located on macOS?", ("config.toml",)),
    ("What is, e.g., the default of Python 3.12?", ()),  # an abbreviation, a version: no option
    ("Who won the U.S. Open in 2019?", ()),
    ("Is a well-known value used?", ()),  # a hyphenated word is no option
])
def test_options_a_question_writes(text, options):
    assert options_in(text) == options


@pytest.mark.parametrize("option, text, named", [
    ("--max-unused", "prune --max-unused=5% keeps some unused data", True),
    ("--max-unused", "use ``--max-unused`` to limit it", True),
    ("--max-unused", "the --max-unused-size option", False),  # another option
    ("tool.poetry", "[tool.poetry]\nname = 'x'", True),
    ("tool.poetry", "the tool.poetry.dependencies table", False),  # a longer key
    ("installer.max-workers", "Set INSTALLER.MAX-WORKERS to 4.", True),
])
def test_a_source_names_an_option_only_whole(option, text, named):
    assert names_option(option, text) is named
