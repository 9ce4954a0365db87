"""Fixtures shared by the whole suite: the real embedder and the demo knowledge bases.

The demo knowledge bases are built once per session into a temporary data directory with
the real ingest (real jieba, BM25, MiniLM, FAISS), so tests exercise what users run.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def embedder():
    """The default embedder, loaded once for the session."""
    from orchestration.retrieval.embedder import get_embedder

    model = get_embedder("minilm")
    model.warm_up()
    return model


@pytest.fixture(scope="session")
def demo_config(tmp_path_factory):
    """The shipped knowledge_bases.yaml with its data directory moved to a temp dir."""
    from dataclasses import replace

    from orchestration.kb.config import load_kb_config

    return replace(load_kb_config(), data_dir=tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="session")
def demo_kbs(demo_config, embedder):
    """The demo knowledge bases, built once; returns the KBConfig pointing at them."""
    from orchestration.kb.ingest import ingest

    for settings in demo_config.knowledge_bases.values():
        ingest(settings, demo_config.kb_dir(settings.name), embedder, progress=False)
    return demo_config


@pytest.fixture(scope="session")
def demo_retriever(demo_kbs, embedder):
    """A warmed-up Retriever over the demo knowledge bases."""
    from orchestration.kb.registry import open_knowledge_bases, load_credibility
    from orchestration.retrieval.search import Retriever

    retriever = Retriever(open_knowledge_bases(demo_kbs), embedder, load_credibility())
    retriever.warm_up()
    return retriever
