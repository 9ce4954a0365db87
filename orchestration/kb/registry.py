"""Opening every configured knowledge base (the credibility section is the router config's)."""

from __future__ import annotations

from ..retrieval.embedder import get_embedder
from .config import KBConfig
from .knowledge_base import KnowledgeBase


def open_knowledge_bases(config: KBConfig) -> dict[str, KnowledgeBase]:
    """A KnowledgeBase (not yet warmed up) for every configured name."""
    embedder_name = get_embedder(config.embedder, config.embedder_threads).name
    return {name: KnowledgeBase(settings, config.kb_dir(name), embedder_name)
            for name, settings in config.knowledge_bases.items()}
