"""Issue 34, item 6: a compared figure comes from the period the question asks and the answer names
its variant.

A side's figure whose unit writes a year in the question's window beats one dated only by a
heading, which beats an undated one; a figure dated outside the window comes last. The relation
names the variant the chosen unit gives the figure for ("B737 (737 MAX 8)").
"""

from __future__ import annotations

import datetime as dt

import pytest

from orchestration.compose.extractive import ExtractiveComposer
from validation import CheckContext
from validation.checks import comparison

NOW = dt.date(2025, 7, 1)
DEMO_QUERIES = ["Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.",
                "Compare the fuel efficiency of A320 and B737 in 2023"]

# Two phones, each with a 2022 and a 2024 battery figure and an undated one.
PHONES = [
    ("k7", "K7 battery notes",
     "The battery life of the K7 is 19 hours. In 2022, the K7 ran 17 hours on one battery charge. "
     "In 2024, the K7 XL ran 21 hours on one battery charge."),
    ("m9", "M9 battery notes",
     "The battery life of the M9 is 16 hours. In 2022, the M9 ran 18 hours on one battery charge. "
     "In 2024, the M9 SE ran 20 hours on one battery charge."),
]
# Two cars: an older undated figure and a dated one; the other car dated 2019 and undated.
CARS = [
    ("c30", "C30 owner guide",
     "The C30 uses 6.8 litres of fuel per 100 km. In 2024, the C30 GT uses 5.9 litres of fuel per 100 km on the "
     "combined cycle."),
    ("d40", "D40 owner guide",
     "In 2019, the D40 used 7.1 litres of fuel per 100 km on the combined cycle. The D40 uses 6.2 litres of fuel "
     "per 100 km."),
]


@pytest.fixture(scope="module")
def ask(perceive_at):
    """ask(query, evidence) -> (perception, answer) from the real perception and composer."""
    c = ExtractiveComposer()
    c.warm_up()

    def run(query, evidence):
        perception = perceive_at(query)
        return perception, c.run(perception, evidence)

    return run


@pytest.fixture(scope="module")
def perceive_at():
    from perception import PerceptionAgent

    agent = PerceptionAgent(use_ner=False)
    agent.warm_up()
    return lambda query: agent.run(query, NOW)


def relation_of(answer):
    [relation] = [c for c in answer.claims if c.kind == "relation"]
    return relation


def documents(synthetic, docs):
    return [synthetic(text, doc_id=doc_id, title=title, source=f"{title} team", score=1.0 - i / 10)
            for i, (doc_id, title, text) in enumerate(docs)]


@pytest.mark.parametrize("query", DEMO_QUERIES, ids=["focusing-on-2023-reports", "in-2023"])
def test_the_2023_report_compares_the_737_max_8_not_the_undated_737_800(ask, evidence, query):
    perception, answer = ask(query, evidence("manuals-fuel-efficiency-comparison-2023",
                                             "manuals-b737max8-perf-2023", "manuals-a320neo-perf-2023"))
    assert perception.constraints.time.text == "2023"
    relation = relation_of(answer)
    assert relation.text.startswith("The A320 (A320neo) figure (2,290 kg of fuel per block hour [1], ")
    assert "is lower than the B737 (737 MAX 8) figure (2,360 kg of fuel per block hour [1], " in relation.text
    assert "2,600" not in relation.text
    assert relation.values["B737"]["value"] == 2360


@pytest.mark.parametrize("year, expected", [
    ("2024", ("The K7 (K7 XL) figure (21 hours", "is higher than the M9 (M9 SE) figure (20 hours")),
    ("2022", ("The K7 figure (17 hours", "is lower than the M9 figure (18 hours")),
])
def test_each_phone_s_figure_comes_from_the_asked_year(ask, synthetic, year, expected):
    _, answer = ask(f"Compare the battery life of the K7 and the M9 in {year}", documents(synthetic, PHONES))
    relation = relation_of(answer)
    assert all(part in relation.text for part in expected), relation.text
    assert "19 hours" not in relation.text and "16 hours" not in relation.text  # the undated figures lose


def test_a_dated_figure_beats_an_undated_one_and_one_dated_outside_the_window_loses(ask, synthetic):
    _, answer = ask("Compare the fuel consumption of the C30 and the D40 in 2024", documents(synthetic, CARS))
    relation = relation_of(answer)
    assert "The C30 (C30 GT) figure (5.9 litres" in relation.text  # 2024, not the undated 6.8
    assert "is lower than the D40 figure (6.2 litres" in relation.text  # undated, not 2019's 7.1


@pytest.mark.parametrize("query, docs", [
    (DEMO_QUERIES[0], None),
    ("Compare the battery life of the K7 and the M9 in 2024", PHONES),
    ("Compare the fuel consumption of the C30 and the D40 in 2024", CARS),
], ids=["demo", "phones", "cars"])
def test_the_comparison_check_accepts_the_composed_relation(ask, evidence, synthetic, query, docs):
    chunks = documents(synthetic, docs) if docs else evidence("manuals-fuel-efficiency-comparison-2023")
    perception, answer = ask(query, chunks)
    assert comparison.check(perception, answer, chunks, CheckContext(now=NOW)) == []
