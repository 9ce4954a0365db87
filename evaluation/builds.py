"""Building an evaluation set's knowledge base through the normal ingest (cached by checksum)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestration.kb.config import KBConfig
from orchestration.kb.ingest import ingest
from orchestration.retrieval.embedder import Embedder, get_embedder


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
