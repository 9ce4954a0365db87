"""The PEP set: its question file, header parsing and reST cleanup on real PEPs, its metrics."""

from __future__ import annotations

import json

import pytest

from evaluation.peps.corpus import pep_document, write_corpus
from evaluation.peps.run import DEFAULT_PEPS, cited_peps, score_body
from evaluation.peps.scoring import (
    KINDS,
    PepQuestion,
    answered_with_fact,
    by_kind,
    contains_gold,
    fact_from_gold_pep,
    false_refusal,
    load_questions,
    parse_question,
    summarise,
    unanswerable_refused,
)
from evaluation.peps.subset import DISTRACTORS, SUBSET, TARGETS

needs_peps = pytest.mark.skipif(not (DEFAULT_PEPS / "pep-0001.rst").is_file(),
                                reason=f"the PEP files are not at {DEFAULT_PEPS}")


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


# --- the question file ----------------------------------------------------------------------

def test_question_file_is_well_formed():
    questions = load_questions()
    unanswerable = [q for q in questions if not q.answerable]
    assert len(questions) >= 44
    assert len(unanswerable) / len(questions) >= 0.25
    assert {q.kind for q in questions} == set(KINDS)
    assert {q.kind for q in questions if q.answerable} == set(KINDS)
    assert all(q.answers for q in questions if q.answerable) and not any(q.answers for q in unanswerable)
    assert all(q.note for q in questions)


def test_every_pep_a_question_names_is_in_the_subset_and_every_target_holds_an_answer():
    questions = load_questions()
    assert not set(TARGETS) & set(DISTRACTORS) and len(SUBSET) <= 110
    assert {p for q in questions for p in q.peps} <= set(SUBSET)
    assert {p for q in questions if q.answerable for p in q.peps} == set(TARGETS)


@needs_peps
def test_each_gold_answer_occurs_in_one_of_its_pep_files():
    for question in load_questions():
        if not question.answerable:
            continue
        texts = [_fold((DEFAULT_PEPS / f"pep-{n:04d}.rst").read_text(encoding="utf-8")) for n in question.peps]
        assert any(_fold(a) in t for a in question.answers for t in texts), (question.id, question.answers)


def test_a_bad_question_is_refused_with_the_reason():
    good = {"id": "x", "query": "q?", "kind": "number", "answerable": True, "answers": ["1"], "peps": [8],
            "note": "n"}
    assert parse_question(good).peps == (8,)
    with pytest.raises(ValueError, match="kind"):
        parse_question(good | {"kind": "trivia"})
    with pytest.raises(ValueError, match="gold answers"):
        parse_question(good | {"answers": []})
    with pytest.raises(ValueError, match="missing field"):
        parse_question({k: v for k, v in good.items() if k != "note"})


# --- real PEPs through the product's reST reader --------------------------------------------

@needs_peps
def test_pep_8_through_the_product_reader_header_metadata_and_sentences():
    doc = pep_document(DEFAULT_PEPS / "pep-0008.rst")
    meta = doc["metadata"]
    assert doc["id"] == "pep-0008" and doc["title"] == "PEP 8 – Style Guide for Python Code"
    assert meta["pep"] == 8 and meta["doc_type"] == "process" and meta["source"] == "peps"
    assert meta["published_at"].startswith("2001-07-05")
    assert meta["author"] == ["Guido van Rossum", "Barry Warsaw", "Alyssa Coghlan"]
    # header facts are sentences a question can be answered from ("When was PEP 8 created?")
    assert doc["text"].startswith("PEP 8 – Author: Guido van Rossum, Barry Warsaw, Alyssa Coghlan.")
    assert "PEP 8 – Created: 05-Jul-2001." in doc["text"]


