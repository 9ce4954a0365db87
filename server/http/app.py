"""The Flask app factory: POST /rag and POST /ui/answer (the same answering, its reply the trace page),
the OpenAI-compatible /v1 endpoints (chat.py), health, readiness, metrics, knowledge bases,
OpenAPI, admin, and the /ui pages (ui.py).

`create_app()` builds (and warms) the answering machinery once; under gunicorn that happens in
the master before fork (`preload_app`, see gunicorn.conf.py). Every request gets a request id
(the caller's X-Request-ID when it is a sane token, else a new one) that is echoed in the
response header, used as the trace_id and attached to every log line. Errors of any kind come
back as `{"error": {"code", "message", "field"?}}`, under /v1/ in OpenAI's shape
(server/http/errors.py).
"""

from __future__ import annotations

import logging
import os
import re
import time
from typing import Any, cast

from flask import Flask, Response, g, jsonify, request
from flask.json.provider import DefaultJSONProvider

from core.errors import Unauthenticated

from .. import metrics
from ..callers import Caller
from ..context import Arrival, new_trace_id
from ..forwarded import ForwardedFor
from ..kb_view import describe_for
from ..logs import caller_var, configure_logging, request_id_var
from ..mcp.http import mcp_http
from ..service import Service
from ..settings import ServiceSettings, load_settings
from .admin import admin
from .body import decode_json
from .chat import chat
from .context import request_context
from .errors import is_admin_request, redact, register_error_handlers
from .openapi import build_openapi
from .schemas import parse_ask_request
from .ui import ANSWER_PATH, STORED_HEADER, answer_page, keep_trace, register_ui

log = logging.getLogger("sightline.http")
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")  # fullmatch
# endpoints that read documents: the caller is resolved (and may be refused) before they run
CALLER_PATHS = ("/rag", ANSWER_PATH, "/kb", "/mcp")
# endpoints that answer questions: path -> the `endpoint` label of the request metrics
ANSWER_PATHS = {"/rag": "rag", ANSWER_PATH: "ui", "/v1/chat/completions": "chat"}


