"""The lexical ranking weighs each question term by its rarity among the candidate units."""

from __future__ import annotations

from orchestration.compose.scoring import QueryTerms


def _units(*texts: str) -> list[frozenset[str]]:
    return [frozenset(t.split()) for t in texts]


def test_a_term_every_unit_writes_counts_little_and_one_none_writes_counts_in_full():
    terms = QueryTerms({"cipher": 1.0, "restic": 1.0, "aes": 2.0})
    weighed = terms.by_rarity(_units("restic data", "restic cipher", "restic repositori", "restic pack"))
    assert weighed.weights["aes"] == 2.0  # no unit writes it: its whole weight
    assert 0 < weighed.weights["restic"] < 0.1 < weighed.weights["cipher"] < 1.0, weighed.weights
    # a unit sharing only a common term with the question still scores above 0
    assert weighed.matched(frozenset({"restic"})) > 0


def test_a_code_counts_where_a_longer_code_is_written_as_matching_does():
    terms = QueryTerms({"a320": 1.0})
    assert terms.by_rarity(_units("a320neo fuel", "a320neo seat", "a320neo range")).weights["a320"] < 0.1


def test_one_unit_or_none_leaves_the_weights_as_they_are():
    terms = QueryTerms({"cipher": 1.0})
    assert terms.by_rarity(_units("cipher")).weights == {"cipher": 1.0}
    assert terms.by_rarity([]).weights == {"cipher": 1.0}
