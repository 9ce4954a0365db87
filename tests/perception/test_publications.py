"""Publications a question cites that no knowledge base holds (perception/publications.py)."""

from __future__ import annotations

import pytest

from perception import PerceptionAgent
from perception.publications import cited_publications

KNOWN = ("The Verge", "TechCrunch", "Sporting News", "CBSSports.com", "Fortune")


@pytest.mark.parametrize("query, cited", [
    ("Based on a report by Bloomberg and a separate article by Reuters, what is the first letter?",
     ["Bloomberg", "Reuters"]),
    ("Which company, reported by The Verge and TechCrunch, has been associated with it?", ["The Verge and TechCrunch"]),
    ("Did the report on Taylor Swift published on November 9 say she toured?", []),  # topics and dates
    ("Does the Sporting News article anticipate a win for Jordan Love?", ["Sporting News"]),
    ("According to Fortune, did the jury convict him?", ["Fortune"]),
    ("What does the quality summary report?", []),
    ("Who approves invoice differences above USD 25,000?", []),
    ("How long is a Python feature release supported?", []),  # a feature release is no publication
])
def test_publication_slots(query, cited):
    assert cited_publications(query) == cited


@pytest.fixture(scope="module")
def agent():
    agent = PerceptionAgent(use_ner=False, known_sources=KNOWN)
    agent.warm_up()
    return agent


def test_only_publications_no_knowledge_base_holds_are_unknown(agent):
    """MultiHop-RAG null questions are built on outlets the corpus does not have ("a report by
    Bloomberg"); questions on outlets it has are never flagged."""
    perception = agent.run("Based on a report by Bloomberg and an article by The Verge, which company won?",
                           "2023-12-01")
    assert perception.constraints.unknown_sources == ["Bloomberg"]
    assert agent.run("Which company, reported by The Verge and TechCrunch, won?", "2023-12-01"
                     ).constraints.unknown_sources == []
    assert agent.run("Which company, reported by Bloomberg and TechCrunch, won?", "2023-12-01"
                     ).constraints.unknown_sources == ["Bloomberg"]


def test_without_known_sources_nothing_is_judged():
    agent = PerceptionAgent(use_ner=False)
    agent.warm_up()
    perception = agent.run("Based on a report by Bloomberg, which company won?", "2023-12-01")
    assert perception.constraints.unknown_sources == []
