"""Source names and aliases from KB metadata."""

from __future__ import annotations

import pytest

from perception.sources import SourceMatcher, derive_aliases

NAMES = ["TechCrunch", "The Verge", "Fortune", "The Age", "Music Business Worldwide", "Business World",
         "Cnbc | World Business News Leader", "The Independent - Life and Style", "The Independent - Sports",
         "Live Science: The Most Interesting Articles", "Wired"]


@pytest.fixture(scope="module")
def matcher():
    return SourceMatcher(NAMES)


@pytest.mark.parametrize("name, aliases", [
    ("The Verge", ["Verge"]),
    ("The Age", []),
    ("Cnbc | World Business News Leader", ["Cnbc"]),
    ("The Independent - Sports", ["Independent - Sports", "The Independent", "Independent"]),
    ("Live Science: The Most Interesting Articles", ["Live Science"]),
])
def test_derive_aliases(name, aliases):
    assert derive_aliases(name, (" | ", " - ", ": "), 4) == aliases


@pytest.mark.parametrize("text, sources", [
    ("according to TechCrunch and The Verge", [("TechCrunch",), ("The Verge",)]),
    ("the Verge report", [("The Verge",)]),
    ("a Verge article", [("The Verge",)]),
    ("as reported by 'The Age'", [("The Age",)]),
    ("Music Business Worldwide says", [("Music Business Worldwide",)]),
    ("Business World says", [("Business World",)]),
    ("CNBC reported", [("Cnbc | World Business News Leader",)]),
    ("Does The Independent agree?", [("The Independent - Life and Style", "The Independent - Sports")]),
    ("Live Science reported", [("Live Science: The Most Interesting Articles",)]),
])
def test_names_and_aliases(matcher, text, sources):
    assert [h.sources for h in matcher.find(text)] == sources


@pytest.mark.parametrize("text", [
    "he made a fortune", "in the age of AI", "wired headphones", "on the verge of collapse", "techcrunch",
])
def test_lower_case_words_are_not_sources(matcher, text):
    assert matcher.find(text) == []


def test_config_alias():
    m = SourceMatcher(["The New York Times"], aliases={"NYT": ["The New York Times"]})
    assert [h.sources for h in m.find("the NYT piece")] == [("The New York Times",)]
    assert m.find("the NYT piece")[0].rule == "source.alias"


def test_no_names():
    assert SourceMatcher([]).find("TechCrunch") == []
    assert not SourceMatcher([])
