"""The `filters` of a question request (POST /rag, and the chat API's `sightline` options).

A time window must be a window: a `time_end` before `time_start` selects nothing, so it is
refused with a 400 naming the field and the fix rather than answered "insufficient".
"""

from __future__ import annotations

import pytest

from core.errors import RequestError
from server.http.chat import parse_chat_request
from server.http.openapi import build_openapi
from server.http.schemas import RequestLimits, parse_ask_request

BACKWARDS = {"time_start": "2025-06-30", "time_end": "2025-01-01"}


def test_a_time_end_before_time_start_is_refused_naming_the_field_and_the_fix():
    with pytest.raises(RequestError) as caught:
        parse_ask_request({"query": "closed test reports", "filters": BACKWARDS})
    error = caught.value
    assert error.http_status == 400 and error.code == "bad_request"
    assert error.field == "filters.time_end"
    assert "2025-01-01" in error.message and "2025-06-30" in error.message
    assert "on or after" in error.message


def test_date_times_are_compared_by_their_dates():
    # the same day, later and earlier hours: one day's window, not a backwards one
    ask = parse_ask_request({"query": "x", "filters": {"time_start": "2025-06-30T18:00:00Z",
                                                       "time_end": "2025-06-30T08:00:00Z"}})
    assert ask.filters == {"time_start": "2025-06-30", "time_end": "2025-06-30"}
    with pytest.raises(RequestError, match="on or after"):
        parse_ask_request({"query": "x", "filters": {"time_start": "2025-07-01T00:00:00Z",
                                                     "time_end": "2025-06-30T23:59:59Z"}})


@pytest.mark.parametrize("window", [
    {"time_start": "2025-01-01", "time_end": "2025-06-30"},
    {"time_start": "2025-06-30", "time_end": "2025-06-30"},
    {"time_start": "2025-06-30"},
    {"time_end": "2025-01-01"},
    {"time_start": "2025-06-30", "time_end": None},
])
def test_ordered_open_and_one_day_windows_are_accepted(window):
    ask = parse_ask_request({"query": "x", "filters": window})
    given = {key: value for key, value in window.items() if value is not None}
    assert {key: value for key, value in ask.filters.items() if value is not None} == given


def test_the_chat_api_refuses_it_under_its_sightline_name():
    body = {"model": "sightline", "messages": [{"role": "user", "content": "closed test reports"}],
            "sightline": {"filters": BACKWARDS}}
    with pytest.raises(RequestError, match="on or after") as caught:
        parse_chat_request(body, RequestLimits())
    assert caught.value.field == "sightline.filters.time_end"
    assert "'sightline.filters.time_end'" in caught.value.message


def test_openapi_says_time_end_is_on_or_after_time_start():
    filters = build_openapi(RequestLimits())["components"]["schemas"]["RagRequest"]["properties"]["filters"]
    assert "on or after time_start" in filters["properties"]["time_end"]["description"]
    assert "inclusive" in filters["properties"]["time_start"]["description"].lower()
