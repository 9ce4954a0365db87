"""Shared fixtures: the shipped config, a rules-only agent and an agent with NER (loaded once)."""

from __future__ import annotations

from datetime import date

import pytest

from perception.agent import PerceptionAgent
from perception.config import load_config

NOW = date(2025, 7, 10)
NEWS_SOURCES = ("TechCrunch", "The Verge", "Fortune", "The Age", "Music Business Worldwide", "Business World",
                "Cnbc | World Business News Leader", "The Independent - Life and Style",
                "The Independent - Sports", "Sporting News",
                "Business Today | Latest Stock Market And Economy News India")


@pytest.fixture(scope="session")
def cfg():
    """The shipped config/perception.yaml, validated."""
    return load_config()


@pytest.fixture(scope="session")
def rules_agent():
    """A warmed rules-only agent that knows a few news sources."""
    agent = PerceptionAgent(use_ner=False, known_sources=NEWS_SOURCES)
    agent.warm_up()
    return agent


@pytest.fixture(scope="session")
def ner_agent():
    """A warmed agent with statistical NER (rules-only if the model is missing)."""
    agent = PerceptionAgent(use_ner=True, known_sources=NEWS_SOURCES)
    agent.warm_up()
    return agent


@pytest.fixture(params=["rules", pytest.param("ner", marks=pytest.mark.model)])
def agent(request, rules_agent):
    """Both agents, so behaviour that must not depend on NER is checked with and without it.

    The NER agent is asked for only by the `ner` case (marked `model`), so the `rules` case
    stays in the fast lane without loading spaCy.
    """
    return rules_agent if request.param == "rules" else request.getfixturevalue("ner_agent")
