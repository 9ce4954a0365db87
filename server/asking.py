"""Asking outside POST /rag: the loop `sightline serve` would build, the local caller, the reply's fields.

`sightline mcp` (stdio) and `sightline batch` answer in their own process, yet must answer
exactly as the service does for the same question and caller. So they build the loop from the
same settings the service reads (`load_settings()`: the KBs it serves, its router file, NER,
the LLM) rather than from their own flags: a KB left unopened would drop the source names its
public documents teach Perception, and a question could then be read differently.
"""

from __future__ import annotations

from typing import Any

from .callers import Caller
from .loop import AnswerLoop


def service_loop() -> AnswerLoop:
    """A warmed AnswerLoop built as `sightline serve` builds its own (service.yaml, then the environment).

    Promises: the knowledge bases, router config, NER setting and LLM are the service's, and
    every model and index is loaded before this returns (the first question pays nothing).

    Raises:
        ConfigError: a config file is invalid.
        SightlineError: an index cannot be opened (the message names the rebuild command).
    """
    from .bootstrap import build_loop
    from .settings import load_settings

    settings = load_settings()
    loop = build_loop(use_ner=settings.use_ner, router_path=settings.router_path,
                      knowledge_bases=settings.knowledge_bases, llm=settings.llm)
    loop.warm_up()
    return loop


def operator_caller(groups: tuple[str, ...] = (), all_groups: bool = False) -> Caller:
    """The caller of a local command (`--groups`, `--all-groups`), named as `sightline ask` names it."""
    return Caller("operator", "operator", tuple(groups), unrestricted=all_groups)


REPLY_FIELDS = ("trace_id", "status", "answer", "short_answer", "citations", "unavailable_kbs")


def reply_fields(body: dict[str, Any]) -> dict[str, Any]:
    """What an MCP `ask` and a batch record keep of a POST /rag body: trace id, status, answer, the
    short answer (a value question's value), citations, and the knowledge bases left out."""
    return {key: body[key] for key in REPLY_FIELDS}
