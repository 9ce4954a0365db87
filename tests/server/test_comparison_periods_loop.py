"""Issue 34, item 6, end to end on the demo knowledge bases: the design's own example compares the
737 MAX 8's 2023 figure, not the 737-800's undated one, and names the variants it compares."""

from __future__ import annotations

import datetime as dt

import pytest

from perception import PerceptionAgent
from server.bootstrap import build_loop
from server.context import RequestContext
from server.loop import AskRequest


@pytest.fixture(scope="module")
def loop(demo_kbs):
    perception = PerceptionAgent(use_ner=False)
    perception.warm_up()
    service = build_loop(kb_config=demo_kbs, perception=perception)
    service.warm_up()
    return service


@pytest.mark.parametrize("query", [
    "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.",
    "Compare the fuel efficiency of A320 and B737 in 2023",
], ids=["focusing-on-2023-reports", "in-2023"])
def test_the_2023_comparison_names_the_737_max_8_and_its_2023_figure(loop, query):
    body = loop.run(AskRequest(query=query, context=RequestContext.create(dt.date(2025, 7, 1))))
    assert body["perception"]["constraints"]["time"]["start"] == "2023-01-01"
    assert body["status"] == "answered"
    relation = next(c for c in body["claims"] if c["kind"] == "relation")
    assert relation["text"].startswith("The A320 (A320neo) figure (2,290 kg of fuel per block hour [")
    assert "lower than the B737 (737 MAX 8) figure (2,360 kg of fuel per block hour [" in relation["text"]
    assert body["answer"].startswith(relation["text"])
    assert "2,600" not in relation["text"]
