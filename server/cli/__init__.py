"""The `sightline` command line: ingest, kb, perceive, ask, batch, mcp, keys, serve, proxy, eval, bench.

One module per subcommand; this one builds the parser and runs the chosen command. Every
subcommand validates its arguments and reports a SightlineError as one line on stderr with
exit status 1 (2 for usage errors), never a traceback. Each command imports what it needs
when it runs, so `sightline --help` and a usage error load no model.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from core.errors import SightlineError

from . import batch, mcp
from .ask import cmd_ask, cmd_perceive
from .evaluate import cmd_bench, cmd_eval
from .ingest import cmd_ingest
from .kb import cmd_kb
from .keys import cmd_keys
from .options import acl_groups, iso_date, positive_int
from .proxy import cmd_proxy
from .serve import cmd_serve


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sightline", description="Explainable retrieval-augmented answering.")
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="build or update a knowledge base")
    # every suffix of orchestration/kb/documents.py's READERS (tests/server/test_help_and_docs.py checks)
    ingest.add_argument("paths", nargs="*", help="files, or folders read recursively: JSONL (.jsonl, .ndjson: one "
                                                 "document a line), Markdown (.md, .markdown, .mdx), text (.txt, "
                                                 ".text), reStructuredText (.rst, .rest), HTML (.html, .htm), PDF "
                                                 "(.pdf: one document a page); other files are skipped and listed")
    ingest.add_argument("--kb", help="knowledge base name: configured ones keep their settings; a new one is "
                                     "added to knowledge_bases.yaml with its defaults once it is built")
    ingest.add_argument("--rebuild", action="store_true", help="rebuild even if unchanged; re-embed everything")
    ingest.add_argument("--demo", action="store_true", help="build every knowledge base in knowledge_bases.yaml")
    ingest.add_argument("--json", action="store_true", help="print the report as JSON")
    ingest.add_argument("--quiet", action="store_true", help="no progress bars")
    ingest.add_argument("--workers", metavar="N", help="processes that embed, one thread each (default: the cores "
                                                       "this process may use); 1 embeds in this process")
    ingest.add_argument("--device", default="cpu", metavar="cpu|cuda",
                        help="cuda: embed on the GPU in fp16 (the torch extra on a GPU machine; KBs with "
                             "`embedder: minilm-torch`); default cpu")
    ingest.set_defaults(func=cmd_ingest)

    kb = sub.add_parser("kb", help="list the knowledge bases and what their builds hold; remove one")
    kb_sub = kb.add_subparsers(dest="kb_command", required=True)
    kb_list = kb_sub.add_parser("list", help="documents, chunks, build time, embedder, dated share, fields found")
    kb_list.add_argument("--json", action="store_true")
    kb_remove = kb_sub.add_parser("remove", help="remove a knowledge base from knowledge_bases.yaml and delete its "
                                                 "builds (a running service keeps serving the others)")
    kb_remove.add_argument("name", help="the knowledge base to remove (`sightline kb list` shows them)")
    kb_remove.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    kb.set_defaults(func=cmd_kb)

    perceive = sub.add_parser("perceive", help="show what Perception extracts from a query")
    perceive.add_argument("query")
    perceive.add_argument("--now", type=iso_date, help="resolve relative times against this date (YYYY-MM-DD)")
    perceive.add_argument("--json", action="store_true")
    perceive.set_defaults(func=cmd_perceive)

    ask = sub.add_parser("ask", help="answer a question from the knowledge bases")
    ask.add_argument("query")
    ask.add_argument("--kb", action="append", help="search only this knowledge base (repeatable)")
    ask.add_argument("--now", type=iso_date, help="resolve relative times and ages against this date")
    ask.add_argument("--max-retries", type=int, dest="max_retries", help="extra attempts after validation issues")
    ask.add_argument("--top-k", type=positive_int, dest="top_k", help="results per retrieval task")
    ask.add_argument("--json", action="store_true", help="print exactly the body POST /rag returns")
    ask.add_argument("--brief", action="store_true", help="answer and sources only, no trace")
    ask.add_argument("--no-ner", action="store_true", help="rules-only perception (faster start)")
    ask.add_argument("--server", metavar="URL", help="ask a running service (POST URL/rag) instead of this "
                                                     "process; env SIGHTLINE_URL, API key in SIGHTLINE_API_KEY")
    ask.add_argument("--groups", type=acl_groups, default=(), metavar="G1,G2",
                     help="answer as a caller in these ACL groups (default: none, public documents only). Local "
                          "use is the operator's: whoever can run this command can read the index files, so the "
                          "groups are taken as given; HTTP callers get theirs from their API key")
    ask.add_argument("--all-groups", action="store_true", dest="all_groups",
                     help="see every document, ACL ignored (operator use)")
    ask.set_defaults(func=cmd_ask)

    batch.add_parser(sub)
    mcp.add_parser(sub)

    keys = sub.add_parser("keys", help="manage API keys (stored hashed in config/api_keys.yaml or $SIGHTLINE_API_KEYS)")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    add = keys_sub.add_parser("add", help="create a random key; prints it once, as the last line of stdout")
    add.add_argument("name", help="the key's name (letters, digits, '-', '_'); shown in logs and responses")
    add.add_argument("--groups", type=acl_groups, default=(), metavar="G1,G2",
                     help="ACL groups whose documents the key may see (default: none, public documents only)")
    listing = keys_sub.add_parser("list", help="show key names and groups (never the keys)")
    listing.add_argument("--json", action="store_true")
    remove = keys_sub.add_parser("remove", help="revoke a key by name")
    remove.add_argument("name")
    keys.set_defaults(func=cmd_keys)

    serve = sub.add_parser("serve", help="start the HTTP service (gunicorn with gunicorn.conf.py)")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1; env SIGHTLINE_HOST)")
    serve.add_argument("--port", type=positive_int, help="port (default 8000; env SIGHTLINE_PORT)")
    serve.add_argument("--workers", type=positive_int,
                       help="worker processes (default one per core, at most 4; env SIGHTLINE_WORKERS)")
    serve.set_defaults(func=cmd_serve)

    proxy = sub.add_parser("proxy", help="run HAProxy in front of `sightline serve`: whole requests only, "
                                         "a slow client gets 408 and never holds a worker (docs/SERVICE.md)")
    proxy.add_argument("--listen", default="127.0.0.1:8080", help="host:port for clients (default 127.0.0.1:8080)")
    proxy.add_argument("--upstream", help="host:port of `sightline serve` (default: its host and port)")
    proxy.add_argument("--request-timeout", type=positive_int,
                       help="seconds for a whole request, headers and body (default limits.body_timeout_seconds)")
    proxy.add_argument("--print-env", action="store_true",
                       help="print the SIGHTLINE_PROXY_* variables for running haproxy yourself, and exit")
    proxy.set_defaults(func=cmd_proxy)

    evaluate = sub.add_parser("eval", help="evaluate on public benchmark sets")
    evaluate.add_argument("sets", nargs="+", choices=["scifact", "multihop", "rgb", "hotpotqa", "peps", "squad",
                                                         "docs"])
    evaluate.add_argument("--data", type=Path, help="folder holding the sets (default ../shared/eval)")
    evaluate.add_argument("--queries", type=Path, help="another query file in the set's format")
    evaluate.add_argument("--limit", type=positive_int, help="only the first N queries (squad: answerable "
                                                             "and unanswerable alternating)")
    evaluate.add_argument("--split", choices=["train", "dev", "test"], default="dev",
                          help="squad: the articles to evaluate on (default dev; evaluation/answers/splits.py)")
    evaluate.add_argument("--backend", choices=["local", "milvus"], default="local",
                          help="the search backend of the retrieval sets scifact, multihop and hotpotqa "
                               "(milvus: milvus-lite, builds under var/eval/milvus; docs/SCALE.md)")
    evaluate.add_argument("--out", type=Path, help="write report.json / report.md here")
    evaluate.add_argument("--json", action="store_true", help="one JSON object on stdout")
    evaluate.set_defaults(func=cmd_eval)

    bench = sub.add_parser("bench", help="benchmarks, side by side with peers: `bench peers --set multihop` races "
                                         "Sightline's hybrid against txtai and Haystack on an eval set; other "
                                         "arguments run the synthetic index benchmark (`bench --help`)")
    bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit status."""
    parser = build_parser()
    # `bench` hands every argument to the benchmark (argparse's REMAINDER alone refuses a
    # first argument that looks like an option: `sightline bench --sizes 2000`)
    args, extra = parser.parse_known_args(argv)
    if extra and getattr(args, "command", None) != "bench":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if extra:
        args.bench_args = extra + list(args.bench_args)
    try:
        return args.func(args)
    except SightlineError as exc:
        print(f"sightline {args.command}: error: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"sightline {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`sightline ask ... | head`): stop quietly, as other commands do;
        # stdout goes to devnull so the interpreter's final flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141

