"""`sightline ingest`: build or update knowledge bases; a new name is added to knowledge_bases.yaml.

Every input left out is named with its reason, a failed ingest too. With `--json`, stdout is
always one JSON document: the list of reports, or `{"error": {...}, "reports": [...]}` (the
reports of the knowledge bases built before the failure, then the failed one's when it has
one) with exit status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.errors import NoUsableDocuments, SightlineError
from core.names import check_name


def cmd_ingest(args: argparse.Namespace) -> int:
    """Run the ingest; a SightlineError leaves as it came, after its JSON (--json) or its skipped inputs."""
    reports: list[dict] = []
    try:
        return _ingest(args, reports)
    except SightlineError as exc:
        failed = exc.report if isinstance(exc, NoUsableDocuments) else None
        if args.json:
            print(json.dumps({"error": exc.to_dict(), "reports": reports + ([failed] if failed else [])},
                             indent=2, ensure_ascii=False))
        elif failed:
            print(f"skipped {len(failed['skipped'])} input(s):", file=sys.stderr)
            for skipped in failed["skipped"]:
                print(f"  - {skipped['origin']}: {skipped['reason']}", file=sys.stderr)
        raise


def _ingest(args: argparse.Namespace, done: list[dict]) -> int:
    """Build each knowledge base asked for; `done` gets each report as JSON once it is built."""
    from orchestration.kb.config import KBSettings, load_kb_config
    from orchestration.kb.embed_pool import parse_workers
    from orchestration.kb.ingest import ingest
    from orchestration.kb.register import NewEntry, plan_new_entry
    from orchestration.paths import config_dir
    from orchestration.retrieval.embedder import CUDA, check_device, get_embedder, require_cuda

    workers = parse_workers(args.workers)
    if check_device(args.device) == CUDA:
        require_cuda()  # before any document is read
    config = load_kb_config()
    new_entry: NewEntry | None = None
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
            raise SightlineError("give at least one PATH (a file or a folder of JSONL, Markdown, text, "
                                 "reStructuredText, HTML or PDF files; see `sightline ingest --help`)",
                                 field="paths")
        check_name(args.kb, "knowledge base name", field="kb")
        given = [Path(p) for p in args.paths]
        missing = [str(p) for p in given if not p.exists()]
        if missing:
            raise SightlineError(f"no such file or folder: {', '.join(missing)}", field="paths")
        settings = config.knowledge_bases.get(args.kb)
        if settings is None:
            new_entry = plan_new_entry(config.source or config_dir() / "knowledge_bases.yaml", args.kb, given,
                                       command=f"sightline ingest {' '.join(args.paths)} --kb {args.kb}")
            settings = new_entry.settings
        jobs = [(settings, given)]
    for settings, job_paths in jobs:
        report = ingest(settings, config.kb_dir(settings.name), embedder, paths=job_paths,
                        rebuild=args.rebuild, progress=not args.quiet and not args.json, workers=workers,
                        device=args.device)
        done.append(report.to_dict())
        if new_entry is not None:
            new_entry.write()
            print(f"added knowledge base '{settings.name}' to {new_entry.config_path} (this file's defaults, "
                  f"written out there); ask it with `sightline ask --kb {settings.name} \"...\"`", file=sys.stderr)
        if not args.json:
            print(report.summary())
    if args.json:
        print(json.dumps(done, indent=2, ensure_ascii=False))
    return 0
