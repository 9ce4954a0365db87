"""The Flask app factory: POST /rag, health, readiness, metrics, knowledge bases, OpenAPI, admin.

`create_app()` builds (and warms) the answering machinery once; under gunicorn that happens in
the master before fork (`preload_app`, see gunicorn.conf.py). Every request gets a request id
(the caller's X-Request-ID when it is a sane token, else a new one) that is echoed in the
response header, used as the trace_id and attached to every log line. Errors of any kind come
back as `{"error": {"code", "message", "field"?}}` (server/errors.py).
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import uuid
from typing import Any

from flask import Flask, Response, g, jsonify, request

from core.errors import RequestError

from . import metrics
from .admin import admin
from .errors import register_error_handlers
from .logs import configure_logging, request_id_var
from .openapi import build_openapi
from .schemas import parse_ask_request
from .loop import shape_trace
from .service import Service
from .settings import ServiceSettings, load_settings

log = logging.getLogger("sightline.http")
REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def _decode_json() -> Any:
    """The request body as JSON; RequestError (400, field "body") says where it is malformed."""
    raw = request.get_data(cache=True)
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


def create_app(settings: ServiceSettings | None = None, loop: Any = None) -> Flask:
    """The WSGI app.

    Args:
        settings: service settings (default: load_settings(): service.yaml + environment).
        loop: a warmed AnswerLoop to serve (tests); by default one is built from the config.
    """
    settings = settings or load_settings()
    configure_logging(settings.log_level)
    app = Flask("sightline")
    app.json.sort_keys = False
    app.json.ensure_ascii = False
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

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers["X-Request-ID"] = g.get("request_id", "")
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

    @app.post("/rag")
    def rag():
        """Answer one question (see openapi.json for the request and response)."""
        loop = service.require_ready()
        ask = parse_ask_request(_decode_json(), settings.limits)
        level, ask.trace, ask.trace_id = ask.trace, "full", g.request_id
        with service.lock:
            body = loop.run(ask)
        metrics.record_answer(body, time.perf_counter() - g.started)
        g.log_extra = {"answer_status": body["status"], "attempts": len(body["attempts"]),
                       "config_version": body["config_version"], "timing": body["timing"]}
        return jsonify(shape_trace(body, level))

    @app.get("/healthz")
    def healthz():
        """Liveness: the process is up and answering HTTP."""
        return jsonify({"status": "ok", "pid": os.getpid()})

    @app.get("/readyz")
    def readyz():
        """Readiness: 200 when models, indexes and a valid router config are loaded; 503 and why otherwise."""
        ready, body = service.readiness()
        return jsonify(body), 200 if ready else 503

    @app.get("/metrics")
    def metrics_endpoint():
        """Prometheus exposition, every worker's values (a fresh registry per scrape)."""
        data, content_type = metrics.exposition()
        return Response(data, content_type=content_type)

    @app.get("/kb")
    def knowledge_bases():
        """The served knowledge bases: counts, build time, embedder, index type."""
        loop = service.require_ready()
        return jsonify({"knowledge_bases": [kb.describe() for kb in loop.retriever.knowledge_bases.values()],
                        "config_version": service.watcher.current.version})

    @app.get("/openapi.json")
    def openapi():
        """The OpenAPI 3.1 description of this API."""
        return jsonify(build_openapi(settings.limits))

    return app
