"""`sightline kb list` and `sightline kb remove NAME`: the configured knowledge bases and their builds."""

from __future__ import annotations

import argparse
import json


def cmd_kb(args: argparse.Namespace) -> int:
    """Run the `kb` subcommand chosen."""
    if args.kb_command == "remove":
        from .kb_remove import cmd_kb_remove

        return cmd_kb_remove(args)
    return _list(args)


def _list(args: argparse.Namespace) -> int:
    """Print every configured knowledge base and what its current build holds."""
    from orchestration.kb.catalog import describe_built, format_table
    from orchestration.kb.config import load_kb_config

    records = describe_built(load_kb_config())
    if args.json:
        print(json.dumps(records, indent=2, ensure_ascii=False))
    else:
        print(format_table(records))
    return 0
