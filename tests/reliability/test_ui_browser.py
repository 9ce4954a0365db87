"""/ui in a real headless browser against the real service (`secured`: gunicorn, API keys, the demo
knowledge bases with their two restricted documents): load the page, ask, follow a citation to
its highlighted passage, open a refusal, and a restricted document never shown to a caller
outside its group, whether it asks itself or opens another caller's trace. And a service that
keeps no traces (`traces_max_entries: 0`): the ask page still shows the answer.
"""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By

from tests.live import ADMIN_TOKEN, start_service

from .browser import chrome, console_errors, screenshot, wait_for

pytestmark = pytest.mark.slow

NOW = "2025-07-01"
E4027 = "What triggers error code E4027?"
OFF_TOPIC = "What is the boiling point of mercury on Mars?"
SALARY = "What are the engineering salary bands?"
SALARY_DOC, SALARY_TEXT = "policies-salary-bands-2025", "52,000"


@pytest.fixture(scope="module")
def browser():
    driver = chrome()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def unkept(demo_kbs, tmp_path_factory):
    """`sightline serve` (one worker) over the demo knowledge bases, keeping no traces."""
    service = start_service(demo_kbs, tmp_path_factory.mktemp("unkept"), workers=1,
                            env={"SIGHTLINE_TRACES_MAX_ENTRIES": "0"})
    yield service
    service.stop()


def _submit(browser, url: str, question: str, key: str = "") -> str:
    """Ask from /ui as a user does (key typed in the field); the trace id of the page shown."""
    browser.get(url + "/ui")
    browser.find_element(By.ID, "api-key").send_keys(key)
    browser.find_element(By.ID, "query").send_keys(question)
    browser.execute_script("document.getElementById('now').value = arguments[0]", NOW)  # a date picker's value
    browser.find_element(By.ID, "ask-button").click()
    wait_for(lambda: browser.find_elements(By.ID, "trace"), f"the trace page of {question!r}")
    return browser.find_element(By.ID, "trace").get_attribute("data-trace-id")


def _ask(browser, url: str, question: str, key: str = "") -> str:
    """Ask from /ui (`_submit`); the trace id, whose stored page's address the page lands on."""
    trace_id = _submit(browser, url, question, key)
    assert browser.execute_script("return location.pathname") == f"/ui/trace/{trace_id}"
    return trace_id


def test_the_page_loads_with_its_own_script_and_style_only(secured, browser):
    browser.get(secured.live.url + "/ui")
    assert browser.title == "Sightline: ask and see why"
    key = browser.find_element(By.ID, "api-key")
    assert key.get_attribute("type") == "password" and not key.get_attribute("name")
    assert {e.get_attribute("value") for e in browser.find_elements(By.NAME, "kb")} == {"manuals", "policies",
                                                                                        "reports"}
    assert browser.execute_script("return getComputedStyle(document.querySelector('.top')).display") == "block"
    assert console_errors(browser) == []  # no CSP violation, nothing missing


def test_asking_shows_the_answer_and_a_citation_jumps_to_its_highlighted_passage(secured, browser):
    _ask(browser, secured.live.url, E4027)
    assert browser.find_element(By.CSS_SELECTOR, "#answer .badge").text == "answered"
    claim = browser.find_element(By.ID, "claim-0")
    link = claim.find_element(By.CSS_SELECTOR, "sup.cite a")
    target = link.get_attribute("href").split("#", 1)[1]
    assert re.fullmatch(r"span-0-\d+", target)
    link.click()
    wait_for(lambda: browser.execute_script("return location.hash") == f"#{target}", "the jump to the passage")
    mark = browser.find_element(By.ID, target)
    assert mark.tag_name == "mark" and mark.find_element(By.XPATH, "ancestor::div[@class='source']")
    assert " ".join(mark.text.split()) in " ".join(claim.text.split())  # the claim's own sentence, highlighted
    # layout is sub-pixel: a jump may leave the passage's top at -0.2
    in_view = browser.execute_script("const r = arguments[0].getBoundingClientRect();"
                                      "return r.top > -1 && r.bottom < innerHeight + 1;", mark)
    assert in_view and browser.execute_script("return document.querySelector(':target') === arguments[0]", mark)
    source = mark.find_element(By.XPATH, "ancestor::div[@class='source']")
    assert "Fault Code E4027" in source.text and "effective" in source.text and "manuals /" in source.text
    screenshot(browser.find_element(By.ID, "answer"), "ui-answer")
    assert console_errors(browser) == []


