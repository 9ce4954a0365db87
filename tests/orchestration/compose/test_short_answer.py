"""A value question's short answer: the asked-for value as the lead unit writes it (issue 35, item 3)."""

from __future__ import annotations

import pytest

from orchestration.compose.extractive import ExtractiveComposer


@pytest.mark.parametrize("ranker", ["lexical", "learned"])
@pytest.mark.parametrize(("question", "unit", "value"), [
    ("How long are snapshots kept?", "Snapshots are kept for 30 days unless a policy says otherwise.", "30 days"),
    ("How long does the client wait for a reply by default?", "By default the client waits five seconds for a reply.",
     "five seconds"),
    ("How much does the premium plan cost per seat?", "The premium plan costs $1,200 per seat and year.", "$1,200"),
    ("When was version 4.2.0 of the engine released?", "Version 4.2.0 of the engine was released on 2 October 2023.",
     "2 October 2023"),
    ("Which version added the --json flag?", "The --json flag was added in version 2.1 of the tool.", "2.1"),
    ("How many retries does the uploader make?", "The uploader makes 3 retries before it gives up.", "3 retries"),
    ("What average chunk size does the chunker aim for?", "The chunker aims for an average chunk size of 1 MiB.",
     "1 MiB"),
    ("How many elements can the upload tuple have?", "The upload tuple can have between 2 and 3 elements.",
     "between 2 and 3 elements"),
])
def test_a_value_question_gets_the_value_first_cited_as_the_lead(perceive, synthetic, ranker, question, unit, value):
    evidence = [synthetic(unit, doc_id="manual"), synthetic("The tool is written in Go and ships as one binary.",
                                                            doc_id="about", position=1, score=0.5)]
    answer = ExtractiveComposer(ranker=ranker).run(perceive(question), evidence)
    assert answer.short_answer is not None, answer.text
    assert answer.short_answer.text == value and value in answer.claims[0].text
    assert answer.short_answer.citation == answer.claims[0].citations[0]
    assert answer.to_dict()["short_answer"] == {"text": value, "citation": answer.claims[0].citations[0]}


@pytest.mark.parametrize(("question", "unit"), [
    ("What does the --json flag do?", "The --json flag prints every result as one JSON object per line."),
    ("Who maintains the engine?", "The engine is maintained by the platform team since 2021."),
    ("How do I reset my password?", "Open the settings page and choose Reset password."),
])
def test_a_question_that_asks_for_no_value_has_no_short_answer(perceive, synthetic, question, unit):
    answer = ExtractiveComposer().run(perceive(question), [synthetic(unit)])
    assert answer.claims and answer.short_answer is None


def test_a_number_inside_a_formula_or_code_is_no_value_of_its_own(perceive, synthetic):
    answer = ExtractiveComposer().run(perceive("What is the default number of installer workers?"),
                                      [synthetic("The default number of installer workers is `number_of_cores + 4`.")])
    assert answer.claims and answer.short_answer is None


def test_a_number_the_question_writes_is_never_the_answer(perceive, synthetic):
    # "PEP 8" and "2019" are the question's own numbers: the lead states no other value
    answer = ExtractiveComposer().run(perceive("When was PEP 8 revised in 2019?"),
                                      [synthetic("PEP 8 was revised in 2019 to allow longer lines.")])
    assert answer.short_answer is None


def test_a_refusal_has_no_short_answer(perceive, synthetic):
    answer = ExtractiveComposer().run(perceive("How long are snapshots kept?"),
                                      [synthetic("The tool is written in Go and ships as one binary.")])
    assert answer.short_answer is None
