"""POST /mcp: the MCP streamable-HTTP endpoint, served by the SDK's own transport inside a Flask view.

The service is WSGI (Flask under gunicorn's threaded workers); the SDK's streamable-HTTP
transport is ASGI. It runs here in its stateless, JSON-response mode: every POST carries one
JSON-RPC message and gets its answer as one JSON body, no session and no stream, so nothing
outlives the request. Each request runs the SDK's `StreamableHTTPSessionManager` on an event
loop of its own (`anyio.run` in the worker thread that serves it) for that one exchange: no
event loop or thread is shared across gunicorn's fork, and a slow question holds one worker
thread, as POST /rag does.

Before the SDK sees anything, the request went through what every /rag request goes through:
the request id, the caller resolved from `Authorization: Bearer <key>` (401 for an unknown
key, app.py's CALLER_PATHS), the body read within `limits.max_body_bytes` and the body
deadline. The tools then read as that caller. GET (a server-to-client stream) and DELETE
(ending a session) have nothing to serve in stateless mode: 405, as the MCP spec allows.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import anyio
from flask import Blueprint, Response, current_app, request
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from core.errors import SightlineError

from .. import metrics
from ..http.body import read_body
from ..http.context import request_context
from ..http.errors import is_admin_request, redact_text
from ..loop import AnswerResult
from .server import build_server
from .tools import Tools

mcp_http = Blueprint("mcp", __name__)
PATH = "/mcp"
# the caller is authenticated by its API key before the SDK runs; the SDK's Host/Origin check
# (DNS rebinding) would refuse every host name the operator did not list, where /rag refuses none
NO_HOST_CHECK = TransportSecuritySettings(enable_dns_rebinding_protection=False)


@mcp_http.post(PATH)
def mcp_endpoint() -> Response:
    """One MCP message (JSON-RPC) in, its answer out, for the request's caller."""
    service = current_app.extensions["sightline"]
    loop = service.require_ready()
    limits = service.settings.limits
    body = read_body(limits.max_body_bytes, limits.body_timeout_seconds)
    context = request_context("mcp")  # the caller, the request id as trace id, the arrival
    tools = Tools(loop, lambda: context, service.lock, limits, answer=lambda ask: service.answer(loop, ask),
                  on_ask=_count)
    server = build_server(tools, redact=(lambda text: text) if is_admin_request() else redact_text)
    status, headers, content = anyio.run(_exchange, server, _scope(), body)
    return Response(content, status=status, headers=headers)


async def _exchange(server: Any, scope: dict[str, Any], body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, headers, body) of the SDK's transport answering one request whose body is `body`."""
    manager = StreamableHTTPSessionManager(server, json_response=True, stateless=True, security_settings=NO_HOST_CHECK)
    answer: dict[str, Any] = {"status": 500, "headers": [], "body": b""}
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()  # the body is whole; nothing more comes (a disconnect never does here)
        raise AssertionError("unreachable")

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]
            answer["headers"] = [(name.decode("latin-1"), value.decode("latin-1"))
                                 for name, value in message.get("headers", ())
                                 if name.lower() != b"content-length"]  # werkzeug counts the body itself
        elif message["type"] == "http.response.body":
            answer["body"] += message.get("body", b"")

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return answer["status"], answer["headers"], answer["body"]


def _scope() -> dict[str, Any]:
    """The ASGI scope of the Flask request being served (the transport reads its method and headers)."""
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
            "scheme": request.scheme, "path": request.path, "raw_path": request.path.encode("latin-1"),
            "root_path": "", "query_string": request.query_string,
            "headers": [(name.lower().encode("latin-1"), value.encode("latin-1"))
                        for name, value in request.headers.items()],
            "client": (request.remote_addr or "", 0), "server": None}


def _count(outcome: AnswerResult | SightlineError, seconds: float) -> None:
    """Count an `ask` in the request metrics, endpoint "mcp" (search and list answer no question)."""
    if isinstance(outcome, SightlineError):
        metrics.record_failure("rejected" if outcome.http_status < 500 else "error", seconds, endpoint="mcp")
    else:
        metrics.record_result(outcome, seconds, endpoint="mcp")
