"""`sightline kb remove NAME`: take a knowledge base out of knowledge_bases.yaml and delete its builds.

The config entry goes first (validated, written atomically: orchestration/kb/unregister.py),
then the data directory (orchestration/kb/layout.py: `remove_all`). A running service is never
broken by it: the other knowledge bases are untouched, and a build the service still holds
open is kept (its files stay whole) until the service lets go of it; the service serves the
removed KB from that build until it restarts, and `kb remove NAME` run again then deletes what
is left. It asks before deleting anything unless given `--yes`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.errors import RequestError, UnknownKnowledgeBase
from core.names import check_name


def _leftovers(kb_root: Path) -> list[str]:
    """Names with a data directory under `kb_root` (what a removal may still have to delete)."""
    return sorted(p.name for p in kb_root.iterdir() if p.is_dir()) if kb_root.is_dir() else []


def _confirmed(name: str, what: str) -> bool:
    """Whether the person at the terminal agrees; RequestError when there is no terminal to ask."""
    if not sys.stdin.isatty():
        raise RequestError(f"removing '{name}' deletes {what}; add --yes to confirm (there is no terminal to ask)",
                           field="yes")
    answer = input(f"remove knowledge base '{name}': {what}? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


def cmd_kb_remove(args: argparse.Namespace) -> int:
    """Remove one knowledge base; exit status 1 when refused or not confirmed."""
    from orchestration.kb import layout
    from orchestration.kb.config import load_kb_config
    from orchestration.kb.unregister import plan_removal

    name = check_name(args.name, "knowledge base name", field="name")
    config = load_kb_config()
    kb_dir = config.kb_dir(name)
    configured = name in config.knowledge_bases
    if not configured and not kb_dir.is_dir():
        left = [n for n in _leftovers(kb_dir.parent) if n not in config.knowledge_bases]
        raise UnknownKnowledgeBase(f"unknown knowledge base '{name}'; known: "
                                   f"{', '.join(sorted(config.knowledge_bases)) or 'none'}"
                                   + (f" (and data left by removed ones: {', '.join(left)})" if left else ""),
                                   field="name")
    removal = plan_removal(config, name) if configured else None
    what = " and ".join(part for part in (
        f"its entry in {removal.config_path}" if removal else "",
        f"its builds under {kb_dir}" if kb_dir.exists() else "") if part)
    if not args.yes and not _confirmed(name, what):
        print(f"sightline kb remove: '{name}' not removed", file=sys.stderr)
        return 1
    if removal is not None:
        removal.write()
        print(f"removed '{name}' from {removal.config_path} (serving {', '.join(removal.remaining)})")
    removed, kept = layout.remove_all(kb_dir) if kb_dir.exists() else ([], [])
    print(f"deleted {len(removed)} build(s) of '{name}' under {kb_dir}")
    if kept:
        print(f"kept {len(kept)} build(s) a running service still holds open ({', '.join(b.name for b in kept)}): "
              f"it serves '{name}' from them until it restarts; after that, run `sightline kb remove {name} --yes` "
              f"again to delete them")
    return 0
