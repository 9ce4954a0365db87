"""Reading a request body: at most the limit, within one deadline for the whole body, decoded as JSON.

Shared by POST /rag and POST /v1/chat/completions; every failure is a RequestError subclass
(400, 408, 413) naming the field "body". The body timeout bounds the whole body, not each
read (deadline.py), so a client dripping bytes cannot hold a worker thread past it.
"""

from __future__ import annotations

import json
from typing import Any

from flask import request

from core.errors import PayloadTooLarge, RequestError, RequestTimeout

from .deadline import BodyDeadline
from .schemas import MAX_JSON_DEPTH


def read_body(limit: int, timeout: float = 10.0) -> bytes:
    """The request body, at most `limit` bytes; PayloadTooLarge (413) beyond, chunked or not;
    RequestTimeout (408) when the whole body has not arrived `timeout` seconds after reading began.

    werkzeug enforces MAX_CONTENT_LENGTH on a declared Content-Length, but a chunked body
    (no length) was silently cut at the limit and answered; here both are refused alike.
    """
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"the request body is {request.content_length} bytes; the limit is {limit} bytes",
                              field="body")
    # werkzeug's stream stops quietly at MAX_CONTENT_LENGTH when no length is declared and turns
    # a read timeout into a generic 400, so the body is read from the server's own input
    # (gunicorn decodes chunks and stops at a declared Content-Length)
    stream = request.environ["wsgi.input"]
    with BodyDeadline(request.environ.get("gunicorn.socket"), timeout) as deadline:
        try:
            raw = stream.read(limit + 1)
        except (TimeoutError, OSError) as exc:
            raise RequestTimeout(f"the request body did not arrive within {timeout:g} s "
                                 f"({type(exc).__name__}); send it whole", field="body") from None
    if deadline.expired:
        raise RequestTimeout(f"the request body did not arrive within {timeout:g} s (the whole body "
                             f"has one deadline; {len(raw)} bytes came); send it whole", field="body")
    if len(raw) > limit:
        raise PayloadTooLarge(f"the request body is larger than the limit of {limit} bytes", field="body")
    if request.content_length is not None and len(raw) < request.content_length:
        raise RequestTimeout(f"the request body ended after {len(raw)} of the {request.content_length} bytes "
                             "its Content-Length announced; send it whole", field="body")
    return raw


def decode_json(limit: int, timeout: float = 10.0, *, example: str) -> Any:
    """The request body as JSON; RequestError (400, field "body") says where it is malformed, and
    for an empty body shows `example`, a body of the endpoint that reads it."""
    raw = read_body(limit, timeout)
    if not raw.strip():
        raise RequestError(f"the request body is empty; send a JSON object such as {example}", field="body")
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