@needs_peps
def test_superseded_and_rejected_peps_keep_status_and_links():
    meta = pep_document(DEFAULT_PEPS / "pep-0563.rst")["metadata"]
    assert meta["status"] == "superseded" and meta["superseded_by"] == ["pep-0649", "pep-0749"]
    assert meta["doc_type"] == "standards_track" and meta["python_version"] == "3.7"
    doc = pep_document(DEFAULT_PEPS / "pep-3103.rst")
    assert doc["id"] == "pep-3103" and doc["title"] == "PEP 3103 – A Switch/Case Statement"
    assert doc["metadata"]["source_status"] == "Rejected" and "PEP 3103 – Status: Rejected." in doc["text"]
    assert "## Rejection Notice\n\nA quick poll during my keynote" in doc["text"]


@needs_peps
def test_cleaned_pep_keeps_text_and_drops_markup(tmp_path):
    text = pep_document(DEFAULT_PEPS / "pep-0008.rst")["text"]
    assert "## Maximum Line Length" in text and "Limit all lines to a maximum of 79 characters." in text
    assert "\n-----" not in text and ":pep:" not in text and "PEP 257" in text
    corpus = write_corpus(DEFAULT_PEPS, [8, 3103], tmp_path / "c.jsonl")
    records = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == ["pep-0008", "pep-3103"]


# --- metrics --------------------------------------------------------------------------------

ROWS = [
    {"kind": "number", "answerable": True, "status": "answered", "has_fact": True, "cites_gold_pep": True},
    {"kind": "number", "answerable": True, "status": "insufficient", "has_fact": False},
    {"kind": "date", "answerable": True, "status": "partial", "has_fact": False},
    {"kind": "date", "answerable": True, "status": "answered", "has_fact": True, "cites_gold_pep": False},
    {"kind": "number", "answerable": False, "status": "insufficient", "has_fact": False},
    {"kind": "date", "answerable": False, "status": "answered", "has_fact": False},
    {"kind": "date", "answerable": False, "status": "insufficient", "has_fact": False},
]


def test_metrics_on_hand_made_rows():
    assert answered_with_fact(ROWS) == 0.5
    assert false_refusal(ROWS) == 0.25
    assert unanswerable_refused(ROWS) == round(2 / 3, 4)
    assert fact_from_gold_pep(ROWS) == 0.25
    assert summarise([]) == {"answered_with_fact": None, "false_refusal": None, "unanswerable_refused": None,
                             "fact_from_gold_pep": None}
    kinds = by_kind(ROWS)
    assert list(kinds) == ["number", "date"]
    assert kinds["number"] == {"answered_with_fact": 0.5, "false_refusal": 0.5, "unanswerable_refused": 1.0,
                               "fact_from_gold_pep": 0.5, "answerable": 2, "unanswerable": 1}
    assert kinds["date"]["unanswerable_refused"] == 0.5 and kinds["date"]["answered_with_fact"] == 0.5


def test_gold_rule_is_case_and_space_insensitive():
    assert contains_gold("Limit lines to  79\ncharacters.", ["79 Characters"])
    # PEP 701 quotes PEP 498 with typographic quotes; the gold was typed with plain ones
    assert contains_gold("an f-string is a literal string, prefixed with \u2018f\u2019", ["prefixed with 'f'"])
    assert contains_gold("Tim Peters wrote it", ["nobody", "tim peters"])
    assert not contains_gold("72 characters", ["79"]) and not contains_gold("anything", [])


def test_a_refused_answer_never_counts_as_a_fact():
    question = PepQuestion("a", "What line length?", "number", True, ("79",), (8,))
    body = {"status": "insufficient", "answer": "Not enough evidence; nearest: 79 characters",
            "citations": [], "timing": {"total": 12.0}}
    row = score_body(question, body)
    assert row["has_fact"] is False and row["status"] == "insufficient"
    body = {"status": "answered", "answer": "Limit all lines to 79 characters [1]." + "x" * 400,
            "citations": [{"chunk_id": "pep-0008#4"}, {"chunk_id": "pep-0008#5"}, {"chunk_id": "pep-0007#0"}],
            "timing": {"total": 30.0}}
    row = score_body(question, body)
    assert row["has_fact"] is True and row["cited_peps"] == [8, 7] and len(row["answer"]) == 300
    assert row["cites_gold_pep"] is True
    assert cited_peps({"citations": [{"chunk_id": "other#1"}]}) == []

