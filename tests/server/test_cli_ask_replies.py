"""`sightline ask --server` against real local HTTP servers that answer badly.

The findings: a 302 to another host:port received `Authorization: Bearer <key>` (urllib follows
redirects and copies the header), and a 200 body without `trace_id` ended in a traceback. Now
no redirect is followed (the key goes only to the URL given) and every malformed reply is one
line on stderr with exit status 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-test-0123456789abcdef0123456789abcdef"
# A reply the CLI renders: the top-level fields of POST /rag's body (trace=summary)
GOOD = {"trace_id": "t-1", "status": "answered", "answer": "The A320neo burns 2,290 kg per hour. [1]",
        "citations": [{"n": 1, "chunk_id": "a320#0", "kb": "manuals", "source": "ops", "title": "A320neo",
                       "updated_at": "2024-01-01", "snippet": "2,290 kg"}],
        "config_version": "abc123", "timing": {"total": 1.0}, "attempts": [], "operations": [],
        "perception": {"query": "What is the fuel burn?", "language": "en", "action": "lookup", "entities": [],
                       "keywords": ["fuel burn"], "constraints": {"time": None, "status": [], "doc_type": [],
                                                                  "source": [], "quantitative": True}}}


class Recorder:
    """A real HTTP server on 127.0.0.1 that answers every request with one canned reply and
    records what it received (path, method, headers)."""

    def __init__(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.received: list[dict] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                recorder.received.append({"method": self.command, "path": self.path,
                                          "headers": {k.lower(): v for k, v in self.headers.items()}})
                self.send_response(status)
                for name, value in (headers or {"Content-Type": "application/json"}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve() -> Iterator:
    started: list[Recorder] = []

    def start(status: int, body: bytes | str | dict, headers: dict[str, str] | None = None) -> Recorder:
        data = json.dumps(body).encode() if isinstance(body, dict) else body.encode() if isinstance(body, str) else body
        started.append(Recorder(status, data, headers))
        return started[-1]

    yield start
    for recorder in started:
        recorder.close()


def _ask(url: str, *extra: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SIGHTLINE_API_KEY=KEY, HF_HUB_OFFLINE="1")
    env.pop("SIGHTLINE_URL", None)
    command = [sys.executable, "-m", "server.cli", "ask", "--server", url, *extra, "What is the fuel burn?"]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)


def _one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("sightline ask: error: "), result.stderr
    return result.stderr


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_the_key_never_reaches_the_other_host(serve, status):
    other = serve(200, GOOD)
    redirecting = serve(status, b"", {"Location": f"{other.url}/rag"})
    result = _ask(redirecting.url)
    error = _one_line_error(result)
    assert other.received == [], "the other host was called"
    assert redirecting.received[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert f"redirected (HTTP {status}) to {other.url}/rag" in error and "not followed" in error


def test_a_well_formed_reply_is_printed(serve):
    good = serve(200, GOOD)
    for mode in ([], ["--brief"]):
        result = _ask(good.url, *mode)
        assert result.returncode == 0, result.stderr
        assert "The A320neo burns 2,290 kg per hour." in result.stdout and "trace_id: t-1" in result.stdout
    assert good.received[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert json.loads(_ask(good.url, "--json").stdout) == GOOD


MALFORMED = {
    "no trace_id": ({k: v for k, v in GOOD.items() if k != "trace_id"}, "missing trace_id"),
    "answer not text": ({**GOOD, "answer": 42}, "answer is int, not str"),
    "citations not a list": ({**GOOD, "citations": {"n": 1}}, "citations is dict, not list"),
    "citation missing its title": ({**GOOD, "citations": [{"n": 1, "kb": "manuals", "chunk_id": "a#0"}]},
                                   "citations[0] missing title"),
    "a JSON list": ([GOOD], "a JSON list, not an object"),
    "a JSON string": ("just text", "a JSON string, not an object"),
    "not JSON": ("<html><body>Welcome to nginx!</body></html>", "not JSON"),
    "not UTF-8": (b"\xff\xfe{}", "not JSON"),
    "empty": (b"", "not JSON"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
@pytest.mark.parametrize("mode", [[], ["--brief"], ["--json"]], ids=["trace", "brief", "json"])
def test_a_malformed_reply_is_one_line_and_exit_1(serve, case, mode):
    body, says = MALFORMED[case]
    raw = body if isinstance(body, bytes) or case == "not JSON" else json.dumps(body)
    server = serve(200, raw)
    error = _one_line_error(_ask(server.url, *mode))
    assert f"{server.url}/rag: malformed reply" in error and says in error, error


TRACE_ONLY = {
    "perception without constraints": ({**GOOD, "perception": {"language": "en", "action": "lookup", "entities": []}},
                                       "perception missing constraints"),
    "an attempt without its verdict": ({**GOOD, "attempts": [{"attempt": 0}]}, "attempts[0] missing verdict"),
    "a time window without its end": ({**GOOD, "perception": {**GOOD["perception"], "constraints": {
        **GOOD["perception"]["constraints"], "time": {"start": "2023-01-01"}}}}, "its trace cannot be shown"),
    "an operation without counts": ({**GOOD, "operations": [{"op": "retrieve"}]}, "operations[0] missing input_count"),
}


@pytest.mark.parametrize("case", TRACE_ONLY, ids=list(TRACE_ONLY))
def test_a_trace_the_terminal_cannot_show_is_one_line(serve, case):
    body, says = TRACE_ONLY[case]
    server = serve(200, body)
    error = _one_line_error(_ask(server.url))
    assert f"{server.url}/rag: malformed reply" in error and says in error, error
    assert _ask(server.url, "--brief").returncode == 0, "the brief view does not read the trace"


def test_an_html_error_page_is_one_line_with_the_status(serve):
    page = serve(502, "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
                 {"Content-Type": "text/html"})
    error = _one_line_error(_ask(page.url))
    assert "HTTP 502" in error


def test_a_server_url_without_a_scheme_is_refused_with_the_fix():
    error = _one_line_error(_ask("localhost:8000"))
    assert "--server" in error and "http://" in error
