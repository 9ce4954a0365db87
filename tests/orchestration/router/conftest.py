"""Shared fixtures: a rules-only Perception agent, the shipped router configs, a config builder."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from orchestration.paths import REPO_ROOT
from orchestration.router import Router, load_router_config, parse_router_config
from perception import PerceptionAgent

NOW = date(2025, 7, 10)
DEMO_KBS = ("manuals", "policies", "reports")
MULTIHOP_DIR = REPO_ROOT.parent / "shared" / "eval" / "multihop_rag"


@pytest.fixture(scope="session")
def agent() -> PerceptionAgent:
    """A warmed rules-only agent (real lexicons and patterns, no spaCy)."""
    agent = PerceptionAgent(use_ner=False)
    agent.warm_up()
    return agent


@pytest.fixture(scope="session")
def perceive(agent):
    """query -> Perception at NOW."""
    return lambda query, now=NOW: agent.run(query, now)


@pytest.fixture(scope="session")
def demo_router() -> Router:
    """The shipped config/router.yaml over the demo knowledge bases."""
    return Router(load_router_config(REPO_ROOT / "config" / "router.yaml", known_kbs=DEMO_KBS))


@pytest.fixture(scope="session")
def build():
    """(rules, known_kbs=demo, **sections) -> a Router over that config."""
    def make(rules: list[dict], known_kbs=DEMO_KBS, **sections) -> Router:
        return Router(parse_router_config({"rules": rules, **sections}, "test.yaml", known_kbs))
    return make


@pytest.fixture(scope="session")
def multihop_sources() -> list[str]:
    """The distinct `source` values of the MultiHop-RAG corpus."""
    corpus = MULTIHOP_DIR / "corpus.jsonl"
    if not corpus.exists():
        pytest.skip(f"{corpus} is not available")
    with corpus.open(encoding="utf-8") as handle:
        return sorted({json.loads(line)["metadata"]["source"] for line in handle})


@pytest.fixture(scope="session")
def multihop_queries() -> dict[str, dict]:
    """The MultiHop-RAG dev queries by id."""
    path = MULTIHOP_DIR / "queries_dev.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not available")
    with path.open(encoding="utf-8") as handle:
        return {q["_id"]: q for q in map(json.loads, handle)}


@pytest.fixture(scope="session")
def news_agent(multihop_sources) -> PerceptionAgent:
    """A rules-only agent that knows the news sources of the corpus."""
    agent = PerceptionAgent(use_ner=False, known_sources=multihop_sources)
    agent.warm_up()
    return agent


@pytest.fixture(scope="session")
def multihop_router() -> Router:
    """The shipped config/router.multihop.yaml."""
    return Router(load_router_config(Path(REPO_ROOT / "config" / "router.multihop.yaml"), known_kbs=["multihop"]))
