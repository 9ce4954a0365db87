"""The /ui pages over canned traces (tests/server/ui_canned.py), in-process, no model: who sees a
stored trace, what a trace page shows, and that nothing it quotes is ever live markup.

The app here is the /ui blueprint and the error handlers of the real service around a stand-in
for the service object (callers resolved by the real CallerResolver over an in-memory key list);
`/rag` keeping traces runs in tests/server/test_ui_rag.py and the real browser in
tests/reliability/test_ui_browser.py.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask

from server.auth_throttle import FailureThrottle
from server.callers import AccessSettings, CallerResolver
from server.http.errors import register_error_handlers
from server.http.ui import CSP, STORE, register_ui
from server.settings import ServiceSettings

from .ui_canned import CHUNK_ID, CLAIM, HOSTILE, answered_body, chunks, refusal_body

ADMIN = "ui-admin-token-0123456789-abcdefghijklmnop"
KEYS = {"sl_finance_key_0123456789abcdef": ("finance-app", ("finance",)),
        "sl_eng_key_0123456789abcdef0123": ("eng-app", ("engineering",))}
FINANCE = {"Authorization": "Bearer sl_finance_key_0123456789abcdef"}
ENGINEERING = {"Authorization": "Bearer sl_eng_key_0123456789abcdef0123"}
TEMPLATES = Path(__file__).resolve().parents[2] / "server" / "templates"


@dataclass
class _Entry:
    name: str
    groups: tuple[str, ...]


class _Keys:
    def lookup(self, key: str) -> _Entry | None:
        return _Entry(*KEYS[key]) if key in KEYS else None


class _Service:
    """What the /ui blueprint reads of server.service.Service."""

    def __init__(self, anonymous: bool) -> None:
        self.admin_token = ADMIN
        self.admin_throttle = FailureThrottle(free=3)
        self.lock = threading.RLock()
        self.loop = None
        self.resolver = CallerResolver(AccessSettings(anonymous=anonymous), _Keys())

    def resolve_caller(self, headers):
        return self.resolver.resolve(headers)


def _app(tmp_path, monkeypatch, anonymous: bool = True) -> Flask:
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(tmp_path))
    app = Flask("ui-test")
    register_error_handlers(app)
    app.extensions["sightline"] = _Service(anonymous)
    register_ui(app, ServiceSettings())
    return app


def _store(app, body, owner):
    app.extensions[STORE].put(body["trace_id"], owner, {"body": body, "chunks": chunks(),
                                                       "builds": {"manuals": {"build_id": "b-1", "built_at": "x"}}})


FINANCE_OWNER = {"name": "finance-app", "kind": "key", "groups": ["finance"]}
ANONYMOUS_OWNER = {"name": "anonymous", "kind": "anonymous", "groups": []}


@pytest.fixture
def app(tmp_path, monkeypatch):
    app = _app(tmp_path, monkeypatch)
    _store(app, answered_body(), FINANCE_OWNER)
    _store(app, refusal_body(), ANONYMOUS_OWNER)
    return app


# --- who sees a stored trace -------------------------------------------------------------------

@pytest.mark.parametrize("headers, status", [
    (FINANCE, 200),
    ({"Authorization": f"Bearer {ADMIN}"}, 200),
    (ENGINEERING, 404),  # another key: as if there were no such trace
    ({}, 404),  # no key
    ({"Authorization": "Bearer sl_unknown_key_0123456789abcdef"}, 401),
    ({"Authorization": "Basic abc"}, 401),
])
def test_a_key_s_trace_is_shown_to_that_key_and_the_admin_only(app, headers, status):
    response = app.test_client().get("/ui/trace/t-answered", headers=headers)
    assert response.status_code == status
    assert response.mimetype == "text/html"
    if status != 200:
        assert CHUNK_ID not in response.get_data(as_text=True) and "E5102" not in response.get_data(as_text=True)


def test_an_anonymous_caller_s_trace_is_shown_to_anyone_with_its_id(app):
    for headers in ({}, ENGINEERING, FINANCE):
        assert app.test_client().get("/ui/trace/t-refusal", headers=headers).status_code == 200


def test_where_keyless_calls_are_refused_a_keyless_visitor_gets_the_key_field_not_the_trace(tmp_path, monkeypatch):
    app = _app(tmp_path, monkeypatch, anonymous=False)
    _store(app, refusal_body(), ANONYMOUS_OWNER)
    response = app.test_client().get("/ui/trace/t-refusal")
    text = response.get_data(as_text=True)
    assert response.status_code == 404 and 'id="api-key"' in text and "Mars" not in text


def test_wrong_bearers_on_trace_pages_count_toward_the_admin_lock_out(app):
    client = app.test_client()
    for _ in range(4):  # 3 free failures, the 4th locks the address out
        assert client.get("/ui/trace/t-answered", headers={"Authorization": "Bearer sl_guess_0123456789abcdef"}
                          ).status_code == 401
    locked = client.get("/ui/trace/t-answered", headers={"Authorization": f"Bearer {ADMIN}"})
    assert locked.status_code == 429 and int(locked.headers["Retry-After"]) >= 1


# --- what a page is made of: no inline code, nothing quoted is live ------------------------------

def test_every_page_carries_the_security_headers_and_only_the_service_s_own_script(app):
    client = app.test_client()
    for path in ("/ui", "/ui/trace/t-refusal", "/ui/trace/no-such-trace", "/ui/static/ui.js"):
        response = client.get(path)
        assert response.headers["Content-Security-Policy"] == CSP, path
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP and "default-src 'none'" in CSP
    page = client.get("/ui").get_data(as_text=True)
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/ui/static/ui.js" defer>']
    assert " style=" not in page and "<style" not in page and not re.search(r"<[^>]+\son\w+=", page)
    key = re.search(r'<input id="api-key"[^>]*>', page).group(0)
    assert 'type="password"' in key and "name=" not in key  # typed, never submitted by a form or put in a URL
    assert client.get("/ui/static/ui.js").mimetype == "text/javascript"
    assert client.get("/ui/static/secret.py").status_code == 404


def test_no_template_marks_any_text_as_safe_markup():
    for template in TEMPLATES.rglob("*.html"):
        source = template.read_text()
        assert "|safe" not in source.replace(" ", "") and "autoescape false" not in source, template


@pytest.mark.parametrize("trace_id", ["t-answered", "t-refusal"])
def test_hostile_text_anywhere_in_a_trace_shows_as_text(app, trace_id):
    page = app.test_client().get(f"/ui/trace/{trace_id}", headers=FINANCE).get_data(as_text=True)
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/ui/static/ui.js" defer>']
    assert "<img" not in page and not re.search(r"<[^>]+\son\w+=", page)  # no element, no handler
    assert 'href="javascript:' not in page and "href='javascript:" not in page
    assert not re.search(r"<a [^>]*href=\"(?!#|/ui)", page)  # every link stays on the page or in /ui
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in page  # shown, as text
    assert "![pixel](http://evil.example/p.png)" in page and "[click](javascript:window.pwned=3)" in page


# --- what a trace page shows -----------------------------------------------------------------------

def test_each_claim_links_to_its_highlighted_span_in_the_cited_chunk(app):
    page = app.test_client().get("/ui/trace/t-answered", headers=FINANCE).get_data(as_text=True)
    assert '<li id="claim-0"' in page and 'href="#span-0-1"' in page
    mark = re.search(r'<mark class="support" id="span-0-1"[^>]*>(.*?)</mark>', page, re.S).group(1)
    assert " ".join(mark.split()) == CLAIM[:-1]  # the claim's sentence, across the chunk's line breaks
    source = re.search(r'<div class="source" id="source-1".*?</div>', page, re.S).group(0)
    for shown in ("Fault E5102 › Triggers", "2024-03-01", "effective", CHUNK_ID, "javascript:window.pwned=4"):
        assert shown in source, shown  # heading path, date, status, chunk; the URL as text
    assert "withheld" in page  # the model's unsupported claim is not shown


def test_the_trace_header_names_question_status_reason_time_config_builds_and_caller(app):
    page = app.test_client().get("/ui/trace/t-answered", headers=FINANCE).get_data(as_text=True)
    header = re.search(r'<section id="trace-header">.*?</section>', page, re.S).group(0)
    for shown in ("What triggers E5102?", "partial", "85% is not stated in the cited source", "112.0 ms",
                  "cd50f82273b4", "manuals: <code>b-1</code>", "finance-app (key), groups finance", "standin-1"):
        assert shown in header, shown


def test_the_waterfall_has_a_bar_per_operation_and_nested_calls_start_with_their_parent(app):
    body = answered_body()
    page = app.test_client().get("/ui/trace/t-answered", headers=FINANCE).get_data(as_text=True)
    rows = re.findall(r'<tr class="stage-(\w+)"><td class="op">(.*?)</td>.*?<rect x="([\d.]+)"', page, re.S)
    assert len(rows) == len(body["operations"])
    names = [re.sub(r"<small>.*?</small>\s*", "", label) for _, label, _ in rows]
    assert "check citation" in names and "retrieve.keyword · t1 · manuals" in names
    llm = names.index("compose.llm · call 1")
    assert rows[llm][2] == rows[llm + 1][2]  # the LLM call starts where its compose starts


def test_searches_show_filter_rejections_with_reasons_and_candidates_their_ranks(app):
    page = app.test_client().get("/ui/trace/t-answered", headers=FINANCE).get_data(as_text=True)
    attempt = re.search(r'<section class="attempt" id="attempt-0">.*?</section>', page, re.S).group(0)
    assert "<summary>published_at: 2</summary>" in attempt and "<summary>status: 1</summary>" in attempt
    assert "published_at=2019-01-01 &lt; 2023-01-01" in attempt
    assert "keyword 1 → vector 2 → fused 1 → 1" in attempt  # how the first candidate's rank moved
    assert "p=0.35" in attempt and "names_the_code +1.20" in attempt  # the scorer's reading
    assert 'class="fail"><strong>unsupported_number</strong>' in attempt  # the check's verdict on claim 1


def test_a_retry_says_what_changed_and_how_the_evidence_moved(app):
    page = app.test_client().get("/ui/trace/t-answered", headers=FINANCE).get_data(as_text=True)
    retry = re.search(r'<section class="attempt" id="attempt-2">.*?</section>', page, re.S).group(0)
    assert "hint <code>exclude_chunk</code>" in retry and "chunk left out: <code>manuals-fault-e4027#0</code>" in retry
    moved = re.findall(r"<tr><td><code>([^<]+)</code></td><td class=\"num\">([^<]+)</td>"
                       r"<td class=\"num\">([^<]+)</td><td>([^<]+)</td></tr>", retry)
    assert ("manuals-fault-e5102#0", "2", "1", "up 1") in moved
    assert ("manuals-fault-e4027#0", "1", "–", "dropped") in moved
    assert "Retries stopped: attempt 3 would repeat attempt 2" in page


def test_a_refusal_shows_what_was_asked_searched_and_came_closest(app):
    page = app.test_client().get("/ui/trace/t-refusal").get_data(as_text=True)
    refusal = re.search(r'<section id="refusal".*?</section>', page, re.S).group(0)
    assert "What triggers E5102? &lt;script&gt;" in refusal  # what was asked
    assert "the evidence never mentions &#39;Mars&#39;" in refusal  # why
    assert "<td>manuals</td><td>hybrid</td><td>E5102 trigger</td>" in refusal  # what was searched
    closest = re.findall(r'<li data-chunk="([^"]+)">', refusal)
    assert closest == [CHUNK_ID] and "fused 0.0300" in refusal and "EGT limit is 1,038" in refusal
    assert 'id="answer"' not in page


def test_an_unknown_trace_is_a_page_saying_so(app):
    response = app.test_client().get("/ui/trace/" + "x" * 40)
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "trace_not_found" in response.get_data(as_text=True)
    assert HOSTILE not in response.get_data(as_text=True)


def test_the_pages_files_ship_with_the_package():
    """`pip install .` must carry every template and static file (pyproject.toml package-data)."""
    import fnmatch
    import tomllib

    root = TEMPLATES.parent
    globs = tomllib.loads((root.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["server"]
    files = [str(p.relative_to(root)) for folder in ("templates", "static") for p in (root / folder).rglob("*")
             if p.is_file()]
    assert files and all(any(fnmatch.fnmatch(f, g) for g in globs) for f in files), (files, globs)
