"""The evidence check: an answer that rests on no evidence asks for a wider search."""

from __future__ import annotations

import pytest

from orchestration.types import Claim
from validation import ISSUE_KINDS, hints_for
from validation.checks import evidence

from .conftest import A320_2021, A320_2023, EVIDENCE, NOW, answer

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
    assert [(h.action, h.params(), h.reason) for h in hints] == [
        ("widen", {"factor": 2}, "no_evidence"), ("relax_filters", {}, "no_evidence")]


def test_an_answer_citing_evidence_passes(context):
    assert evidence.check(None, answer([NOTHING, FACT], [A320_2023]), EVIDENCE, context) == []


def test_evidence_that_never_mentions_the_questions_subjects_is_no_evidence():
    from orchestration.retrieval.scored import ScoredChunk
    from orchestration.types import Answer, Citation, Claim
    from perception import PerceptionAgent
    from validation.checks import evidence as evidence_check
    from validation.context import CheckContext

    agent = PerceptionAgent(use_ner=False)
    chunk = ScoredChunk(chunk_id="m#0", kb="manuals", text="The A320neo burns 2,290 kg of fuel per block hour.",
                        title="A320neo manual", metadata={})
    answer = Answer("The A320neo burns 2,290 kg of fuel per block hour. [1]",
                    [Claim("The A320neo burns 2,290 kg of fuel per block hour. [1]", [1])],
                    [Citation(1, "m#0", "manuals", None, "A320neo manual", None, "")])
    about_other = agent.run("What is the fuel burn of the A321XLR?", NOW)
    issues = evidence_check.check(about_other, answer, [chunk], CheckContext(NOW))
    assert [i.kind for i in issues] == ["no_evidence"] and "A321XLR" in issues[0].detail
    about_it = agent.run("What is the fuel burn of the A320neo?", NOW)
    assert evidence_check.check(about_it, answer, [chunk], CheckContext(NOW)) == []


def test_a_possessive_or_a_quoted_description_is_matched_as_a_reader_would(ner_agent, context):
    """MultiHop-RAG: "Tyreek Hill's" was 'never mentioned' by evidence naming Tyreek Hill, and a
    quoted description ('New users of sportsbooks') was required word for word."""
    from orchestration.retrieval.scored import ScoredChunk
    from orchestration.types import Claim

    chunk = ScoredChunk("nfl#0", "news", "Tyreek Hill needs 300 yards to reach 2,000 this season.", "NFL", {})
    for query in ("Will Tyreek Hill's season reach 2,000 receiving yards?",
                  "Do the articles on 'New users of sportsbooks' say Tyreek Hill reaches 2,000 yards?"):
        perception = ner_agent.run(query, "2023-12-10")
        assert {e.label for e in perception.entities} & {"PERSON", "QUOTED"}, perception.entities  # can fail
        result = answer([Claim("Tyreek Hill needs 300 yards to reach 2,000 this season. [1]", [1])], [chunk])
        assert evidence.check(perception, result, [chunk], context) == [], query
