"""Asking a running service: POST URL/rag for `sightline ask --server URL`.

The API key goes to the URL given and nowhere else: no redirect is followed (urllib would
follow one and copy the Authorization header to whatever host the Location names), so a 3xx
is reported with where it pointed. Every other failure (unreachable, timeout, an error status,
a reply that is not JSON or not a /rag body) is one SightlineError, shown as one line.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urljoin, urlsplit

from core.errors import SightlineError

from .reply import reply_problem

SERVER_ENV = "SIGHTLINE_URL"
API_KEY_ENV = "SIGHTLINE_API_KEY"
SERVER_TIMEOUT = 120.0  # seconds: a cold service may still be loading its models


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: the 3xx reaches the caller as an HTTPError."""

    def redirect_request(self, req, fp, code, msg, headers, newurl) -> None:  # urllib's signature
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


def check_server_url(url: str) -> str:
    """The /rag endpoint of a service's base URL.

    Raises:
        SightlineError: the URL is not http(s)://host[:port][/path] (the message shows the form).
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SightlineError(f"--server {url!r} is not a service URL; give it as http://HOST:PORT "
                             f"(or https://...), e.g. http://127.0.0.1:8000 (also {SERVER_ENV})", field="server")
    return url.strip().rstrip("/") + "/rag"


def ask_server(url: str, body: dict[str, Any], api_key: str | None = None, with_trace: bool = True,
               timeout: float = SERVER_TIMEOUT) -> dict[str, Any]:
    """The reply of a running service's POST /rag.

    Promises: the request (and the key) goes to `url` only, never where a redirect points; the
    reply returned has every field `sightline ask` prints (`reply.reply_problem`, the trace's
    fields too when `with_trace`).

    Raises:
        SightlineError: one line saying what went wrong at which URL: unreachable, no answer in
            time, an error status (the service's own message when it sent one), a redirect (and
            where to), or a reply that is not JSON or not a /rag body.
    """
    endpoint = check_server_url(url)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(endpoint, data=json.dumps(body, ensure_ascii=False).encode("utf-8"),
                                     headers=headers, method="POST")
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        raise SightlineError(f"{endpoint}: {_status_error(exc, endpoint)}", field="server") from exc
    except urllib.error.URLError as exc:
        raise SightlineError(f"{endpoint}: cannot reach the service ({exc.reason}); is `sightline serve` "
                             f"running there?", field="server") from exc
    except (TimeoutError, OSError, http.client.HTTPException) as exc:
        raise SightlineError(f"{endpoint}: no answer ({type(exc).__name__}: {exc})", field="server") from exc
    return _parsed(raw, endpoint, with_trace)


def _parsed(raw: bytes, endpoint: str, with_trace: bool) -> dict[str, Any]:
    """The reply as a /rag body, or SightlineError naming what is wrong with it."""
    try:
        reply = json.loads(raw.decode("utf-8"))
    except ValueError:
        start = raw[:60].decode("utf-8", errors="replace").replace("\n", " ").strip()
        raise SightlineError(f"{endpoint}: malformed reply: not JSON ({len(raw)} bytes: {start!r}); is this URL a "
                             f"Sightline service?", field="server") from None
    problem = reply_problem(reply, with_trace)
    if problem:
        raise SightlineError(f"{endpoint}: malformed reply: {problem}; is this URL a Sightline service of this "
                             f"version?", field="server")
    return reply


def _status_error(exc: urllib.error.HTTPError, endpoint: str) -> str:
    """One line for an error status: where a redirect pointed, else the service's own message."""
    if 300 <= exc.code < 400:
        target = urljoin(endpoint, exc.headers.get("Location") or "") if exc.headers.get("Location") else "nowhere"
        return (f"the service redirected (HTTP {exc.code}) to {target}; not followed, so the API key went to "
                f"no other address: if that is the service, pass its base URL to --server")
    try:
        error = json.loads(exc.read().decode("utf-8")).get("error", {})
        message, field = str(error["message"]), error.get("field")
    except (ValueError, KeyError, TypeError, AttributeError, OSError, http.client.HTTPException):
        return f"HTTP {exc.code} {exc.reason}"
    return f"{message} (HTTP {exc.code}" + (f", field {field})" if field else ")")
