"""Opening every configured knowledge base (the credibility section is the router config's)."""

from __future__ import annotations

from ..retrieval.embedder import CHINESE_EMBEDDER, EMBEDDERS, check_embedder
from .config import KBConfig, KBSettings
from .knowledge_base import KnowledgeBase


def accepted_embedders(config: KBConfig, settings: KBSettings) -> tuple[str, ...]:
    """The embedder models a build of this KB may carry: the one its config names, else the ones
    an ingest picks from (the configured default, and e5 for mostly-Chinese documents)."""
    if settings.embedder is not None:
        return (EMBEDDERS[settings.embedder].name,)
    default = EMBEDDERS[check_embedder(config.embedder)].name
    return tuple(dict.fromkeys((default, EMBEDDERS[CHINESE_EMBEDDER].name)))


def open_knowledge_bases(config: KBConfig) -> dict[str, KnowledgeBase]:
    """A KnowledgeBase (not yet warmed up) for every configured name."""
    return {name: KnowledgeBase(settings, config.kb_dir(name), accepted_embedders(config, settings))
            for name, settings in config.knowledge_bases.items()}
