"""The context of the HTTP request being served, as far as it is known before its body is read."""

from __future__ import annotations

from flask import g, request

from ..context import Arrival, RequestContext
from ..traceparent import HEADER, TraceParent


def request_context(endpoint: str) -> RequestContext:
    """The context of this request: its caller (resolved before the handler ran), its request id
    as trace id, its arrival (read when the request began) and the caller's `traceparent`.

    Promises: `now` is the arrival's UTC date; the body's `now` and trace level, and the chat
    API's profile, replace theirs when the body is parsed (server/http/schemas.py, chat.py).
    """
    arrival = g.get("arrival") or Arrival.now()
    return RequestContext.create(caller=g.caller, trace_id=g.request_id, endpoint=endpoint, arrival=arrival,
                                 parent=TraceParent.parse(request.headers.get(HEADER)))
