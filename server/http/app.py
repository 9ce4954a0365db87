"""The Flask app factory: POST /rag, health, readiness, metrics, knowledge bases, OpenAPI, admin.

`create_app()` builds (and warms) the answering machinery once; under gunicorn that happens in
the master before fork (`preload_app`, see gunicorn.conf.py). Every request gets a request id
(the caller's X-Request-ID when it is a sane token, else a new one) that is echoed in the
response header, used as the trace_id and attached to every log line. Errors of any kind come
back as `{"error": {"code", "message", "field"?}}` (server/http/errors.py).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import uuid
from typing import Any, cast

from flask import Flask, Response, g, jsonify, request
from flask.json.provider import DefaultJSONProvider

from core.errors import PayloadTooLarge, RequestError, RequestTimeout, Unauthenticated

from .. import metrics
from ..callers import Caller
from ..logs import caller_var, configure_logging, request_id_var
from ..service import Service
from ..settings import ServiceSettings, load_settings
from .admin import admin
from .errors import is_admin_request, redact, register_error_handlers
from .openapi import build_openapi
from .schemas import MAX_JSON_DEPTH, parse_ask_request

log = logging.getLogger("sightline.http")
REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}\Z")
# endpoints that read documents: the caller is resolved (and may be refused) before they run
CALLER_PATHS = ("/rag", "/kb")


def read_body(limit: int, timeout: float = 10.0) -> bytes:
    """The request body, at most `limit` bytes; PayloadTooLarge (413) beyond, chunked or not.

    werkzeug enforces MAX_CONTENT_LENGTH on a declared Content-Length, but a chunked body
    (no length) was silently cut at the limit and answered; here both are refused alike.
    """
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"the request body is {request.content_length} bytes; the limit is {limit} bytes",
                              field="body")
    sock = request.environ.get("gunicorn.socket")
    if sock is not None:
        sock.settimeout(timeout)
    # werkzeug's stream stops quietly at MAX_CONTENT_LENGTH when no length is declared and turns
    # a read timeout into a generic 400, so the body is read from the server's own input
    # (gunicorn decodes chunks and stops at a declared Content-Length)
    stream = request.environ["wsgi.input"]
    try:
        raw = stream.read(limit + 1)
    except (TimeoutError, OSError) as exc:
        raise RequestTimeout(f"the request body did not arrive within {timeout:g} s "
                             f"({type(exc).__name__}); send it whole", field="body") from None
    finally:
        if sock is not None:
            sock.settimeout(None)
    if len(raw) > limit:
        raise PayloadTooLarge(f"the request body is larger than the limit of {limit} bytes", field="body")
    if request.content_length is not None and len(raw) < request.content_length:
        raise RequestTimeout(f"the request body ended after {len(raw)} of the {request.content_length} bytes "
                             "its Content-Length announced; send it whole", field="body")
    return raw


def _decode_json(limit: int, timeout: float = 10.0) -> Any:
    """The request body as JSON; RequestError (400, field "body") says where it is malformed."""
    raw = read_body(limit, timeout)
    if not raw.strip():
        raise RequestError("the request body is empty; send a JSON object such as {\"query\": \"...\"}",
                           field="body")
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise RequestError("the request body is not UTF-8 text", field="body") from None
    except json.JSONDecodeError as exc:
        raise RequestError(f"the request body is not valid JSON: {exc.msg} at line {exc.lineno} column "
                           f"{exc.colno}", field="body") from None
    except RecursionError:
        raise RequestError(f"the request body nests too deeply; the limit is {MAX_JSON_DEPTH} levels",
                           field="body") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise RequestError(f"the request body holds a value JSON cannot take here ({exc})", field="body") from None


def describe_for(kb: Any, caller: Caller) -> dict[str, Any]:
    """What GET /kb shows one caller about a knowledge base: counts of what it may see only."""
    body = kb.describe()
    if kb.ready:
        key = (kb.name, str(kb.build_dir), caller.acl_groups)
        if key not in _COUNTS:
            if len(_COUNTS) > 256:
                _COUNTS.clear()
            _COUNTS[key] = kb.columns.visible_counts(caller.acl_groups, kb.chunk_ids)
        body["chunks"], body["documents"] = _COUNTS[key]
    return body


# (kb, build, caller groups) -> (chunks, documents) that caller may see: counts only, never ids
_COUNTS: dict[tuple, tuple[int, int]] = {}


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
    service = Service(settings, loop=loop)
    app.extensions["sightline"] = service
    register_error_handlers(app)
    app.register_blueprint(admin)

    @app.before_request
    def _start() -> None:
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if REQUEST_ID.match(given) else uuid.uuid4().hex
        g.token = request_id_var.set(g.request_id)
        g.started = time.perf_counter()
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
        if request.path == "/rag" and request.method == "POST" and response.status_code >= 400 and "started" in g:
            metrics.record_failure("rejected" if response.status_code < 500 else "error",
                                   time.perf_counter() - g.started)
        if request.path == "/rag":
            log.info("rag %s", response.status_code, extra={
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

    @app.post("/rag")
    def rag():
        """Answer one question (see openapi.json for the request and response)."""
        loop = service.require_ready()
        limits = settings.limits
        ask = parse_ask_request(_decode_json(limits.max_body_bytes, limits.body_timeout_seconds), limits)
        caller: Caller = g.caller
        ask.trace_id = g.request_id
        ask.acl_groups, ask.caller = caller.acl_groups, caller.to_dict()
        with service.lock:
            result = loop.answer(ask)
        metrics.record_result(result, time.perf_counter() - g.started)
        g.log_extra = {"answer_status": result.status, "attempts": len(result.attempts),
                       "config_version": result.config_version, "timing": result.timing}
        return jsonify(result.to_body(ask.trace))

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
