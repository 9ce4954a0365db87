"""The MCP server: the SDK's low-level `Server` announcing Sightline's three tools and calling them.

The low-level Server rather than `MCPServer`: the tools' JSON Schemas are written here (the
arguments are then validated by Sightline's own request checks, so a bad value gets the message
POST /rag gives it), and `MCPServer()` configures the process's root logger, which would take
over the service's JSON logs. A tool's error (a bad argument, an unknown knowledge base) is a
result with `isError` and `{"error": {"code", "message", "field"}}`, so an agent can read it and
correct the call; an unknown tool is a protocol error.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from core.errors import SightlineError

from ..http.schemas import RequestLimits
from .tools import Tools

log = logging.getLogger("sightline.mcp")
NAME = "sightline"
INSTRUCTIONS = ("Sightline answers questions from its knowledge bases with cited, validated evidence. `ask` gives "
                "the answer (with [n] markers), its status (answered, partial or insufficient: an honest refusal) "
                "and its citations; `search` gives the ranked evidence alone, with scores; `list_knowledge_bases` "
                "names what can be searched. Every tool sees only the documents your key may read.")
READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                  open_world_hint=False)
KB_NAMES = {"type": "array", "items": {"type": "string"}, "minItems": 1,
            "description": "Search only these knowledge bases (list_knowledge_bases names them); default: as the "
                           "router decides, over every one."}
NOW = {"type": "string", "description": "The date relative times ('last year') and document ages are measured "
                                        "against: YYYY-MM-DD or an ISO date-time; default today (UTC)."}
OBJECT = {"type": "object"}
ANSWER_STATUSES = ("answered", "partial", "insufficient")


def _question(limits: RequestLimits) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "maxLength": limits.max_query_chars,
            "description": "The question, in English or Chinese."}


def tool_list(limits: RequestLimits = RequestLimits()) -> list[types.Tool]:
    """The tools as announced by tools/list, their schemas following the request limits."""
    question = _question(limits)
    ask_out = {"type": "object", "required": ["trace_id", "status", "answer", "short_answer", "citations",
                                              "unavailable_kbs"], "properties": {
        "trace_id": {"type": "string", "description": "The id of this answer's trace (POST /rag's trace_id)."},
        "status": {"enum": list(ANSWER_STATUSES)},
        "answer": {"type": "string", "description": "Markdown with [n] markers naming the citations."},
        "short_answer": {"type": ["object", "null"], "description": "For a question asking for a value: {text, "
                         "citation}, the value as the answer's lead writes it; else null (POST /rag's)."},
        "unavailable_kbs": {"type": "array", "items": OBJECT, "description": "Knowledge bases left out because "
                            "their index cannot be read now: {kb, reason} (POST /rag's)."},
        "citations": {"type": "array", "items": OBJECT, "description": "n, chunk_id, kb, title, source, url, dates, "
                                                                       "snippet: as POST /rag's citations."}}}
    search_out = {"type": "object", "required": ["trace_id", "tasks", "results"], "properties": {
        "trace_id": {"type": "string"},
        "tasks": {"type": "array", "items": OBJECT, "description": "The router's searches: id, kb, search "
                                                                   "(keyword, vector, hybrid), query, rule, reason."},
        "results": {"type": "array", "items": OBJECT, "description": "Best first: rank, chunk_id, doc_id, kb, title, "
                    "snippet, score (fused x credibility), fused, credibility, ranks and scores per arm "
                    "('<task>:keyword', '<task>:vector') and per task, metadata (source, url, dates, status)."}}}
    kb_out = {"type": "object", "required": ["knowledge_bases", "config_version"], "properties": {
        "knowledge_bases": {"type": "array", "items": OBJECT, "description": "As GET /kb: name, description, "
                            "chunks and documents you may read, built_at, embedder, index."},
        "config_version": {"type": "string"}}}
    return [
        types.Tool(name="ask", title="Ask Sightline",
                   description="Answer a question from the knowledge bases: the answer with [n] citation markers, "
                               "its status and its citations, exactly as POST /rag answers it for your key.",
                   input_schema={"type": "object", "required": ["question"], "additionalProperties": False,
                                 "properties": {"question": question, "kb": KB_NAMES, "now": NOW}},
                   output_schema=ask_out, annotations=READ_ONLY),
        types.Tool(name="search", title="Search Sightline",
                   description="Retrieval only: the evidence chunks Sightline would read for a question, best first, "
                               "each with its fused score and its rank and score per search arm.",
                   input_schema={"type": "object", "required": ["question"], "additionalProperties": False,
                                 "properties": {"question": question, "kb": KB_NAMES, "now": NOW,
                                                "top_k": {"type": "integer", "minimum": 1,
                                                          "maximum": limits.max_top_k,
                                                          "description": "Results per search (default: the "
                                                                         "router's)."}}},
                   output_schema=search_out, annotations=READ_ONLY),
        types.Tool(name="list_knowledge_bases", title="List knowledge bases",
                   description="The knowledge bases Sightline serves, with what each holds that you may read.",
                   input_schema={"type": "object", "properties": {}, "additionalProperties": False},
                   output_schema=kb_out, annotations=READ_ONLY),
    ]


def build_server(tools: Tools, redact: Callable[[str], str] = str) -> Server[Any]:
    """The MCP server of `tools` (cheap: the HTTP endpoint makes one per request, for its caller).

    Args:
        tools: the tools of one caller.
        redact: applied to the message of a 5xx-class error before a caller reads it (the HTTP
            endpoint hides the host's paths from anyone but the admin).
    """
    calls: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "ask": tools.ask, "search": tools.search, "list_knowledge_bases": tools.list_knowledge_bases}
    listed = types.ListToolsResult(tools=tool_list(tools.limits))

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return listed

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        call = calls.get(params.name)
        if call is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name!r}; the tools are "
                                                              f"{', '.join(calls)}")
        arguments = params.arguments or {}
        try:  # the loop is synchronous and CPU-bound: a worker thread keeps this event loop reading
            return _structured(await anyio.to_thread.run_sync(call, arguments))
        except SightlineError as exc:
            error = exc.to_dict()
            if exc.http_status >= 500:
                error["message"] = redact(exc.message)
            return _structured({"error": error}, is_error=True)
        except Exception:
            log.exception("MCP tool %s failed", params.name, extra={"event": "mcp_tool", "tool": params.name})
            return _structured({"error": {"code": "internal_error", "message": f"the {params.name} tool failed; "
                                          "the service log has the details"}}, is_error=True)

    return Server(NAME, version=_version(), instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


def _structured(value: dict[str, Any], is_error: bool = False) -> types.CallToolResult:
    """A tool result carrying `value` as structured content and, for older clients, as JSON text."""
    text = json.dumps(value, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=value,
                                is_error=is_error)


def _version() -> str:
    """The installed sightline package's version (the server announces it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sightline")
    except PackageNotFoundError:
        return "0.0.0"
