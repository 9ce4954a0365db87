"""The evidence check: an answer that rests on no evidence asks for a wider search."""

from __future__ import annotations

import pytest

from orchestration.types import Claim
from validation import ISSUE_KINDS, hints_for
from validation.checks import evidence

from .conftest import A320_2021, A320_2023, EVIDENCE, answer

NOTHING = Claim("No document in the knowledge bases covers the A321XLR range.", [], kind="notice")
FACT = Claim("The A320neo burns 2,290 kg/h [1].", [1])


@pytest.mark.parametrize("claims, cited, chunks", [
    ([NOTHING], [], []),  # honest abstention over empty evidence
    ([NOTHING], [], EVIDENCE),  # evidence found, none used
    ([], [], EVIDENCE),  # empty answer
    ([Claim("The A321XLR flies 8,700 km.", [])], [], EVIDENCE),  # stated without a source
    ([FACT], [A320_2021], [A320_2023]),  # cites only chunks outside the evidence
    ([FACT], [A320_2023], []),  # no evidence at all
], ids=["abstention", "unused-evidence", "empty-answer", "uncited-claim", "cited-outside", "empty-evidence"])
def test_no_evidence(claims, cited, chunks, perceive, context):
    perception = perceive("What is the A321XLR range?")
    issues = evidence.check(perception, answer(claims, cited), chunks, context)
    assert [(i.check, i.kind) for i in issues] == [("evidence", "no_evidence")]
    assert issues[0].kind in ISSUE_KINDS["evidence"] and issues[0].claim is None
    hints = hints_for(issues, perception, chunks, context)
    assert [(h.action, h.params, h.reason) for h in hints] == [
        ("widen", {"factor": 2}, "no_evidence"), ("relax_filters", {}, "no_evidence")]


def test_an_answer_citing_evidence_passes(context):
    assert evidence.check(None, answer([NOTHING, FACT], [A320_2023]), EVIDENCE, context) == []
