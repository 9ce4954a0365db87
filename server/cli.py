"""The `sightline` command line: ingest, perceive, ask, serve, eval, bench.

Every subcommand validates its arguments and reports a SightlineError as one line on stderr
with exit status 1 (2 for usage errors), never a traceback.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from core.errors import SightlineError
from core.names import check_name


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO date: {text!r} (use YYYY-MM-DD)") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _groups(text: str) -> tuple[str, ...]:
    from core.names import parse_groups

    try:
        return parse_groups(text, "--groups")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# --- ingest ---------------------------------------------------------------------------

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


# --- perceive -------------------------------------------------------------------------

def cmd_perceive(args: argparse.Namespace) -> int:
    from perception import PerceptionAgent

    if not args.query.strip():
        raise SightlineError("the query is empty; pass the question in quotes", field="query")
    perception = PerceptionAgent().run(args.query, args.now)
    if args.json:
        print(json.dumps(perception.to_dict(), ensure_ascii=False, indent=2))
    else:
        data = perception.to_dict()
        print(f"language: {data['language']}\naction:   {data['action']}")
        print("entities: " + ", ".join(f"{e['text']} ({e['label']}, {e['origin']})" for e in data["entities"]))
        for key, value in data["constraints"].items():
            print(f"{key}: {value}")
        print("keywords: " + ", ".join(data["keywords"]))
    return 0


# --- ask ------------------------------------------------------------------------------

def cmd_ask(args: argparse.Namespace) -> int:
    from .bootstrap import build_loop
    from .http.schemas import parse_ask_request
    from .render import render_answer

    body = {"query": args.query, "trace": "full" if (args.json or not args.brief) else "summary"}
    if args.kb:
        body["kb"] = args.kb
    if args.now:
        body["now"] = args.now.isoformat()
    if args.max_retries is not None:
        body["max_retries"] = args.max_retries
    if args.top_k is not None:
        body["top_k"] = args.top_k
    request = parse_ask_request(body)
    request.acl_groups = None if args.all_groups else args.groups
    request.caller = {"name": "operator", "kind": "operator",
                      "groups": ["*"] if args.all_groups else list(args.groups)}
    loop = build_loop(use_ner=not args.no_ner)
    loop.warm_up()
    response = loop.run(request)
    if args.json:
        print(json.dumps(response, ensure_ascii=False, indent=2))
    else:
        print(render_answer(response, show_trace=not args.brief))
    return 0


# --- keys -----------------------------------------------------------------------------

def cmd_keys(args: argparse.Namespace) -> int:
    """keys add NAME --groups ... | keys list | keys remove NAME, on the API key file."""
    from .keys import KeyEntry, hash_key, keys_path, new_key, read_keys, write_keys

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


# --- serve ----------------------------------------------------------------------------

def cmd_serve(args: argparse.Namespace) -> int:
    """Exec gunicorn with gunicorn.conf.py; flags win over env, env over config/service.yaml."""
    import os

    from orchestration import paths

    from .settings import MULTIPROC_ENV, load_settings, prepare_metrics_dir

    settings = load_settings(host=args.host, port=args.port, workers=args.workers)
    env = dict(os.environ, SIGHTLINE_HOST=settings.host, SIGHTLINE_PORT=str(settings.port),
               SIGHTLINE_WORKERS=str(settings.worker_count), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env.setdefault(MULTIPROC_ENV, str(settings.metrics_path))
    # gunicorn's on_starting wipes it again; either way a restart starts at zero
    prepare_metrics_dir(env[MULTIPROC_ENV])
    conf = paths.REPO_ROOT / "gunicorn.conf.py"
    command = [sys.executable, "-m", "gunicorn", "--config", str(conf)]
    print(f"sightline serve: http://{settings.host}:{settings.port} with {settings.worker_count} worker(s); "
          f"loading the models and indexes first (a few seconds)", file=sys.stderr, flush=True)
    os.chdir(paths.REPO_ROOT)
    os.execve(sys.executable, command, env)
    return 0  # not reached


# --- eval -----------------------------------------------------------------------------

def cmd_eval(args: argparse.Namespace) -> int:
    from evaluation.runner import run_sets

    results = run_sets(args.sets, data_dir=args.data, queries=args.queries, limit=args.limit,
                       out_dir=args.out, progress=not args.json)
    if args.json:
        payload = results[0] if len(results) == 1 else results
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from benchmarks.retrieval import main as bench_main

    return bench_main(args.bench_args)


# --- entry point ----------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sightline", description="Explainable retrieval-augmented answering.")
    sub = parser.add_subparsers(dest="command", required=True)

    ingest = sub.add_parser("ingest", help="build or update a knowledge base")
    ingest.add_argument("paths", nargs="*", help="JSONL files or folders of Markdown / text files")
    ingest.add_argument("--kb", help="knowledge base name (configured ones keep their settings)")
    ingest.add_argument("--rebuild", action="store_true", help="rebuild even if unchanged; re-embed everything")
    ingest.add_argument("--demo", action="store_true", help="build every knowledge base in knowledge_bases.yaml")
    ingest.add_argument("--json", action="store_true", help="print the report as JSON")
    ingest.add_argument("--quiet", action="store_true", help="no progress bars")
    ingest.set_defaults(func=cmd_ingest)

    perceive = sub.add_parser("perceive", help="show what Perception extracts from a query")
    perceive.add_argument("query")
    perceive.add_argument("--now", type=_date, help="resolve relative times against this date (YYYY-MM-DD)")
    perceive.add_argument("--json", action="store_true")
    perceive.set_defaults(func=cmd_perceive)

    ask = sub.add_parser("ask", help="answer a question from the knowledge bases")
    ask.add_argument("query")
    ask.add_argument("--kb", action="append", help="search only this knowledge base (repeatable)")
    ask.add_argument("--now", type=_date, help="resolve relative times and ages against this date")
    ask.add_argument("--max-retries", type=int, dest="max_retries", help="extra attempts after validation issues")
    ask.add_argument("--top-k", type=_positive, dest="top_k", help="results per retrieval task")
    ask.add_argument("--json", action="store_true", help="print exactly the body POST /rag returns")
    ask.add_argument("--brief", action="store_true", help="answer and sources only, no trace")
    ask.add_argument("--no-ner", action="store_true", help="rules-only perception (faster start)")
    ask.add_argument("--groups", type=_groups, default=(), metavar="G1,G2",
                     help="answer as a caller in these ACL groups (default: none, public documents only). Local "
                          "use is the operator's: whoever can run this command can read the index files, so the "
                          "groups are taken as given; HTTP callers get theirs from their API key")
    ask.add_argument("--all-groups", action="store_true", dest="all_groups",
                     help="see every document, ACL ignored (operator use)")
    ask.set_defaults(func=cmd_ask)

    keys = sub.add_parser("keys", help="manage API keys (stored hashed in config/api_keys.yaml or $SIGHTLINE_API_KEYS)")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    add = keys_sub.add_parser("add", help="create a random key; prints it once, as the last line of stdout")
    add.add_argument("name", help="the key's name (letters, digits, '-', '_'); shown in logs and responses")
    add.add_argument("--groups", type=_groups, default=(), metavar="G1,G2",
                     help="ACL groups whose documents the key may see (default: none, public documents only)")
    listing = keys_sub.add_parser("list", help="show key names and groups (never the keys)")
    listing.add_argument("--json", action="store_true")
    remove = keys_sub.add_parser("remove", help="revoke a key by name")
    remove.add_argument("name")
    keys.set_defaults(func=cmd_keys)

    serve = sub.add_parser("serve", help="start the HTTP service (gunicorn with gunicorn.conf.py)")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1; env SIGHTLINE_HOST)")
    serve.add_argument("--port", type=_positive, help="port (default 8000; env SIGHTLINE_PORT)")
    serve.add_argument("--workers", type=_positive,
                       help="worker processes (default one per core, at most 4; env SIGHTLINE_WORKERS)")
    serve.set_defaults(func=cmd_serve)

    evaluate = sub.add_parser("eval", help="evaluate on public benchmark sets")
    evaluate.add_argument("sets", nargs="+", choices=["scifact", "multihop", "rgb", "hotpotqa", "peps"])
    evaluate.add_argument("--data", type=Path, help="folder holding the sets (default ../shared/eval)")
    evaluate.add_argument("--queries", type=Path, help="another query file in the set's format")
    evaluate.add_argument("--limit", type=_positive, help="only the first N queries")
    evaluate.add_argument("--out", type=Path, help="write report.json / report.md here")
    evaluate.add_argument("--json", action="store_true", help="one JSON object on stdout")
    evaluate.set_defaults(func=cmd_eval)

    bench = sub.add_parser("bench", help="benchmarks, side by side with peers")
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


if __name__ == "__main__":
    sys.exit(main())
