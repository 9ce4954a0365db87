"""`sightline perceive` and `sightline ask`: one question, from this process."""

from __future__ import annotations

import argparse
import json

from core.errors import SightlineError


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



def cmd_ask(args: argparse.Namespace) -> int:
    from ..bootstrap import build_loop
    from ..http.schemas import parse_ask_request
    from ..render import render_answer

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
