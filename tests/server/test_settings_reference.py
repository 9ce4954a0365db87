"""A Sphinx configuration reference through the whole loop: each setting answered from its own
units, never from a version note's number (issue 23).

Found in issue 23: a settings reference (`.. py:data:: NAME`, its description, `Default: ...`,
`.. versionchanged:: X.Y`) became run-on text; the version note's number read as a figure, and a
question about one setting was refused because its description no longer carried its name.
"""

from __future__ import annotations

import datetime as dt

import pytest

from server.context import RequestContext
from server.loop import AskRequest
from tests.orchestration.kb.test_sphinx_objects import SETTINGS_REFERENCE

from .conftest import folder_loop


@pytest.fixture(scope="module")
def loop(tmp_path_factory, embedder):
    return folder_loop(tmp_path_factory.mktemp("settings"), "tool", {"configuration.rst": SETTINGS_REFERENCE},
                       embedder)


def _ask(loop, query: str) -> dict:
    return loop.run(AskRequest(query=query, context=RequestContext.create(dt.date(2025, 7, 10))))


@pytest.mark.parametrize("query, stated", [
    ("What is the default of MAX_WORKERS?", "MAX_WORKERS default: 4."),
    ("What is the default value of CACHE_DIR?", "CACHE_DIR default: None."),
])
def test_a_setting_s_default_is_answered_from_its_own_unit_not_a_version_number(loop, query, stated):
    body = _ask(loop, query)
    assert body["status"] == "answered", body["answer"]
    assert stated in [s.strip() for s in body["answer"].split("[1]")[:2]], body["answer"]  # the lead or the next
    assert "0.9" not in body["answer"] and "version 1.0" not in body["answer"]  # version notes are not quoted
    assert body["citations"][0]["path"] == ["Configuration"]


@pytest.mark.parametrize("query, asked, others", [
    ("What is the default value of CACHE_DIR?", "CACHE_DIR", ("MAX_WORKERS", "retention_days", "TOOL_HOME")),
    ("What is MAX_WORKERS?", "MAX_WORKERS", ("CACHE_DIR", "retention_days")),
])
def test_a_question_about_one_setting_quotes_no_other_setting(loop, query, asked, others):
    """Issue 24: answers led or went on with "a sentence about another option of the same command";
    a reference lists its settings side by side, and the one asked about is the answer."""
    body = _ask(loop, query)
    assert body["status"] == "answered" and asked in body["answer"], body["answer"]
    assert not any(other in body["answer"] for other in others), body["answer"]
    compose = next(op for op in body["operations"] if op["stage"] == "compose")
    why = [reason for reason in compose["rejected"].values() if "another documented name" in reason]
    assert why, compose["rejected"]  # the trace says which units were left out, and why


def test_a_cited_setting_names_itself_and_its_version_notes(loop):
    body = _ask(loop, "What does CACHE_DIR do?")
    assert body["answer"].startswith("CACHE_DIR: Where downloaded archives are kept between runs."), body["answer"]
    first = body["citations"][0]
    assert (first["unit"], first["name"], first["version_notes"]) == ("field", "CACHE_DIR", ["Changed in version 1.0"])
