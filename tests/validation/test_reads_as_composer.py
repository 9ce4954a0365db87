"""Validation reads a sentence's quantities and dates as the composer does (one reader: core/reading).

Issue 23: "up 7 km-wide" was nothing to the composer and 7 km to the validator, so a claim the
composer built could be checked for a figure it never stated.
"""

from __future__ import annotations

import pytest

from orchestration.compose.sentences import Candidate, chunk_candidates
from orchestration.retrieval.scored import ScoredChunk
from validation import text as tx

SENTENCES = [
    "The impact left a crater up 7 km-wide near the coast.",
    "The LEAP-1A26 engine is rated at 120.6 kN since 2023-04-01.",
    "The A320neo burns 2,290 kg per block hour, revised March 5, 2024.",
    "2023 年，737 MAX 8 按 178 座计算，每座每小时油耗为 13.3 公斤。",
    "Support runs 24/7 for 1/2 of the fleet.",
]


def _candidate(sentence: str) -> Candidate:
    """The composer's reading of a one-sentence chunk."""
    chunk = ScoredChunk(chunk_id="d#0", kb="t", text=sentence, title="T", metadata={}, score=1.0, fused=1.0)
    (candidate,) = chunk_candidates(chunk, 0)
    return candidate


@pytest.mark.parametrize("sentence", SENTENCES)
def test_composer_and_validator_read_the_same_quantities_and_dates(sentence):
    candidate = _candidate(sentence)
    assert candidate.text == sentence
    assert [(q.value, q.unit) for q in candidate.quantities] == [(q.value, q.unit) for q in tx.quantities(sentence)]
    assert [d.value for d in candidate.dates] == tx.dates(sentence)


def test_up_7_km_wide_is_7_km_on_both_sides():
    sentence = SENTENCES[0]
    candidate = _candidate(sentence)
    assert [(q.value, q.unit) for q in candidate.quantities] == [(7.0, "km")]
    assert [(q.value, q.unit) for q in tx.quantities(sentence + " [1]")] == [(7.0, "km")]
