"""Opening every configured knowledge base and the retriever over them."""

from __future__ import annotations

from pathlib import Path

import yaml

from core.errors import ConfigError

from .. import paths
from ..retrieval.credibility import CredibilityParams
from ..retrieval.embedder import get_embedder
from ..retrieval.search import Retriever
from .config import KBConfig, load_kb_config
from .knowledge_base import KnowledgeBase


def open_knowledge_bases(config: KBConfig) -> dict[str, KnowledgeBase]:
    """A KnowledgeBase (not yet warmed up) for every configured name."""
    embedder_name = get_embedder(config.embedder, config.embedder_threads).name
    return {name: KnowledgeBase(settings, config.kb_dir(name), embedder_name)
            for name, settings in config.knowledge_bases.items()}


def load_credibility(path: Path | None = None) -> CredibilityParams:
    """The `credibility` section of config/router.yaml (defaults when absent)."""
    path = path or paths.config_dir() / "router.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError:
        return CredibilityParams()
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})", field=str(path)) from exc
    section = data.get("credibility") or {}
    try:
        return CredibilityParams(**section)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: credibility: {exc}", field="credibility") from exc


def build_retriever(config: KBConfig | None = None, credibility_path: Path | None = None) -> Retriever:
    """A retriever over every configured knowledge base, with the configured embedder."""
    config = config or load_kb_config()
    return Retriever(open_knowledge_bases(config), get_embedder(config.embedder, config.embedder_threads),
                     load_credibility(credibility_path))
