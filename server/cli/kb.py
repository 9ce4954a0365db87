"""`sightline kb list`: every configured knowledge base and what its current build holds."""

from __future__ import annotations

import argparse
import json


def cmd_kb(args: argparse.Namespace) -> int:
    from orchestration.kb.catalog import describe_built, format_table
    from orchestration.kb.config import load_kb_config

    records = describe_built(load_kb_config())
    if args.json:
        print(json.dumps(records, indent=2, ensure_ascii=False))
    else:
        print(format_table(records))
    return 0
