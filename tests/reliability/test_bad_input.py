"""The bad-input table: inputs that once gave 500s or were silently accepted, over real gunicorn.

Each row was found by probing the service. Before: deeply nested JSON, a 5,000-digit
integer and lone surrogates were 500 (the error handler itself crashed on a surrogate in
`kb`); lenient `now` values were truncated to 10 characters and accepted; a chunked body over
the limit was cut to 64 KB and answered; `kb` names with path separators reached the disk.
After: a 4xx with a JSON error naming the field.
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.slow

DEEP = 1200
BAD_BODIES = [  # (name, raw JSON body, status, field)
    ("nested body", "[" * DEEP + "]" * DEEP, 400, "body"),
    ("nested filters", '{"query": "x", "filters": ' + '{"a": ' * DEEP + "1" + "}" * DEEP + "}", 400, "body"),
    ("nested kb", '{"query": "x", "kb": ' + "[" * DEEP + "]" * DEEP + "}", 400, "body"),
    ("nested kb, shallow enough to parse", '{"query": "x", "kb": ' + "[" * 100 + "]" * 100 + "}", 400, "kb"),
    ("5000-digit integer", '{"query": "x", "top_k": ' + "9" * 5000 + "}", 400, "body"),
    ("4000-digit integer", '{"query": "x", "top_k": ' + "9" * 4000 + "}", 400, "top_k"),
    ("surrogate in query", '{"query": "\\ud800"}', 400, "query"),
    ("surrogate in filters.source", '{"query": "x", "filters": {"source": ["\\ud800"]}}', 400, "filters.source[0]"),
    ("surrogate in kb", '{"query": "x", "kb": "\\ud800"}', 400, "kb"),
    ("surrogate in a field name", '{"query": "x", "\\udc00": 1}', 400, "body"),
    ("now with trailing text", '{"query": "x", "now": "2025-07-10garbage"}', 400, "now"),
    ("now with a NUL", '{"query": "x", "now": "2025-07-10\\u0000x"}', 400, "now"),
    ("now with an impossible time", '{"query": "x", "now": "2025-07-10T25:99:99"}', 400, "now"),
    ("now in basic format", '{"query": "x", "now": "20250710"}', 400, "now"),
    ("filters.time_start with trailing text", '{"query": "x", "filters": {"time_start": "2025-01-01zz"}}', 400,
     "filters.time_start"),
    ("kb with a path", '{"query": "x", "kb": "../policies"}', 400, "kb"),
    ("kb with a space", '{"query": "x", "kb": ["manuals", "bad name"]}', 400, "kb[1]"),
]


def _post(live, body: bytes, headers: dict | None = None, chunked: bool = False):
    parts = urlsplit(live.url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        headers = {"Content-Type": "application/json", **(headers or {})}
        if chunked:
            conn.putrequest("POST", "/rag")
            for name, value in dict(headers, **{"Transfer-Encoding": "chunked"}).items():
                conn.putheader(name, value)
            conn.endheaders()
            for start in range(0, len(body), 8192):
                piece = body[start:start + 8192]
                conn.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            conn.send(b"0\r\n\r\n")
        else:
            conn.request("POST", "/rag", body=body, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read().decode("utf-8"))
    finally:
        conn.close()


@pytest.mark.parametrize("name, body, status, field", BAD_BODIES, ids=[row[0] for row in BAD_BODIES])
def test_bad_input_is_a_4xx_naming_the_field(secured, name, body, status, field):
    code, error = _post(secured.live, body.encode("utf-8"))
    assert code == status, error
    assert error["error"]["field"] == field
    assert error["error"]["message"]


@pytest.mark.parametrize("value", ["2025-07-10", "2025-07-10T08:30:00Z", "2025-07-10T08:30:00+02:00"])
def test_iso_dates_and_datetimes_are_accepted_for_now(secured, value):
    code, body = _post(secured.live, json.dumps({"query": "What triggers error code E4027?", "now": value,
                                                 "trace": "none"}).encode())
    assert code == 200, body
    assert body["perception"]["query"]


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_body_over_the_limit_is_413_however_it_is_sent(secured, chunked):
    body = json.dumps({"query": "What triggers error code E4027? " + " " * 70_000}).encode()
    code, error = _post(secured.live, body, chunked=chunked)
    assert code == 413, error
    assert error["error"]["code"] == "payload_too_large" and error["error"]["field"] == "body"


def test_a_chunked_body_under_the_limit_is_answered(secured):
    body = json.dumps({"query": "What triggers error code E4027?", "now": "2025-07-01", "trace": "none"}).encode()
    code, answer = _post(secured.live, body, chunked=True)
    assert code == 200 and answer["status"] in ("answered", "partial")


def test_paths_in_not_ready_errors_are_shown_to_the_admin_only(demo_kbs, tmp_path):
    """A service over an empty data directory is not ready; only the admin sees where it looked."""
    from dataclasses import replace

    from tests.live import ADMIN_TOKEN, start_service

    empty = replace(demo_kbs, data_dir=tmp_path / "no-data")
    live = start_service(empty, tmp_path, wait=False)
    try:
        import time

        deadline = time.monotonic() + 90
        while True:
            try:
                status, _h, ready = live.request("GET", "/readyz")
                break
            except OSError:
                assert time.monotonic() < deadline and live.process.poll() is None, live.log.read_text()[-3000:]
                time.sleep(0.5)
        assert status == 503
        public = json.dumps(ready) + json.dumps(live.request("POST", "/rag", {"query": "x"})[2])
        assert str(tmp_path) not in public and "<data>" in public or "<path>" in public
        _s, _h, admin_view = live.request("GET", "/readyz", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert str(tmp_path / "no-data") in json.dumps(admin_view)
    finally:
        live.stop()


def _read_reply(sock) -> str:
    """One whole HTTP response from a raw socket (headers and the Content-Length body may come apart)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return data.decode("utf-8", "replace")
        data += chunk
    head, _sep, body = data.partition(b"\r\n\r\n")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return (head + b"\r\n\r\n" + body).decode("utf-8", "replace")


def test_stalled_clients_do_not_stop_the_service_and_get_408(secured):
    """Clients that send headers and never finish the body held both sync workers for 60 s."""
    import socket
    import time

    parts = urlsplit(secured.live.url)
    stalled = []
    for _ in range(3):  # more stalled clients than workers
        sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        sock.sendall(b"POST /rag HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 500\r\n\r\n{\"query\": ")
        stalled.append(sock)
    try:
        time.sleep(0.5)
        status, _h, body = secured.live.request("POST", "/rag", {"query": "What triggers error code E4027?",
                                                                 "now": "2025-07-01", "trace": "none"}, timeout=8)
        assert status == 200, body
        replies = [_read_reply(sock) for sock in stalled]
        assert all(reply.startswith("HTTP/1.1 408") and "request_timeout" in reply for reply in replies), replies
    finally:
        for sock in stalled:
            sock.close()
