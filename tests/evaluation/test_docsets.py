"""The real-documentation dev set (evaluation/docsets.py): its pages, its question file, its scoring."""

from __future__ import annotations

import re

import pytest

from evaluation.docsets import (
    DOCSETS,
    KINDS,
    QUESTIONS,
    SETS,
    contains_gold,
    load_questions,
    normalise,
    pages_dir,
    parse_question,
    score_body,
    score_rows,
    summarise,
)
from orchestration.kb.documents import Document, iter_documents


def _page_text(name: str, page: str) -> str:
    """A page as its source reads, inline markers (` and *) dropped, whitespace folded."""
    return normalise((pages_dir(name) / page).read_text(encoding="utf-8"))


# --- the pages --------------------------------------------------------------------------------

def test_each_set_is_a_modest_subset_with_its_source_and_licence():
    total = 0
    suffixes = {}
    for name in SETS:
        folder = DOCSETS / name
        pages = sorted(p for p in pages_dir(name).iterdir() if p.is_file())
        assert not [p for p in pages_dir(name).iterdir() if p.is_dir()], name  # flat: every page counted
        assert 15 <= len(pages) <= 40, (name, len(pages))
        suffixes[name] = {p.suffix for p in pages}
        total += sum(p.stat().st_size for p in pages)
        source = (folder / "SOURCE.md").read_text(encoding="utf-8")
        assert re.search(r"https://github\.com/\S+", source) and re.search(r"\b[0-9a-f]{40}\b", source)
        assert re.search(r"Licen[cs]e: (MIT|BSD|Apache|CC-BY)", source)
        assert (folder / "LICENSE").read_text(encoding="utf-8").strip()
    assert total < 1_500_000
    # two formats: Markdown of two flavours (Poetry's Hugo, HTTPX's MkDocs) and Sphinx reST
    assert suffixes == {"poetry": {".md"}, "restic": {".rst"}, "httpx": {".md"}}


def test_every_page_is_read_by_the_product_readers():
    for name in SETS:
        loaded = list(iter_documents([pages_dir(name)]))
        assert loaded and all(isinstance(d, Document) and d.text.strip() for d in loaded), \
            [str(d) for d in loaded if not isinstance(d, Document)]


# --- the question file --------------------------------------------------------------------------

def test_question_file_is_well_formed():
    questions = load_questions()
    unanswerable = [q for q in questions if not q.answerable]
    assert len(questions) >= 100
    assert {q.set for q in questions} == set(SETS)
    assert len(unanswerable) / len(questions) >= 0.25
    for name in SETS:
        mine = [q for q in questions if q.set == name]
        assert len(mine) >= 28 and sum(not q.answerable for q in mine) >= 8, name
    assert {q.kind for q in questions} == set(KINDS)
    assert all(q.note for q in unanswerable)
    assert len({normalise(q.question) for q in questions}) == len(questions)


def test_every_answerable_gold_string_occurs_in_its_source_page():
    for q in load_questions():
        if q.answerable:
            text = _page_text(q.set, q.source)
            assert any(normalise(a) in text for a in q.answers), (q.id, q.source, q.answers)


def test_every_unanswerable_question_names_an_existing_nearby_page():
    for q in load_questions():
        if not q.answerable:
            assert q.near and (pages_dir(q.set) / q.near).is_file(), q.id


def test_a_bad_question_is_refused_with_the_reason():
    good = {"id": "x", "set": "restic", "question": "q?", "kind": "number", "answerable": True, "answers": ["1"],
            "source": "faq.rst"}
    assert parse_question(good).source == "faq.rst"
    with pytest.raises(ValueError, match="kind"):
        parse_question(good | {"kind": "trivia"})
    with pytest.raises(ValueError, match="set"):
        parse_question(good | {"set": "prometheus"})
    with pytest.raises(ValueError, match="gold answers"):
        parse_question(good | {"answers": []})
    with pytest.raises(ValueError, match="source"):
        parse_question(good | {"source": ""})
    with pytest.raises(ValueError, match="missing field"):
        parse_question({k: v for k, v in good.items() if k != "kind"})
    assert QUESTIONS.is_file()


# --- scoring on bodies recorded from the loop (`sightline eval docs`, answers trimmed) ---------