def create_app(settings: ServiceSettings | None = None, loop: Any = None) -> Flask:
    """The WSGI app.

    Args:
        settings: service settings (default: load_settings(): service.yaml + environment).
        loop: a warmed AnswerLoop to serve (tests); by default one is built from the config.
    """
    settings = settings or load_settings()
    configure_logging(settings.log_level)
    app = Flask("sightline")
    json_provider = cast(DefaultJSONProvider, app.json)
    json_provider.sort_keys = False
    json_provider.ensure_ascii = False
    app.config["MAX_CONTENT_LENGTH"] = settings.limits.max_body_bytes
    if settings.trusted_proxy_hops:  # request.remote_addr: the client's as a trusted proxy saw it, else the peer's
        app.wsgi_app = ForwardedFor(app.wsgi_app, settings.trusted_proxies,  # type: ignore[method-assign]
                                    settings.trusted_proxy_hops)
    service = Service(settings, loop=loop)
    app.extensions["sightline"] = service
    register_error_handlers(app)
    app.register_blueprint(admin)
    app.register_blueprint(chat)
    register_ui(app, settings)
    app.register_blueprint(mcp_http)

    @app.before_request
    def _start() -> None:
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if REQUEST_ID.fullmatch(given) else new_trace_id()
        g.token = request_id_var.set(g.request_id)
        g.arrival = Arrival.now()  # the request's date and the start of its exported spans
        g.started = g.arrival.perf
        service.worker_started()
        if request.path in CALLER_PATHS or request.path.startswith("/v1/"):
            try:
                g.caller = service.resolve_caller(request.headers)
            except Unauthenticated as exc:
                metrics.record_auth_failure(exc.reason)
                log.info("caller refused", extra={"event": "auth", "reason": exc.reason, "path": request.path,
                                                  "remote": request.remote_addr})
                raise
            g.caller_token = caller_var.set(g.caller.name)

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers["X-Request-ID"] = g.get("request_id", "")
        if "caller" in g:
            response.headers["X-Sightline-Caller"] = g.caller.name
        for name, value in g.get("answer_headers", {}).items():
            response.headers[name] = value
        endpoint = ANSWER_PATHS.get(request.path)
        if endpoint and request.method == "POST" and response.status_code >= 400 and "started" in g:
            metrics.record_failure("rejected" if response.status_code < 500 else "error",
                                   time.perf_counter() - g.started, endpoint)
        if endpoint:
            log.info("%s %s", endpoint, response.status_code, extra={
                "event": "request", "method": request.method, "path": request.path,
                "status": response.status_code, "ms": round((time.perf_counter() - g.get("started", 0)) * 1000, 3),
                **g.get("log_extra", {})})
        return response

    @app.teardown_request
    def _reset(_exc) -> None:
        token = g.pop("token", None)
        if token is not None:
            request_id_var.reset(token)
        caller_token = g.pop("caller_token", None)
        if caller_token is not None:
            caller_var.reset(caller_token)

    def answer_request(endpoint: str) -> tuple[Any, Any]:
        """Answer the /rag request this request's body holds, as the caller resolved before it.

        Promises: the body is read, limited and validated as /rag's (the errors are /rag's); the
        answer is counted in the request metrics under `endpoint` (ANSWER_PATHS), and its status
        headers and log fields are set for `_finish`; its exported spans are named after `endpoint`.

        Returns:
            (the AskRequest, the AnswerResult).
        """
        loop = service.require_ready()
        limits = settings.limits
        ask = parse_ask_request(decode_json(limits.max_body_bytes, limits.body_timeout_seconds,
                                            example='{"query": "..."}'), limits, request_context(endpoint))
        result = service.answer(loop, ask)
        metrics.record_result(result, time.perf_counter() - g.started, endpoint=endpoint)
        g.answer_headers = {"X-Sightline-Status": result.status, "X-Sightline-Config-Version": result.config_version}
        g.log_extra = {"answer_status": result.status, "attempts": len(result.attempts),
                       "config_version": result.config_version, "timing": result.timing}
        return ask, result

    @app.post("/rag")
    def rag():
        """Answer one question (see openapi.json for the request and response)."""
        ask, result = answer_request("rag")
        keep_trace(result)  # for /ui/trace/<trace_id>
        return jsonify(result.to_body(ask.context.trace_level))

    @app.post(ANSWER_PATH)
    def ui_answer():
        """Answer one question as /rag does; the reply is the answer's trace page (HTML) from this
        host's memory, its header saying whether the trace was kept for /ui/trace/<trace_id>."""
        _ask, result = answer_request("ui")
        html, stored = answer_page(result)
        response = Response(html, mimetype="text/html")
        response.headers[STORED_HEADER] = "true" if stored else "false"
        return response

    @app.get("/healthz")
    def healthz():
        """Liveness: the process is up and answering HTTP."""
        return jsonify({"status": "ok", "pid": os.getpid()})

    @app.get("/readyz")
    def readyz():
        """Readiness: 200 when models, indexes and a valid router config are loaded; 503 and why otherwise."""
        ready, body = service.readiness()
        return jsonify(body if is_admin_request() else redact(body)), 200 if ready else 503

    @app.get("/metrics")
    def metrics_endpoint():
        """Prometheus exposition, every worker's values (a fresh registry per scrape)."""
        data, content_type = metrics.exposition()
        return Response(data, content_type=content_type)

    @app.get("/kb")
    def knowledge_bases():
        """The served knowledge bases: counts, build time, embedder, index type."""
        loop = service.require_ready()
        caller: Caller = g.caller
        return jsonify({"knowledge_bases": [describe_for(kb, caller) for kb in loop.retriever.knowledge_bases.values()],
                        "config_version": loop.router_config.version, "caller": caller.to_dict()})

    @app.get("/openapi.json")
    def openapi():
        """The OpenAPI 3.1 description of this API."""
        return jsonify(build_openapi(settings.limits))

    return app
