"""`sightline keys`: add, list and remove API keys (stored hashed)."""

from __future__ import annotations

import argparse
import json
import sys

from core.errors import SightlineError
from core.names import check_name


def cmd_keys(args: argparse.Namespace) -> int:
    """keys add NAME --groups ... | keys list | keys remove NAME, on the API key file."""
    from ..keys import KeyEntry, hash_key, keys_path, new_key, read_keys, write_keys

    path = keys_path()
    entries = read_keys(path)
    if args.keys_command == "list":
        if args.json:
            print(json.dumps([{"name": e.name, "groups": list(e.groups)} for e in entries], indent=2))
        elif not entries:
            print(f"no API keys in {path}; create one with `sightline keys add NAME --groups G1,G2`")
        for entry in entries if not args.json else []:
            print(f"{entry.name}\t{','.join(entry.groups) or '(public documents only)'}")
        return 0
    check_name(args.name, "key name", field="name")
    if args.keys_command == "remove":
        kept = [e for e in entries if e.name != args.name]
        if len(kept) == len(entries):
            raise SightlineError(f"no key named '{args.name}' in {path}; `sightline keys list` shows the names",
                                 field="name")
        write_keys(path, kept)
        print(f"removed key '{args.name}' from {path}; running services stop accepting it within seconds")
        return 0
    if any(e.name == args.name for e in entries):
        raise SightlineError(f"a key named '{args.name}' exists in {path}; remove it first or pick another name",
                             field="name")
    key = new_key()
    write_keys(path, entries + [KeyEntry(args.name, hash_key(key), args.groups)])
    print(f"added key '{args.name}' (groups: {', '.join(args.groups) or 'none: public documents only'}) to {path}; "
          "only its sha256 is stored, so copy the key now: it is not shown again", file=sys.stderr)
    print(key)
    return 0
