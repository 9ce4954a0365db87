"""Building an evaluation set's knowledge base through the normal ingest (cached by checksum), and the loop over it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestration.kb.config import KBConfig
from orchestration.kb.ingest import ingest
from orchestration.retrieval.embedder import Embedder, get_embedder

if TYPE_CHECKING:
    from server.loop import AnswerLoop


def build_eval_kb(kb_config: KBConfig, name: str, paths: Sequence[Path] | None = None, progress: bool = True,
                  embedder: Embedder | None = None) -> dict[str, Any]:
    """Ingest KB `name` of the eval config (from `paths`, default its configured ones); the report's figures.

    Returns:
        {"documents", "chunks", "skipped", "build_seconds", "reused_build"} of the ingest.
    """
    report = ingest(kb_config.get(name), kb_config.kb_dir(name), embedder or get_embedder(kb_config.embedder),
                    paths=list(paths) if paths is not None else None, progress=progress)
    if progress:
        print(report.summary().splitlines()[0], file=sys.stderr)
    return {"documents": report.documents, "chunks": report.chunks, "skipped": len(report.skipped),
            "build_seconds": round(report.seconds, 1), "reused_build": report.unchanged}


def eval_loop(kb_config: KBConfig, name: str, use_ner: bool = True) -> AnswerLoop:
    """A warmed-up AnswerLoop over eval KB `name` alone: the generic eval router
    (config/router.eval.yaml), Perception with NER as the service runs it (`use_ner=False`:
    rules only)."""
    from orchestration.paths import config_dir
    from orchestration.router.config import load_router_config
    from perception import PerceptionAgent
    from server.bootstrap import build_loop

    router = load_router_config(config_dir() / "router.eval.yaml", known_kbs=[name])
    loop = build_loop(kb_config=kb_config.only(name), router_config=router, perception=PerceptionAgent(use_ner=use_ner))
    loop.warm_up()
    return loop
