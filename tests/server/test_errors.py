"""Every error comes back as {"error": {code, message, field}} with the right status, never HTML."""

from __future__ import annotations

import pytest

from .conftest import NOW


def _error(response, status):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    assert "<html" not in response.get_data(as_text=True).lower()
    assert "Traceback" not in response.get_data(as_text=True)
    return response.json["error"]


@pytest.mark.parametrize("body, field, words", [
    (b'{"query": "A320 fuel', "body", "not valid JSON"),
    (b"", "body", "empty"),
    (b'["a list"]', "body", "JSON object"),
    (b'{"query": 42}', "query", "must be a string"),
    (b'{"query": "x", "top_k": "5"}', "top_k", "integer"),
    (b'{"query": "x", "top_k": 500}', "top_k", "between 1 and 50"),
    (b'{"query": "x", "max_retries": -1}', "max_retries", "between 0 and 5"),
    (b'{"query": "x", "now": "July"}', "now", "ISO date"),
    (b'{"query": "x", "trace": "loud"}', "trace", "none, summary, full"),
    (b'{"query": "x", "filters": {"colour": "red"}}', "filters.colour", "allowed"),
    (b'{"query": "x", "filters": {"time_start": "2025-06-30", "time_end": "2025-01-01"}}', "filters.time_end",
     "on or after"),
    (b'{"question": "x"}', "question", "unknown field"),
    (b'{"query": "   "}', "query", "empty"),
])
def test_bad_requests_name_the_field(client, body, field, words):
    error = _error(client.post("/rag", data=body, content_type="application/json"), 400)
    assert error["field"] == field
    assert words in error["message"]
    assert error["code"] == "bad_request"


def test_query_over_the_length_limit_gives_the_limit(client):
    error = _error(client.post("/rag", json={"query": "fuel " * 500}), 400)
    assert error["field"] == "query" and "limit is 2000" in error["message"]


def test_unknown_kb_is_404_listing_the_known_ones(client):
    error = _error(client.post("/rag", json={"query": "fuel burn", "kb": ["regs"], "now": NOW}), 404)
    assert error["code"] == "unknown_kb" and error["field"] == "kb"
    assert "manuals, policies, reports" in error["message"]


def test_oversized_body_is_413(client):
    error = _error(client.post("/rag", data=b'{"query": "' + b"x" * 70000 + b'"}',
                               content_type="application/json"), 413)
    assert error["code"] == "payload_too_large" and "65536 bytes" in error["message"]


def test_wrong_method_is_405_with_allowed_methods(client):
    response = client.get("/rag")
    error = _error(response, 405)
    assert "POST" in error["message"] and "POST" in response.headers["Allow"]
    _error(client.post("/healthz"), 405)


def test_unknown_path_is_404_json(client):
    assert _error(client.get("/ragz"), 404)["code"] == "not_found"


def test_unexpected_exception_is_500_without_traceback(client, answer_loop, monkeypatch):
    def boom(_request):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(answer_loop, "answer", boom)
    response = client.post("/rag", json={"query": "fuel"}, headers={"X-Request-ID": "req-500"})
    error = _error(response, 500)
    assert error["code"] == "internal_error" and "req-500" in error["message"]
    assert "secret" not in error["message"]


def _error_classes():
    import inspect

    from core import errors

    return [cls for _name, cls in inspect.getmembers(errors, inspect.isclass)
            if issubclass(cls, errors.SightlineError)]


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_class_reaches_the_caller_with_its_own_status_and_code(cls):
    """One handler, no table: the class says its status (a 401 also says how to authenticate)."""
    from flask import Flask

    from server.http.errors import register_error_handlers

    app = Flask("errors")
    register_error_handlers(app)

    @app.route("/boom")
    def boom():
        extra = {"Unauthenticated": ("reason",), "NoUsableDocuments": ({"skipped": []},)}.get(cls.__name__, ())
        raise cls("what went wrong", *extra)

    response = app.test_client().get("/boom")
    assert response.status_code == cls.http_status
    code = "reason" if cls.__name__ == "Unauthenticated" else cls.code  # a 401 says which credential failed
    assert response.json["error"]["code"] == code and response.json["error"]["message"] == "what went wrong"
    assert (response.headers.get("WWW-Authenticate") is not None) == (cls.http_status == 401)
