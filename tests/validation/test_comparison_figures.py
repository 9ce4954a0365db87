"""Issue 34, item 6: the comparison check flags a side whose figure is of another period than the
question asks (`other_period`) or of another variant than the answer names (`other_variant`)."""

from __future__ import annotations

import pytest

from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Claim
from validation import hints_for
from validation.checks import comparison

from .conftest import A320_2021, COMPARISON_2023, EVIDENCE, answer

IN_2023 = "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports."
NO_WINDOW = "Compare the fuel efficiency of A320 and B737"
SOURCE = "Aurora Air Fleet Performance Office"


def relation(a: str, va: str, b: str, vb: str, values: dict, rel: str = "lower") -> Claim:
    """A relation claim as the extractive composer writes it."""
    word = {"lower": "lower than", "higher": "higher than"}[rel]
    text = f"The {a} figure ({va}, {SOURCE}) is {word} the {b} figure ({vb}, {SOURCE})."
    return Claim(text, sorted({v["n"] for v in values.values()}), numbers=[va, vb], kind="relation",
                 values=values, relation=rel)


def kg_h(a: float, b: float, na: int = 1, nb: int = 1) -> dict:
    return {"A320": {"value": a, "unit": "kg/h", "n": na}, "B737": {"value": b, "unit": "kg/h", "n": nb}}


def found(issues) -> list[tuple[str, str | None]]:
    return [(i.kind, i.entity) for i in issues]


def test_the_undated_737_800_figure_given_as_the_b737_s_is_another_variant(perceive, context):
    # The answer before the fix: 2,600 is the 737-800's, while the report compares the 737 MAX 8.
    claim = relation("A320", "2,290 kg of fuel per block hour [1]", "B737", "2,600 kg of fuel per block hour [1]",
                     kg_h(2290, 2600))
    issues = comparison.check(perceive(IN_2023), answer([claim], [COMPARISON_2023]), EVIDENCE, context)
    assert found(issues) == [("other_variant", "A320"), ("other_variant", "B737")]
    b737 = issues[1]
    assert b737.claim == 0 and b737.chunk_id == COMPARISON_2023.chunk_id
    assert b737.detail == ("claim 1 gives 2600 kg/h as the B737 figure, but the evidence states it for the "
                           "737-800, a variant the claim does not name")
    assert hints_for(issues, perceive(IN_2023), EVIDENCE, context, [claim]) == []


def test_a_relation_naming_the_variants_it_compares_is_accepted(perceive, context):
    claim = relation("A320 (A320neo)", "2,290 kg of fuel per block hour [1]",
                     "B737 (737 MAX 8)", "2,360 kg of fuel per block hour [1]", kg_h(2290, 2360))
    assert comparison.check(perceive(IN_2023), answer([claim], [COMPARISON_2023]), EVIDENCE, context) == []


def test_a_relation_naming_another_variant_than_its_figure_s_is_flagged(perceive, context):
    claim = relation("A320 (A320neo)", "2,290 kg of fuel per block hour [1]",
                     "B737 (737 MAX 8)", "2,600 kg of fuel per block hour [1]", kg_h(2290, 2600))
    issues = comparison.check(perceive(IN_2023), answer([claim], [COMPARISON_2023]), EVIDENCE, context)
    assert found(issues) == [("other_variant", "B737")] and "737-800" in issues[0].detail


def test_a_figure_from_the_2021_revision_is_of_another_period_than_2023(perceive, context):
    claim = relation("A320 (A320neo)", "2,350 kg per block hour [1]",
                     "B737 (737 MAX 8)", "2,360 kg of fuel per block hour [2]", kg_h(2350, 2360, 1, 2))
    result = answer([claim], [A320_2021, COMPARISON_2023])
    issues = comparison.check(perceive(IN_2023), result, EVIDENCE, context)
    assert found(issues) == [("other_period", "A320")]
    assert issues[0].chunk_id == A320_2021.chunk_id
    assert issues[0].detail == ("claim 1 gives A320's figure 2350 kg/h, which the evidence states for 2021, "
                                "but the question asks about 2023 (2023-01-01 to 2023-12-31)")
    # without a time window in the question, the same figure is no finding
    assert comparison.check(perceive(NO_WINDOW), result, EVIDENCE, context) == []


@pytest.mark.parametrize("query, flagged", [
    ("Compare the battery life of the K7 and the M9 in 2024", [("other_period", "K7")]),
    ("Compare the battery life of the K7 and the M9 in 2022", []),
], ids=["2024-asked", "2022-asked"])
def test_a_phone_s_2022_battery_figure_is_of_another_period_than_2024(perceive, context, query, flagged):
    k7 = ScoredChunk(chunk_id="k7#0", kb="test", title="K7 battery notes", metadata={"source": "K7 team"},
                     text="In 2022, the K7 ran 17 hours on one battery charge.")
    m9 = ScoredChunk(chunk_id="m9#0", kb="test", title="M9 battery notes", metadata={"source": "M9 team"},
                     text="The M9 ran 18 hours on one battery charge.")
    values = {"K7": {"value": 17.0, "unit": "h", "n": 1}, "M9": {"value": 18.0, "unit": "h", "n": 2}}
    claim = Claim("The K7 figure (17 hours [1], K7 team) is lower than the M9 figure (18 hours [2], M9 team).",
                  [1, 2], kind="relation", values=values, relation="lower")
    issues = comparison.check(perceive(query), answer([claim], [k7, m9]), [k7, m9], context)
    assert found(issues) == flagged
