"""A question about something no document writes is refused, through the whole loop.

Found in issue 24: on real documentation "four in ten unanswerable ones get an on-topic sentence
passed off as the answer": asked which zstd level a backup tool's max compression mode uses, the
loop answered with a sentence on compression modes from a manual that never writes "zstd".
orchestration/unwritten.py reads the knowledge base's keyword index: a specific word of the
question that no document writes means the documents cannot state the answer.
"""

from __future__ import annotations

import datetime as dt

import pytest

from server.callers import Caller
from server.context import RequestContext
from server.loop import AskRequest

from .conftest import folder_loop

MANUAL = {
    "compression.md": "# Compression\n\n"
                      "Repositories of version 2 compress their data. The compression mode is one of auto, "
                      "off and max.\n\nThe max mode compresses best and is the slowest; auto is the default "
                      "and suits most backups.\n",
    "retention.md": "# Removing snapshots\n\n"
                    "The forget command removes snapshots according to a policy. Snapshots are retained for "
                    "30 days when the policy says --keep-within 30d.\n",
    "secret.md": "---\ntitle: Internal runbook\nacl: [ops]\n---\n\n# Internal runbook\n\n"
                 "The on-call engineer rotates the Vaultwarden credentials every quarter.\n",
}


@pytest.fixture(scope="module")
def loop(tmp_path_factory, embedder):
    return folder_loop(tmp_path_factory.mktemp("manual"), "manual", MANUAL, embedder)


def _ask(loop, query: str, groups=None) -> dict:
    """The body for `query` asked by a caller in `groups`; None: one who sees every document."""
    caller = Caller("test", "key", tuple(groups), unrestricted=False) if groups is not None else \
        Caller("operator", "operator", unrestricted=True)
    return loop.run(AskRequest(query=query, context=RequestContext.create(dt.date(2026, 1, 1), caller=caller)))


def _vocabulary(body: dict) -> list[dict]:
    return [op for op in body["operations"] if op["op"] == "vocabulary"]


def test_a_word_no_document_writes_is_refused_and_named(loop):
    body = _ask(loop, "Which zstd compression level does the max compression mode use?")
    assert body["status"] == "insufficient", body["answer"]
    assert "'zstd'" in body["answer"]
    (op,) = _vocabulary(body)  # one attempt: searching wider cannot find a word no document writes
    assert op["rejected"] == {"zstd": "no document searched that the caller may read writes it"}
    assert op["params"]["kbs"] == ["manual"]


def test_the_refusal_speaks_the_question_language_reason(loop):
    body = _ask(loop, "Which zstd compression level does the max compression mode use?")
    reasons = [i["reason"]["code"] for i in body["validation"]["issues"] if i.get("reason")]
    assert reasons == ["unwritten"]


def test_words_the_documents_write_pass_and_are_listed(loop):
    body = _ask(loop, "Which compression modes are there?")
    assert body["status"] == "answered", body["answer"]
    (op,) = _vocabulary(body)
    assert op["rejected"] == {}


def test_a_common_word_said_otherwise_is_no_reason_to_refuse(loop):
    # "kept" is general English the manual says as "retained"
    body = _ask(loop, "How long are snapshots kept?")
    assert body["status"] == "answered", body["answer"]
    assert "30 days" in body["answer"]
    assert _vocabulary(body)[0]["rejected"] == {}


def test_a_misspelt_word_is_read_as_the_word_it_misspells(loop):
    body = _ask(loop, "Which compresion modes are there?")
    assert _vocabulary(body)[0]["rejected"] == {}


def test_a_word_only_a_hidden_document_writes_is_refused_as_if_that_document_did_not_exist(loop):
    # the reply of a KB without the runbook, to a caller who may not read it: anything else would
    # tell that a hidden document writes the word (tests/reliability/test_acl_side_channel.py)
    outside = _ask(loop, "How often are the Vaultwarden credentials rotated?", groups=[])
    rejected = _vocabulary(outside)[0]["rejected"]
    assert rejected["vaultwarden"] == "no document searched that the caller may read writes it"
    assert outside["status"] == "insufficient"
    assert "quarter" not in outside["answer"]
    inside = _ask(loop, "How often are the Vaultwarden credentials rotated?", groups=["ops"])
    assert _vocabulary(inside)[0]["rejected"] == {}
    assert "every quarter" in inside["answer"]
