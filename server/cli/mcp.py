"""`sightline mcp`: Sightline's MCP tools (ask, search, list_knowledge_bases) over stdio, for a local agent.

The caller is the command's: `--groups` / `--all-groups` as `sightline ask` takes them, or the
API key in SIGHTLINE_API_KEY (looked up in the key file at start: its name and groups, as POST
/rag would resolve it), never both. A running service serves the same tools over HTTP at /mcp.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from core.errors import SightlineError, Unauthenticated

from .options import acl_groups
from .remote import API_KEY_ENV

if TYPE_CHECKING:  # imported when the command runs: `sightline --help` stays light
    from ..callers import Caller


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `mcp` subcommand and its options."""
    mcp = sub.add_parser("mcp", help="serve the MCP tools ask, search and list_knowledge_bases over stdio (an "
                                     "agent or Claude Desktop starts it); a running service serves them at /mcp")
    mcp.add_argument("--groups", type=acl_groups, default=(), metavar="G1,G2",
                     help="answer as a caller in these ACL groups (default: none, public documents only; or the "
                          f"groups of the API key in {API_KEY_ENV})")
    mcp.add_argument("--all-groups", action="store_true", dest="all_groups",
                     help="see every document, ACL ignored (operator use)")
    mcp.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    """Load the loop as the service would, then serve MCP on stdin/stdout until the client hangs up."""
    from ..asking import service_loop
    from ..context import RequestContext
    from ..logs import configure_logging
    from ..mcp.stdio import serve_stdio, stdout_to_stderr
    from ..mcp.tools import Tools
    from ..settings import load_settings

    settings = load_settings()
    configure_logging(settings.log_level, root=True)  # JSON lines on stderr; stdout is the protocol's
    caller = _caller(args, os.environ.get(API_KEY_ENV, "").strip())
    with stdout_to_stderr():
        loop = service_loop()
    serve_stdio(Tools(loop, lambda: RequestContext.create(caller=caller, endpoint="mcp"), limits=settings.limits))
    return 0


def _caller(args: argparse.Namespace, key: str) -> Caller:
    """The caller the command serves: the API key's, else the operator with `--groups`.

    Raises:
        SightlineError: both a key and --groups/--all-groups given, or a key the key file does not hold.
    """
    from ..asking import operator_caller

    if not key:
        return operator_caller(args.groups, args.all_groups)
    if args.groups or args.all_groups:
        raise SightlineError(f"{API_KEY_ENV} is set and so is --groups/--all-groups: the caller is one or the "
                             f"other; unset {API_KEY_ENV} or drop the flag", field="groups")
    from ..callers import CallerResolver
    from ..keys import KeyStore, keys_path
    from ..settings import load_settings

    keys = KeyStore(keys_path())
    keys.load()
    try:
        return CallerResolver(load_settings().access, keys).resolve({"Authorization": f"Bearer {key}"})
    except Unauthenticated as exc:
        raise SightlineError(f"{API_KEY_ENV}: {exc.message}", field=API_KEY_ENV) from None