RECORDED = {
    "p02": {"status": "answered", "timing": {"total": 29.6}, "citations": [{"chunk_id": "faq#9"}],
            "answer": "Poetry's default HTTP request timeout is 15 seconds, the same as pip. [1] Similar to "
                      "PIP_REQUESTS_TIMEOUT, the experimental environment variable POETRY_REQUESTS_TIMEOUT can "
                      "be set to alter this value. [1]"},
    "p03": {"status": "answered", "timing": {"total": 24.5}, "citations": [{"chunk_id": "configuration#7"}],
            "answer": "Type: int Default: 0 Environment Variable: POETRY_REQUESTS_MAX_RETRIES Introduced in 2.0.0 "
                      "Set the maximum number of retries in an unstable network. [1]"},
    "pu04": {"status": "insufficient", "timing": {"total": 16.2}, "citations": [],
             "answer": "Insufficient information: the knowledge base does not hold an answer to this question. "
                       "Why: the evidence never mentions 'GPG', which the question is about."},
    "r17": {"status": "insufficient", "timing": {"total": 32.3}, "citations": [],
            "answer": "Insufficient information: the knowledge base does not hold an answer to this question. "
                      "Why: the cited sources do not mention 'unix', which the question asks about."},
    "r12": {"status": "answered", "timing": {"total": 24.8}, "citations": [{"chunk_id": "060_forget#19"}],
            "answer": "The default value is 5%. --max-repack-size size if set limits the total size of files "
                      "to repack. [1]"},
    "ru05": {"status": "answered", "timing": {"total": 20.0}, "citations": [{"chunk_id": "047_tuning_parameters#2"}],
             "answer": "By default restic uses 5 connections for each backend, except for the local backend "
                       "which uses a limit of 2. [1]"},
}


def _rows():
    questions = {q.id: q for q in load_questions()}
    return [score_body(questions[i], body) for i, body in RECORDED.items()]


def test_score_body_on_recorded_bodies():
    rows = {r["id"]: r for r in _rows()}
    assert rows["p02"]["has_fact"] and rows["p02"]["cites_source"] and rows["p02"]["cited_docs"] == ["faq"]
    assert not rows["p03"]["has_fact"] and not rows["p03"]["cites_source"]  # max retries, not the timeout
    assert rows["pu04"]["refused"] and not rows["pu04"]["has_fact"] and not rows["pu04"]["answerable"]
    assert rows["r17"]["refused"] and rows["r17"]["answerable"]               # a false refusal
    assert rows["r12"]["has_fact"] and rows["r12"]["cites_source"]
    assert not rows["ru05"]["refused"]                                         # answered the unanswerable
    assert rows["p02"]["total_ms"] == 29.6 and rows["p02"]["set"] == "poetry"


def test_metrics_overall_per_set_and_per_kind():
    scored = score_rows(_rows())
    # answerable: p02 fact, p03 no, r17 refused, r12 fact; unanswerable: pu04 refused, ru05 answered
    assert scored["overall"] == {"asked_fact": 0.5, "false_refusal": 0.25, "unanswerable_refused": 0.5,
                                 "answerable": 4, "unanswerable": 2}
    assert scored["by_set"]["poetry"]["asked_fact"] == 0.5 and scored["by_set"]["poetry"]["unanswerable_refused"] == 1.0
    assert scored["by_set"]["restic"] == {"asked_fact": 0.5, "false_refusal": 0.5, "unanswerable_refused": 0.0,
                                          "answerable": 2, "unanswerable": 1}
    assert scored["by_kind"]["list"]["false_refusal"] == 1.0 and scored["by_kind"]["duration"]["asked_fact"] == 1.0
    assert scored["by_set_kind"]["restic"]["number"]["asked_fact"] == 1.0
    assert scored["statuses"] == {"answerable": {"answered": 3, "insufficient": 1},
                                  "unanswerable": {"insufficient": 1, "answered": 1}}
    assert summarise([])["asked_fact"] is None


def test_a_refused_answer_never_counts_as_a_fact_even_when_it_holds_the_gold():
    q = next(q for q in load_questions() if q.id == "r01")
    row = score_body(q, {"status": "insufficient", "answer": "Locks older than 30 minutes are stale, but ..."})
    assert not row["has_fact"] and row["refused"]


def test_gold_matching_folds_case_space_quotes_and_markup():
    assert contains_gold("restic uses ``5``\n  Connections by default", ["5 connections"])
    assert contains_gold("It’s **AES-256** in CTR mode", ["aes-256"])
    assert contains_gold("x", ["nope", "X"]) and not contains_gold("5 connection", ["5 connections"])
