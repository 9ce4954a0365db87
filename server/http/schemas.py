"""Validating a question request (HTTP body or CLI arguments) into an AskRequest.

Every error names the field, what was wrong and the limit or the allowed values, so a caller
can fix the request without reading code.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Any

from core.errors import RequestError
from core.names import check_name
from orchestration.retrieval.filters import Filters

from ..context import RequestContext
from ..loop import TRACE_LEVELS, AskRequest

# A character that makes a query non-empty: not whitespace, not a C0/C1 control, not a BOM.
# The same class is the OpenAPI pattern of `query`, so schema and server agree on "empty".
TEXT_CHARACTER = r"[^\s\u0000-\u001f\u007f-\u009f\ufeff]"
_TEXT = re.compile(TEXT_CHARACTER)


def has_text(value: str) -> bool:
    """Whether a string holds at least one character that is not whitespace or a control character."""
    return _TEXT.search(value) is not None

FIELDS = ("query", "kb", "now", "filters", "top_k", "max_retries", "trace")
FILTER_FIELDS = ("time_start", "time_end", "status", "doc_type", "source", "exclude_status", "keep_undated")


@dataclass(frozen=True)
class RequestLimits:
    """Request limits (DESIGN.md section 10)."""

    max_query_chars: int = 2000
    max_top_k: int = 50
    max_retries: int = 5
    max_body_bytes: int = 64 * 1024
    body_timeout_seconds: int = 10
    max_messages: int = 64          # POST /v1/chat/completions: messages in one conversation
    max_message_chars: int = 8000   # ... and characters in one message (the question: max_query_chars)


MAX_JSON_DEPTH = 16
SURROGATE = re.compile("[\ud800-\udfff]")
# YYYY-MM-DD, optionally a time (T or space), seconds, fraction and offset: what ISO 8601 callers send
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?\Z")


def check_json_value(value: Any) -> None:
    """Refuse a decoded body that nests deeper than MAX_JSON_DEPTH or holds a lone surrogate.

    Lone surrogates ("\\ud800") are valid JSON escapes but not text: they cannot be encoded
    as UTF-8, so they would fail later in a log line, a tokenizer or the error handler
    itself. Walks iteratively; the error names the field ("filters.source[0]").
    """
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            field = where.split(".")[0].split("[")[0] or "body"
            raise RequestError(f"'{field}' nests more than {MAX_JSON_DEPTH} levels deep; send a flat value",
                               field=field)
        if isinstance(item, str):
            if SURROGATE.search(item):
                raise RequestError(f"'{where or 'body'}' holds a lone UTF-16 surrogate (e.g. \\ud800), which is not "
                                   "text; send valid Unicode", field=where or "body")
        elif isinstance(item, dict):
            for key, child in item.items():
                name = key if not SURROGATE.search(key) else ascii(key)
                if name is not key:
                    raise RequestError(f"a field name holds a lone UTF-16 surrogate: {name}; send valid Unicode",
                                       field="body")
                stack.append((child, f"{where}.{key}" if where else key, depth + 1))
        elif isinstance(item, list):
            for index, child in enumerate(item):
                stack.append((child, f"{where}[{index}]", depth + 1))


def parse_iso_date(value: Any, field: str) -> dt.date:
    """The date of an ISO 8601 date or date-time string; RequestError for anything else.

    Accepts "2025-07-10", "2025-07-10T08:30:00Z", "2025-07-10 08:30+02:00"; refuses trailing
    text, impossible times and the basic form "20250710" (never truncated to fit).
    """
    if not isinstance(value, str):
        raise _type_error(field, "an ISO date string (YYYY-MM-DD)", value)
    try:
        if not ISO_DATE.match(value):
            raise ValueError
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00")) if len(value) > 10 else \
            dt.date.fromisoformat(value)
    except ValueError:
        shown = ascii(value[:40]) + ("..." if len(value) > 40 else "")
        raise RequestError(f"'{field}' is not an ISO date: {shown} (use YYYY-MM-DD, or an ISO date-time such as "
                           "2025-07-10T08:30:00Z)", field=field) from None
    return parsed.date() if isinstance(parsed, dt.datetime) else parsed


def _type_error(field: str, expected: str, value: Any) -> RequestError:
    return RequestError(f"'{field}' must be {expected}, got {type(value).__name__}", field=field)


def _int(body: dict, field: str, low: int, high: int) -> int | None:
    value = body.get(field)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON (and JSON Schema) do not tell 14 from 14.0
    if isinstance(value, bool) or not isinstance(value, int):
        raise _type_error(field, "an integer", value)
    if not low <= value <= high:
        shown = str(value) if abs(value) < 10 ** 12 else f"a {len(str(abs(value)))}-digit number"
        raise RequestError(f"'{field}' must be between {low} and {high}, got {shown}", field=field)
    return value


def _date(value: Any, field: str) -> dt.date:
    return parse_iso_date(value, field)


def _check_window(start: str | None, end: str | None) -> None:
    """Refuse a time window that ends before it starts (ISO dates, compared as dates).

    Both ends are inclusive, so a window of one day (start == end) is a window; one that ends
    earlier selects nothing and is a mistake in the request (usually swapped ends), not a
    question to answer "insufficient".
    """
    if start is not None and end is not None and end < start:
        raise RequestError(f"'filters.time_end' ({end}) is before time_start ({start}), so the window "
                           f"holds no date; send a time_end on or after time_start (both are inclusive; swap "
                           f"them, or leave one out for an open window)", field="filters.time_end")


def _filters(value: Any) -> dict[str, Any] | None:
    """The request's filters, checked: known keys, ISO dates (stored as YYYY-MM-DD), an ordered
    time window, strings or lists of strings, keep_undated a boolean; RequestError names the field."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise _type_error("filters", "an object", value)
    unknown = sorted(set(value) - set(FILTER_FIELDS))
    if unknown:
        raise RequestError(f"unknown filter(s) {', '.join(unknown)}; allowed: {', '.join(FILTER_FIELDS)}",
                           field=f"filters.{unknown[0]}")
    value = dict(value)
    for key in ("time_start", "time_end"):
        if value.get(key) is not None:
            value[key] = _date(value[key], f"filters.{key}").isoformat()
    _check_window(value.get("time_start"), value.get("time_end"))
    for key in ("status", "doc_type", "source", "exclude_status"):
        item = value.get(key)
        if item is None or isinstance(item, str):
            continue
        if not isinstance(item, list) or not all(isinstance(v, str) for v in item):
            raise _type_error(f"filters.{key}", "a string or a list of strings", item)
    if "keep_undated" in value and not isinstance(value["keep_undated"], bool):
        raise _type_error("filters.keep_undated", "true or false", value["keep_undated"])
    Filters.from_dict(value)  # the form the router will build from it
    return value


