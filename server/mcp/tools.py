"""The MCP tools as plain Python: `ask`, `search`, `list_knowledge_bases`, for one caller over one loop.

No SDK here (server.py wraps these for it), so each tool is testable as a function. Arguments are
validated by the same code as a POST /rag body (`parse_ask_request`), so a bad value gets the
same message, naming the argument (`question` where /rag says `query`). Every tool sees what its
caller may see, no more: `ask` is the loop's answer (POST /rag's, field for field); `search`
runs the same perception, router and executor with the caller's groups; `list_knowledge_bases`
counts only the chunks and documents the caller may read (as GET /kb).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from core.errors import RequestError, SightlineError
from orchestration.retrieval.scored import ScoredChunk
from orchestration.trace import Trace

from ..asking import reply_fields
from ..context import RequestContext
from ..http.schemas import RequestLimits, parse_ask_request
from ..kb_view import describe_for
from ..loop import AnswerLoop, AnswerResult, AskRequest

ASK_ARGUMENTS = ("question", "kb", "now")
SEARCH_ARGUMENTS = ("question", "kb", "now", "top_k")
SNIPPET_CHARS = 400  # the text of a search result, cut at a word boundary
# metadata a search result shows (never `acl`: a caller in one group would learn the others' names)
SHOWN_METADATA = ("source", "url", "published_at", "updated_at", "status", "doc_type", "section", "page")


@dataclass
class Tools:
    """The three tools for one caller.

    Attributes:
        loop: a warmed AnswerLoop (the service's, or one built as the service builds it).
        context: the context of a call (server/context.py): who asks (its groups decide what
            every tool may read), its trace id, when it arrived. HTTP gives the request's (one
            call per request); stdio a new one per call.
        lock: held while the loop runs (the loop answers one request at a time, as on /rag).
        limits: the request limits of POST /rag.
        answer: how `ask` has the loop answer (HTTP: `Service.answer`, as POST /rag: under the
            lock, its trace exported to OpenTelemetry); None: `loop.answer` under `lock`.
        on_ask: told of each `ask`: its AnswerResult, or the SightlineError that refused it, and
            the seconds it took (the service counts them in its metrics).
    """

    loop: AnswerLoop
    context: Callable[[], RequestContext]
    lock: AbstractContextManager = field(default_factory=threading.RLock)
    limits: RequestLimits = field(default_factory=RequestLimits)
    answer: Callable[[AskRequest], AnswerResult] | None = None
    on_ask: Callable[[AnswerResult | SightlineError, float], None] | None = None

    def ask(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Answer a question as POST /rag answers it for this caller.

        Promises: `trace_id`, `status`, `answer` and `citations` equal the /rag reply's to the
        same question, knowledge bases, date and caller.

        Raises:
            SightlineError: a bad argument (RequestError, naming it), an unknown or unreadable
                knowledge base, as POST /rag would answer with an error.
        """
        started = time.perf_counter()
        try:
            ask = self._request(arguments, ASK_ARGUMENTS)
            if self.answer is not None:
                result = self.answer(ask)
            else:
                with self.lock:
                    result = self.loop.answer(ask)
        except SightlineError as exc:
            self._told(exc, started)
            raise
        self._told(result, started)
        return reply_fields(result.to_body("none"))

    def search(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Retrieval alone: the evidence the loop's first attempt would read, best first, with scores.

        Promises: only chunks the caller may read; each with its fused score, credibility, and
        rank and score per arm and task (`ranks`, `scores`), and the plan's tasks (rule, reason).

        Raises:
            SightlineError: a bad argument, or an unknown or unreadable knowledge base.
        """
        ask = self._request(arguments, SEARCH_ARGUMENTS)
        context = ask.context
        for name in ask.kbs or ():
            self.loop.retriever.kb(name)  # UnknownKnowledgeBase lists the known ones
        trace = Trace(context.trace_id)
        overrides = {"top_k": ask.top_k} if ask.top_k is not None else None
        with self.lock:
            perception = self.loop.perception.run(ask.query, context.now)
            plan = self.loop.router.run(perception, kbs=ask.kbs, overrides=overrides)
            evidence = self.loop.executor.run(plan, trace, context.now, acl_groups=context.acl_groups)
        return {"trace_id": trace.trace_id,
                "tasks": [{key: task.to_dict()[key] for key in ("id", "kb", "search", "query", "rule", "reason")}
                          for task in plan.tasks],
                "results": [_result(rank, chunk) for rank, chunk in enumerate(evidence, start=1)]}

    def list_knowledge_bases(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The served knowledge bases as GET /kb shows them to this caller (counts of what it may see)."""
        _check_arguments(arguments, ())
        caller = self.context().caller
        return {"knowledge_bases": [describe_for(kb, caller) for kb in self.loop.retriever.knowledge_bases.values()],
                "config_version": self.loop.router_config.version}

    def _request(self, arguments: dict[str, Any], allowed: tuple[str, ...]) -> AskRequest:
        """The POST /rag request of a tool's arguments, in this call's context; RequestError names the
        argument at fault."""
        _check_arguments(arguments, allowed)
        body: dict[str, Any] = {"query": arguments.get("question"), "trace": "none"}
        body.update((key, arguments[key]) for key in allowed[1:] if arguments.get(key) is not None)
        try:
            return parse_ask_request(body, self.limits, self.context())
        except RequestError as exc:
            if exc.field != "query":
                raise
            raise RequestError(exc.message.replace("'query'", "'question'"), field="question") from None

    def _told(self, outcome: AnswerResult | SightlineError, started: float) -> None:
        if self.on_ask is not None:
            self.on_ask(outcome, time.perf_counter() - started)


def _check_arguments(arguments: Any, allowed: tuple[str, ...]) -> None:
    """RequestError unless `arguments` is an object holding only `allowed` names."""
    if not isinstance(arguments, dict):
        raise RequestError(f"the arguments must be an object, got {type(arguments).__name__}", field="arguments")
    unknown = sorted(set(arguments) - set(allowed))
    if unknown:
        raise RequestError(f"unknown argument(s) {', '.join(unknown)}; allowed: {', '.join(allowed) or 'none'}",
                           field=unknown[0])


def _result(rank: int, chunk: ScoredChunk) -> dict[str, Any]:
    """One search result: where it is from, a snippet, and every score that placed it."""
    shown = {key: chunk.metadata[key] for key in SHOWN_METADATA if chunk.metadata.get(key) is not None}
    return {"rank": rank, "chunk_id": chunk.chunk_id, "doc_id": chunk.doc_id, "kb": chunk.kb, "title": chunk.title,
            "snippet": snippet(chunk.text), "score": round(chunk.score, 6), "fused": round(chunk.fused, 6),
            "credibility": round(chunk.credibility, 6), "ranks": dict(chunk.ranks),
            "scores": {key: round(value, 6) for key, value in chunk.scores.items()}, "metadata": shown}


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """`text` whole when it is at most `limit` characters, else cut at the last space before it, with '…'."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[:cut if cut > limit // 2 else limit].rstrip() + "…"
