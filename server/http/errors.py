"""One place that turns every error into `{"error": {"code", "message", "field"?}}` and a status.

Under /ui (the pages, ui.py) an error is a page saying the same (code, message, field), so a
person sees it where they were; everywhere else, and on `POST /ui/answer` (the ask page's
script reads its errors as /rag's), it is JSON.

Under /v1/ (the OpenAI-compatible API, chat.py) the same errors take OpenAI's shape,
`{"error": {"message", "type", "param", "code"}}`: `param` is the field, `type` follows the status
(OPENAI_TYPES), `code` is ours except where OpenAI's clients know another (OPENAI_CODES: an
unknown key is `invalid_api_key`, a malformed one `malformed_key`). Statuses are the same on
every path: 400 bad request, 401 bad key, 404 unknown model, 413 too large, 429 too many failed
admin attempts, 503 not ready.

Sightline's errors carry their own status (core/errors.py); werkzeug's HTTP
errors (unknown route, wrong method, body over the limit, undecodable body) get the same
body shape; anything else is a 500 whose body names the request id and whose traceback goes
to the JSON log, never to the caller.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from flask import Flask, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed, RequestEntityTooLarge

from core.errors import SightlineError
from orchestration import paths

from ..admin_token import token_matches
from ..logs import request_id_var
from .ui import is_ui_path

log = logging.getLogger("sightline.errors")

# werkzeug status -> our error code
HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type",
              422: "unprocessable", 429: "too_many_requests", 500: "internal_error", 503: "unavailable"}


# OpenAI's error `type` by status (their API uses invalid_request_error for every 4xx it documents)
OPENAI_TYPES = {401: "invalid_request_error", 403: "permission_error", 429: "rate_limit_error"}
OPENAI_CODES = {"unknown_key": "invalid_api_key"}
OPENAI_PREFIX = "/v1/"

ABSOLUTE_PATH = re.compile(r"(?<![\w.:/>-])/(?:[^\s'\"`,;:()\[\]]+/?)+")


def is_admin_request() -> bool:
    """True when the request carries the service's admin bearer token (constant-time compare)."""
    service = current_app.extensions.get("sightline") if current_app else None
    return token_matches(request.headers.get("Authorization", ""), getattr(service, "admin_token", None))


def redact_text(text: str) -> str:
    """`text` with filesystem paths replaced: data and config dirs by <data>/<config>, others by <path>.

    Absolute paths tell an outside caller how the host is laid out; the admin sees them whole.
    """
    for root, name in ((paths.data_dir(), "<data>"), (paths.config_dir(), "<config>"), (paths.REPO_ROOT, "<app>")):
        text = text.replace(str(root), name)
    return ABSOLUTE_PATH.sub("<path>", text)


def redact(value: Any) -> Any:
    """A JSON-like value with every string passed through redact_text."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def _safe(text: str | None) -> str | None:
    """Text that can be encoded as UTF-8 (a lone surrogate escaped), so the error body always renders."""
    return None if text is None else text.encode("utf-8", "backslashreplace").decode("utf-8")


def status_for(error: SightlineError) -> int:
    """The HTTP status of a Sightline error: its class says it (core/errors.py)."""
    return error.http_status


def error_response(code: str, message: str, status: int, field: str | None = None, headers=None):
    """An error response in the one shape of its path: a page under /ui (`is_ui_path`), OpenAI's JSON under /v1/,
    `{"error": {"code", "message", "field"?}}` everywhere else."""
    message, field = _safe(message) or "", _safe(field)
    if status >= 500 and not is_admin_request():
        message = redact_text(message)
        field = redact_text(field) if field else field
    if is_ui_path(request.path):
        response = current_app.make_response(render_template("ui/error.html", code=code, message=message,
                                                              field=field, status=status))
    else:
        if request.path.startswith(OPENAI_PREFIX):
            kind = OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
            body: dict[str, Any] = {"message": message, "type": kind, "param": field,
                                    "code": OPENAI_CODES.get(code, code)}
        else:
            body = {"code": code, "message": message}
            if field is not None:
                body["field"] = field
        response = jsonify({"error": body})
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _sightline(error: SightlineError):
    status = status_for(error)
    level = logging.ERROR if status >= 500 else logging.INFO
    log.log(level, _safe(error.message), extra={"error_code": error.code, "field": _safe(error.field),
                                         "path": request.path, "status": status})
    headers = {"WWW-Authenticate": error.challenge} if error.challenge else {}
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    return error_response(error.code, error.message, status, error.field, headers)


def _http(error: HTTPException):
    status = error.code or 500
    code = HTTP_CODES.get(status, "http_error")
    field = None
    headers = {}
    if isinstance(error, MethodNotAllowed):
        allowed = sorted(m for m in (error.valid_methods or []) if m not in ("HEAD", "OPTIONS"))
        message = f"{request.method} is not allowed on {request.path}; allowed: {', '.join(allowed)}"
        headers["Allow"] = ", ".join(error.valid_methods or [])
    elif isinstance(error, RequestEntityTooLarge):
        limit = request.max_content_length
        message = f"the request body is larger than the limit of {limit} bytes" if limit else \
            "the request body is too large"
        field = "body"
    elif status == 404:
        message = f"no endpoint at {request.path}; see GET /openapi.json for the API"
    else:
        message = error.description or error.name
    log.info(message, extra={"error_code": code, "path": request.path, "status": status})
    return error_response(code, message, status, field, headers)


def _unexpected(error: Exception):
    log.exception("unhandled error on %s", request.path, extra={"status": 500})
    return error_response("internal_error", f"internal error; quote request id {request_id_var.get()} "
                          "when reporting it (the details are in the service log)", 500)


def register_error_handlers(app: Flask) -> None:
    """Install the handlers on an app: Sightline errors, HTTP errors, then everything else."""
    app.register_error_handler(SightlineError, _sightline)
    app.register_error_handler(HTTPException, _http)
    app.register_error_handler(Exception, _unexpected)
