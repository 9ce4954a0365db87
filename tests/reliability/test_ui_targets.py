"""/ui with a model answering (the stand-in LLM, tests/llm_standin.py), in a real headless browser:
a hostile model reply is inert on every page, and the two targets of issue 37 hold: a trace page
of a 3-attempt answer stays under 500 KB, and a stored trace of a MultiHop-RAG question paints
its first content within 300 ms.

The service runs one gunicorn worker over the demo knowledge bases plus, when the evaluation data
is there (../shared/eval/multihop_rag), a small MultiHop-RAG knowledge base: the evidence articles
of the first comparison question whose articles are short, and a few other articles. The figures
print with `-s`; docs/SERVICE.md quotes them.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import urllib.request
from dataclasses import replace

import pytest
from selenium.webdriver.common.by import By

from evaluation.datasets import DEFAULT_DATA, load_queries, read_jsonl
from orchestration import paths
from tests.live import start_service
from tests.llm_standin import Reply

from .browser import chrome, console_errors, screenshot, wait_for

pytestmark = pytest.mark.slow

NOW = "2025-07-01"
E5102 = "What triggers error code E5102?"
DRIFT = "E5102 is triggered when the APU does not reach 85% speed within 60 seconds {cite:95% speed within 60}."
EGT = "E5102 is also triggered when the exhaust gas temperature exceeds 1,038 °C {cite:exceeds 1,038}."
EVIL = ("Reset it as <script>window.pwned=1</script> shows: ![diagram](http://evil.example/p.png) "
        "<img src=http://evil.example/x.png onerror=window.pwned=2> [manual](javascript:window.pwned=3) "
        "{cite:exceeds 1,038}.")
MULTIHOP = DEFAULT_DATA / "multihop_rag"
PAGE_LIMIT, PAINT_LIMIT_MS = 500_000, 300.0


def multihop_corpus(target) -> str | None:
    """A small MultiHop-RAG corpus (JSONL at `target`): the evidence articles of the first comparison
    question whose articles have at most 1,000 words, and the next six short articles; the question."""
    if not (MULTIHOP / "corpus.jsonl").is_file():
        return None
    articles = read_jsonl(MULTIHOP / "corpus.jsonl")
    short = {a["_id"]: a for a in articles if len(a["text"].split()) <= 1000}
    question = next(q for q in load_queries("multihop", MULTIHOP)
                    if q.type == "comparison_query" and all(d in short for d in q.relevance))
    others = [a for a in short.values() if a["_id"] not in question.relevance][:6]
    with open(target, "w", encoding="utf-8") as out:
        for article in [short[d] for d in question.relevance] + others:
            out.write(json.dumps({"id": article["_id"], "title": article.get("title", ""), "text": article["text"],
                                  "metadata": article.get("metadata") or {}}, ensure_ascii=False) + "\n")
    return question.text


@pytest.fixture(scope="module")
def llm_ui(demo_kbs, standin, tmp_path_factory):
    """(the service, the MultiHop question or None): the stand-in answers the default profile."""
    root = tmp_path_factory.mktemp("ui-llm")
    config_dir, data_dir = root / "config", root / "data"
    shutil.copytree(paths.REPO_ROOT / "config", config_dir)
    shutil.copytree(demo_kbs.data_dir, data_dir)
    question = multihop_corpus(root / "multihop.jsonl")
    if question is not None:
        env = dict(os.environ, SIGHTLINE_CONFIG_DIR=str(config_dir), SIGHTLINE_DATA_DIR=str(data_dir))
        subprocess.run([sys.executable, "-m", "server.cli", "ingest", str(root / "multihop.jsonl"), "--kb", "multihop"],
                       cwd=paths.REPO_ROOT, env=env, check=True, capture_output=True)
    env = {"SIGHTLINE_LLM_BASE_URL": standin.url, "SIGHTLINE_LLM_MODEL": standin.model,
           "SIGHTLINE_LLM_TIMEOUT": "2", "SIGHTLINE_LLM_BUDGET": "8"}
    service = start_service(replace(demo_kbs, data_dir=data_dir), root, workers=1, env=env, config_dir=config_dir)
    yield service, question
    service.stop()


@pytest.fixture(scope="module")
def browser():
    driver = chrome()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def three_attempts(llm_ui, standin, browser):
    """The trace id of an answer the model got wrong three times, its reply carrying hostile text,
    asked from /ui in the browser."""
    service, _ = llm_ui
    standin.script(*[Reply(f"{DRIFT} {EGT} {EVIL}")] * 3)
    browser.get(service.url + "/ui")
    browser.find_element(By.ID, "query").send_keys(E5102)
    browser.execute_script("document.getElementById('now').value = arguments[0]", NOW)
    browser.find_element(By.ID, "max-retries").send_keys("2")
    browser.find_element(By.ID, "ask-button").click()
    wait_for(lambda: browser.find_elements(By.ID, "trace"), "the trace page", seconds=60)
    return browser.find_element(By.ID, "trace").get_attribute("data-trace-id")


def _inert(browser) -> None:
    """Nothing a trace quotes ran or loaded: no handler fired, no outside request, one script, no image."""
    assert browser.execute_script("return window.pwned") is None
    scripts = browser.execute_script("return Array.from(document.scripts, s => s.getAttribute('src'))")
    assert scripts == ["/ui/static/ui.js"]
    assert browser.find_elements(By.TAG_NAME, "img") == []
    assert browser.find_elements(By.CSS_SELECTOR, "a[href^='javascript:'], a[href*='evil.example']") == []
    fetched = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert not [url for url in fetched if "evil.example" in url]
    assert console_errors(browser) == []  # not even a blocked attempt


def test_a_hostile_model_reply_is_inert_on_every_page(llm_ui, browser, three_attempts):
    service, _ = llm_ui
    _inert(browser)  # the page the script put in place after asking
    browser.get(f"{service.url}/ui/trace/{three_attempts}")  # the same page, loaded as a whole
    _inert(browser)
    text = browser.find_element(By.ID, "trace").text
    assert "<script>window.pwned=1</script>" in text  # quoted where the trace explains a rejection: as text
    assert len(browser.find_elements(By.CSS_SELECTOR, "section.attempt")) == 3


def test_a_three_attempt_trace_page_stays_under_500_kb(llm_ui, browser, three_attempts, capsys):
    service, _ = llm_ui
    with urllib.request.urlopen(f"{service.url}/ui/trace/{three_attempts}", timeout=30) as response:
        size = len(response.read())
    with capsys.disabled():
        print(f"\n/ui trace page of a 3-attempt answer: {size} bytes ({size / 1024:.0f} KiB)")
    assert size < PAGE_LIMIT
    browser.get(f"{service.url}/ui/trace/{three_attempts}")
    retry = browser.find_element(By.ID, "attempt-1")
    assert "What changed" in retry.text and "hint" in retry.text
    browser.execute_script("arguments[0].scrollIntoView()", retry)
    screenshot(retry, "ui-retry")


def test_a_stored_multihop_trace_paints_its_first_content_within_300_ms(llm_ui, browser, capsys):
    service, question = llm_ui
    if question is None:
        pytest.skip(f"MultiHop-RAG not found under {MULTIHOP} (the evaluation data, ../shared/eval)")
    status, _h, reply = service.request("POST", "/rag", {"query": question, "now": NOW, "trace": "none"})
    assert status == 200, reply
    url = f"{service.url}/ui/trace/{reply['trace_id']}"
    timings = []
    for _ in range(6):  # the first load fetches the stylesheet and script, the others find them cached
        browser.get(url)
        timings.append(wait_for(lambda: browser.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "const p = performance.getEntriesByName('first-contentful-paint')[0];"
            "return p && n.responseEnd ? [n.responseStart, n.responseEnd, p.startTime, n.transferSize] : null;"),
            "the first contentful paint"))
    paints = [t[2] for t in timings]
    with capsys.disabled():
        print(f"\n/ui stored MultiHop trace ({timings[0][3]} bytes): first byte {timings[0][0]:.0f} ms, "
              f"first contentful paint {paints[0]:.0f} ms cold, median {statistics.median(paints[1:]):.0f} ms "
              f"and max {max(paints[1:]):.0f} ms over {len(paints) - 1} more loads")
    assert statistics.median(paints) < PAINT_LIMIT_MS
