"""`sightline perceive` and `sightline ask`: one question, from this process or a running service.

A one-shot command loads only what its question needs: the knowledge-base names are checked
against the config before anything loads, indexes are mapped, and the embedders and jieba's
dictionary load on first use (an English question over English KBs never reads jieba's).
`ask --server URL` (or SIGHTLINE_URL) sends the question to a running service's POST /rag
instead and loads nothing (server/cli/remote.py: no redirects followed, the reply checked).
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from core.errors import SightlineError

from .remote import API_KEY_ENV, SERVER_ENV, ask_server


def cmd_perceive(args: argparse.Namespace) -> int:
    from perception import PerceptionAgent

    from ..context import RequestContext

    if not args.query.strip():
        raise SightlineError("the query is empty; pass the question in quotes", field="query")
    agent = PerceptionAgent()
    agent.warm_up(eager=False)  # jieba and spaCy only when the query needs them
    perception = agent.run(args.query, RequestContext.create(args.now, endpoint="perceive").now)
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


def _body(args: argparse.Namespace) -> dict[str, Any]:
    """The POST /rag body of the command's question and options."""
    body: dict[str, Any] = {"query": args.query, "trace": "full" if (args.json or not args.brief) else "summary"}
    if args.kb:
        body["kb"] = args.kb
    if args.now:
        body["now"] = args.now.isoformat()
    if args.max_retries is not None:
        body["max_retries"] = args.max_retries
    if args.top_k is not None:
        body["top_k"] = args.top_k
    return body


def _check_kbs(names: list[str]) -> None:
    """Fail before anything loads when a --kb is not configured (the error lists the known ones)."""
    from orchestration.kb.config import load_kb_config

    config = load_kb_config()
    for name in names:
        config.get(name)


def cmd_ask(args: argparse.Namespace) -> int:
    from ..render import render_answer

    body = _body(args)
    server = args.server or os.environ.get(SERVER_ENV)
    if server:
        if args.groups or args.all_groups:
            raise SightlineError("--groups and --all-groups are for local use; a service gives a caller the "
                                 f"groups of its API key (set {API_KEY_ENV})", field="groups")
        response = ask_server(server, body, os.environ.get(API_KEY_ENV), with_trace=not (args.json or args.brief))
    else:
        response = _ask_here(args, body)
    if args.json:
        print(json.dumps(response, ensure_ascii=False, indent=2))
        return 0
    try:
        text = render_answer(response, show_trace=not args.brief)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        if not server:
            raise  # this process's own answer: a bug, shown as one
        # a deeper part of a service's trace than reply.py checks: still one line, never a traceback
        raise SightlineError(f"{server.rstrip('/')}/rag: malformed reply: its trace cannot be shown "
                             f"({type(exc).__name__}: {exc}); use --brief or --json", field="server") from None
    print(text)
    return 0


def _ask_here(args: argparse.Namespace, body: dict[str, Any]) -> dict[str, Any]:
    """Answer in this process, loading only what the question needs."""
    if args.kb:
        _check_kbs(args.kb)
    from .. import otel
    from ..bootstrap import build_loop
    from ..callers import Caller
    from ..context import RequestContext
    from ..http.schemas import parse_ask_request

    otel.configure()  # an OTLP protocol it cannot send fails here, before anything loads
    caller = Caller("operator", "operator", tuple(args.groups or ()), unrestricted=args.all_groups)
    request = parse_ask_request(body, context=RequestContext.create(caller=caller, endpoint="ask"))
    # with --kb, only those KBs are opened: the others need not be built
    from ..settings import load_settings

    loop = build_loop(use_ner=not args.no_ner, knowledge_bases=tuple(dict.fromkeys(args.kb)) if args.kb else None,
                      llm=load_settings().llm)  # SIGHTLINE_LLM_* answer here as they do in the service
    loop.warm_up(eager=False)
    result = loop.answer(request)
    otel.export(result)  # OTEL_EXPORTER_OTLP_ENDPOINT set: this question's trace, sent before the command ends
    otel.shutdown()
    return result.to_body(request.context.trace_level)
