"""`sightline ingest`: build or update knowledge bases."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from core.errors import SightlineError
from core.names import check_name


def cmd_ingest(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from orchestration.kb.config import KBSettings, load_kb_config
    from orchestration.kb.ingest import ingest
    from orchestration.retrieval.embedder import get_embedder

    config = load_kb_config()
    embedder = get_embedder(config.embedder, config.embedder_threads)
    if args.demo:
        if args.paths or args.kb:
            raise SightlineError("--demo builds every configured knowledge base; give no PATH or --kb with it")
        jobs: list[tuple[KBSettings, list[Path] | None]] = [(settings, None)
                                                            for settings in config.knowledge_bases.values()]
    else:
        if not args.kb:
            raise SightlineError("--kb NAME is required (or --demo to build the configured knowledge bases)",
                                 field="kb")
        if not args.paths:
            raise SightlineError("give at least one PATH (a JSONL file or a folder of Markdown/text files)",
                                 field="paths")
        check_name(args.kb, "knowledge base name", field="kb")
        settings = config.knowledge_bases.get(args.kb)
        if settings is None:
            defaults = next(iter(config.knowledge_bases.values()))
            settings = replace(defaults, name=args.kb, description="", paths=())
        jobs = [(settings, [Path(p) for p in args.paths])]
    reports = []
    for settings, job_paths in jobs:
        report = ingest(settings, config.kb_dir(settings.name), embedder, paths=job_paths,
                        rebuild=args.rebuild, progress=not args.quiet and not args.json)
        reports.append(report)
        if not args.json:
            print(report.summary())
    if args.json:
        print(json.dumps([r.to_dict() for r in reports], indent=2, ensure_ascii=False))
    return 0