def test_a_refusal_shows_what_was_asked_what_was_searched_and_what_came_closest(secured, browser):
    _ask(browser, secured.live.url, OFF_TOPIC)
    refusal = browser.find_element(By.ID, "refusal")
    assert "insufficient" in refusal.find_element(By.CSS_SELECTOR, ".badge").text
    assert refusal.find_element(By.CSS_SELECTOR, "dd.asked").text == OFF_TOPIC
    searched = refusal.find_elements(By.CSS_SELECTOR, "table tbody tr")
    assert {row.find_elements(By.TAG_NAME, "td")[1].text for row in searched} == {"manuals", "policies", "reports"}
    closest = refusal.find_elements(By.CSS_SELECTOR, "ol.closest li")
    assert closest and all("fused 0." in item.text for item in closest)
    assert browser.find_elements(By.CSS_SELECTOR, "section.attempt") and browser.find_elements(By.ID, "timing")
    screenshot(refusal, "ui-refusal")


def test_a_restricted_document_is_never_shown_outside_its_group(secured, browser):
    url, keys = secured.live.url, secured.keys
    finance_trace = _ask(browser, url, SALARY, keys["finance-app"])  # in the group: cited
    cited = [e.get_attribute("data-chunk") for e in browser.find_elements(By.CSS_SELECTOR, "#answer .source")]
    assert any(c.startswith(SALARY_DOC) for c in cited) and SALARY_TEXT in browser.page_source

    _ask(browser, url, SALARY, keys["eng-app"])  # outside it: the same question, nothing of the document
    assert SALARY_DOC not in browser.page_source and SALARY_TEXT not in browser.page_source

    # the finance caller's trace, opened by anyone else: as if it did not exist
    for key in ("", keys["eng-app"], keys["hr-app"]):
        browser.get(f"{url}/ui/trace/{finance_trace}")
        if key:
            browser.find_element(By.ID, "api-key").send_keys(key)
            browser.find_element(By.ID, "show-trace").click()
        wait_for(lambda: browser.find_elements(By.ID, "error"), "the not-found page")
        assert "trace_not_found" in browser.page_source
        assert SALARY_DOC not in browser.page_source and SALARY_TEXT not in browser.page_source

    for key in (keys["finance-app"], ADMIN_TOKEN):  # the caller that asked, and the admin, see it
        browser.get(f"{url}/ui/trace/{finance_trace}")
        browser.find_element(By.ID, "api-key").send_keys(key)
        browser.find_element(By.ID, "show-trace").click()
        wait_for(lambda: browser.find_elements(By.ID, "trace"), "the finance caller's trace")
        assert SALARY_TEXT in browser.page_source


def test_with_the_store_off_the_ask_page_shows_the_answer_and_no_address_to_reopen(unkept, browser):
    console_errors(browser)  # the log so far: other tests' pages (their 404s are meant)
    browser.get(unkept.url + "/ui")
    assert "shown here but not kept" in browser.find_element(By.CSS_SELECTOR, ".intro .note").text
    trace_id = _submit(browser, unkept.url, E4027)
    assert browser.find_element(By.CSS_SELECTOR, "#answer .badge").text == "answered"
    assert "Fault Code E4027" in browser.find_element(By.ID, "answer").text
    assert browser.execute_script("return location.pathname") == "/ui"  # nothing stored to reload
    assert "not stored" in browser.find_element(By.ID, "trace-header").text and trace_id
    assert console_errors(browser) == []
