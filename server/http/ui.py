"""`/ui`: ask a question and see why, in a browser, from the service itself (no build step, no CDN).

- `GET /ui`: the page: an API-key field, the question, the knowledge bases. Its script asks
  `POST /ui/answer` itself, with the key the user typed in the `Authorization` header (a key
  never goes in a URL), and puts the trace page it answers with in place.
- `POST /ui/answer` (server/http/app.py): `POST /rag`'s request, caller, limits, errors (JSON)
  and answering; its reply is the answer's trace page, rendered from the answer in memory
  (`answer_page`), so it needs no second request and no trace store: behind a load balancer it
  is the answering host's page, and with the store off the answer is still shown.
  `X-Sightline-Trace-Stored` says whether the trace was kept for `/ui/trace/<id>`.
- `POST /rag` and `POST /ui/answer` keep the full trace of every answer (`keep_trace`, whatever
  trace level the reply shows).
- `GET /ui/trace/<id>`: a stored trace (server/traces.py) of this host, shown only to the caller
  that asked (same key name, kind and groups) or the admin (`SIGHTLINE_ADMIN_TOKEN`); an
  anonymous caller's trace holds public documents only and is shown to anyone who has its id.
  A browser that opens the address sends no key: the page then offers the key field, and the
  script asks again with the key in the header.

Every page is rendered by Jinja with autoescaping (templates in server/templates/ui/): what a
trace quotes (document text, a model's rejected claim) is always text, never markup. Pages
carry a Content-Security-Policy that allows only this service's own script and stylesheet
(server/static/ui/), so even a tag that escaped would not run, and no outside image loads.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, current_app, g, render_template, request, send_from_directory
from werkzeug.exceptions import NotFound

from core.errors import TooManyAttempts, TraceNotFound, Unauthenticated
from orchestration import paths

from .. import metrics
from ..admin_token import token_matches
from ..callers import Caller
from ..settings import ServiceSettings
from ..trace_sources import trace_content
from ..traces import StoredTrace, TraceStore, may_view
from ..ui.page import trace_page

log = logging.getLogger("sightline.ui")
STORE = "sightline_traces"  # app.extensions key of the TraceStore
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")

STATIC = Path(__file__).resolve().parents[1] / "static" / "ui"
# the only files /ui/static serves, each with its type (not guessed from the host's mime tables)
STATIC_TYPES = {"ui.js": "text/javascript", "ui.css": "text/css", "favicon.svg": "image/svg+xml"}

ANSWER_PATH = "/ui/answer"  # takes /rag's request: its errors are /rag's JSON, not pages
STORED_HEADER = "X-Sightline-Trace-Stored"  # on ANSWER_PATH's reply: true or false

ui = Blueprint("ui", __name__, url_prefix="/ui", template_folder="../templates")


def _under_ui(path: str) -> bool:
    """Whether a request path is under /ui (the pages' security headers apply)."""
    return path == "/ui" or path.startswith("/ui/")


def is_ui_path(path: str) -> bool:
    """Whether a request path is one of the /ui pages, whose errors are pages too: every path
    under /ui but ANSWER_PATH, whose errors are /rag's JSON."""
    return _under_ui(path) and path != ANSWER_PATH


PAGES = ("ui/ask.html", "ui/trace.html", "ui/error.html")


def register_ui(app: Flask, settings: ServiceSettings) -> None:
    """Install the /ui pages and the trace store (`<data dir>/traces`, bounded by the settings).

    The templates are compiled here, once, before gunicorn forks (~0.1 s): no first visitor of a
    worker waits for it.
    """
    app.extensions[STORE] = TraceStore(paths.data_dir() / "traces", settings.trace_limits)
    app.register_blueprint(ui)
    for name in PAGES:
        app.jinja_env.get_template(name)


def _service() -> Any:
    return current_app.extensions["sightline"]


def _trace_content(result: Any) -> dict[str, Any]:
    """What the store keeps for an answer (an AnswerResult): its full-trace body, the chunks its
    page quotes as its caller may read them, and the builds searched (server/trace_sources.py)."""
    body, caller = result.to_body("full"), result.context.caller
    service = _service()
    with service.lock:  # builds switch under this lock: read the chunks from the build that answered
        return trace_content(body, service.loop.retriever.knowledge_bases, caller.acl_groups)


def _put(store: TraceStore, result: Any, content: dict[str, Any]) -> bool:
    """Store `content` under the answer's trace id, owned by the caller of its request context;
    False (a write error logged) when the store refuses the id or cannot write."""
    try:
        return store.put(content["body"]["trace_id"], result.context.caller.to_dict(), content)
    except OSError as exc:
        log.warning("trace not kept: %s", exc, extra={"event": "trace_store", "result": "error"})
        return False


def keep_trace(result: Any) -> bool:
    """Store the full trace of an answer (an AnswerResult) for /ui/trace/<id>, owned by the caller
    of its request context.

    Promises: the chunks the page quotes are read through the caller's ACL (server/trace_sources.py);
    a store that is off, refuses the id (another caller's) or cannot write (a full disk) costs
    the answer nothing: False (a write error is logged).
    """
    store = _store()
    if not store.enabled:
        return False
    return _put(store, result, _trace_content(result))


def answer_page(result: Any) -> tuple[str, bool]:
    """The trace page of an answer (an AnswerResult), rendered from the answer in memory, and
    whether its trace was kept for /ui/trace/<id> (as `keep_trace` keeps it).

    Promises: the page is built from the content `keep_trace` stores (the chunks read through
    the caller's ACL), so it equals the page /ui/trace/<id> shows of the stored record; it is
    rendered whether or not the store is on, accepts the id or can write.
    """
    store = _store()
    content = _trace_content(result)
    stored = store.enabled and _put(store, result, content)
    record = StoredTrace(content["body"]["trace_id"], result.context.caller.to_dict(), store.clock(), content)
    html = render_template("ui/trace.html", page=trace_page(record), kbs=_knowledge_bases(), keeping=store.enabled,
                           stored=stored)
    return html, stored


@ui.after_app_request
def _headers(response: Response) -> Response:
    """The pages' security headers: only this service's own script and style run or load."""
    if _under_ui(request.path):
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        if not request.path.startswith("/ui/static/"):
            response.headers["Cache-Control"] = "no-store"  # a trace is one caller's
    return response


def _store() -> TraceStore:
    return current_app.extensions[STORE]


def _knowledge_bases() -> list[str]:
    loop = _service().loop
    return sorted(loop.retriever.knowledge_bases) if loop is not None else []


@ui.get("/static/<name>")
def static_file(name: str):
    """The pages' own script, stylesheet and icon (nothing else: 404)."""
    if name not in STATIC_TYPES:
        raise NotFound()
    return send_from_directory(STATIC, name, mimetype=STATIC_TYPES[name], max_age=300)


@ui.get("")
def ask_page():
    """The page to ask from: key, question, knowledge bases."""
    return render_template("ui/ask.html", kbs=_knowledge_bases(), keeping=_store().enabled)


def _viewer() -> tuple[Caller | None, bool]:
    """Who opens a trace: (the caller, False), (None, True) for the admin token, (None, False)
    for a request without a key where keyless callers are refused.

    A wrong bearer here may be a guess at the admin token, so it counts toward the address's
    admin lock-out (server/auth_throttle.py) like a wrong token on /admin.

    Raises:
        TooManyAttempts: the address is locked out (429).
        Unauthenticated: a malformed or unknown key (401).
    """
    service = _service()
    authorization = request.headers.get("Authorization")
    client = request.remote_addr or "unknown"
    guarded = bool(authorization) and bool(service.admin_token)
    if guarded:
        wait = service.admin_throttle.retry_after(client)
        if wait:
            metrics.record_auth_failure("admin_throttled")
            raise TooManyAttempts(f"too many failed attempts from this address; try again in {wait} s",
                                  retry_after=wait)
        if token_matches(authorization or "", service.admin_token):
            service.admin_throttle.succeeded(client)
            return None, True
    try:
        caller = service.resolve_caller(request.headers)
    except Unauthenticated as exc:
        if exc.reason == "missing_key":
            return None, False
        metrics.record_auth_failure(exc.reason)
        if guarded:
            service.admin_throttle.failed(client)
        raise
    g.caller = caller
    return caller, False


@ui.get("/trace/<trace_id>")
def trace(trace_id: str):
    """A stored trace, to the caller that asked or the admin; 404 to anyone else, as if absent."""
    viewer, admin = _viewer()
    store = _store()
    record = store.get(trace_id)
    if record is None or not may_view(record.owner, viewer.to_dict() if viewer else None, admin):
        hours = store.limits.max_age_seconds / 3600
        raise TraceNotFound(f"no stored trace with this id that you may see: a trace is shown to the API key "
                            f"that asked (enter it above) or the admin, and kept {hours:g} hours at most")
    return render_template("ui/trace.html", page=trace_page(record), kbs=_knowledge_bases(), keeping=store.enabled,
                           stored=True)