def parse_ask_request(body: Any, limits: RequestLimits = RequestLimits(),
                      context: RequestContext | None = None) -> AskRequest:
    """An AskRequest from a decoded JSON body; RequestError names the first bad field.

    Args:
        body: the decoded JSON body.
        limits: the request limits.
        context: who asks, under which trace id, since when (server/http/context.py builds it
            from the HTTP request); None: an anonymous caller's, arriving now.

    Promises: the request's context is `context` with the body's `now` (when it has one) and
    `trace` level; it is frozen from here on.
    """
    if not isinstance(body, dict):
        raise RequestError(f"the request body must be a JSON object, got {type(body).__name__}", field="body")
    check_json_value(body)
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise RequestError(f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(FIELDS)}", field=unknown[0])
    query = body.get("query")
    if query is None:
        raise RequestError("'query' is required: the question to answer", field="query")
    if not isinstance(query, str):
        raise _type_error("query", "a string", query)
    if not has_text(query):
        raise RequestError("'query' is empty: send the question text (whitespace and control characters "
                           "alone are not a question)", field="query")
    if len(query) > limits.max_query_chars:
        raise RequestError(f"'query' is {len(query)} characters; the limit is {limits.max_query_chars}",
                           field="query")
    kb = body.get("kb")
    if isinstance(kb, str):
        kb = [kb]
    if kb is not None and (not isinstance(kb, list) or not kb or not all(isinstance(k, str) for k in kb)):
        raise _type_error("kb", "a knowledge base name or a non-empty list of names", kb)
    names = kb or []
    for index, name in enumerate(names):
        check_name(name, "knowledge base name", field="kb" if len(names) == 1 else f"kb[{index}]")
    now = _date(body["now"], "now") if body.get("now") is not None else None
    trace = body.get("trace", "full")
    if trace not in TRACE_LEVELS:
        raise RequestError(f"'trace' must be one of {', '.join(TRACE_LEVELS)}, got {trace!r}", field="trace")
    base = context or RequestContext.create()
    return AskRequest(query=query.strip(), kbs=kb, filters=_filters(body.get("filters")),
                      top_k=_int(body, "top_k", 1, limits.max_top_k),
                      max_retries=_int(body, "max_retries", 0, limits.max_retries),
                      context=replace(base, now=now or base.now, trace_level=trace))
