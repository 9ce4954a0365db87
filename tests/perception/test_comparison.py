"""Comparison sides are read once, by Perception, and the composer and the validator use them."""

import pytest

from orchestration.compose.comparison import comparison_sides as composer_sides
from perception.comparison import INFERRED, comparison_sides
from validation.checks.comparison import comparison_sides as validator_sides

from .conftest import NOW

QUERIES = [
    # (query, sides in order); each row was a disagreement or a wrong side before
    ('Compare "Project Falcon" and "Project Eagle" budgets in 2024', ["Project Falcon", "Project Eagle"]),
    ("Compare Prometheus and Graphite", ["Prometheus", "Graphite"]),
    ("Compare the fuel burn of the A320 and the B737 in 2023", ["A320", "B737"]),
    ("A320neo 和 737 MAX 8 在 2023 年的油耗对比", ["A320neo", "737 MAX 8"]),
]


@pytest.mark.model
@pytest.mark.parametrize("query, sides", QUERIES)
def test_the_composer_and_the_validator_compare_the_same_sides(ner_agent, query, sides):
    perception = ner_agent.run(query, NOW)
    assert perception.action == "compare"
    assert [e.text for e in comparison_sides(perception)] == sides
    assert [s.name for s in composer_sides(perception)] == sides
    assert [e.text for e in validator_sides(perception)] == sides


def test_a_side_perception_did_not_extract_is_read_across_the_connector(rules_agent):
    perception = rules_agent.run("E5102 vs E4027: which restart procedure is longer?", NOW)
    sides = comparison_sides(perception)
    assert [e.text for e in sides] == ["E5102", "E4027"]  # both codes: nothing to infer
    from dataclasses import replace

    only_one = replace(perception, entities=[e for e in perception.entities if e.text == "E5102"])
    inferred = comparison_sides(only_one)
    assert [(e.text, e.origin) for e in inferred] == [("E5102", "pattern"), ("E4027", INFERRED)]
    assert [s.inferred for s in composer_sides(only_one)] == [False, True]


def test_two_outlets_named_make_the_outlets_the_sides(rules_agent):
    from dataclasses import replace

    from perception.types import Entity

    base = rules_agent.run("Did TechCrunch and The Verge agree on the Apple report?", NOW)
    entities = [Entity("TechCrunch", "SOURCE", (4, 14), "rule", "TechCrunch"),
                Entity("The Verge", "SOURCE", (19, 28), "rule", "The Verge"),
                Entity("Apple", "ORG", (42, 47), "ner", "Apple")]
    sides = comparison_sides(replace(base, entities=entities))
    assert [e.text for e in sides] == ["TechCrunch", "The Verge"]
    assert all(s.source for s in composer_sides(replace(base, entities=entities)))
