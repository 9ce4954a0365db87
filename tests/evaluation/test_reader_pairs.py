"""The reader's training pairs (evaluation/answers/reader/pairs.py): each unit cut and read as
serving reads it, labelled by where the gold answer stands (issue 36, item 3)."""

from __future__ import annotations

import random

from evaluation.answers.negative_rules import Answered
from evaluation.answers.reader.pairs import negative_pairs, squad_pairs, text_candidates
from evaluation.doctrain_loop import kb_name, with_corpora
from orchestration.compose.scorer.cross import reading_of

CONTEXT = ("The Karelian Lighthouse stands on the northern cape. It was built in 1889 by the harbour board. "
           "In 1931 the lighthouse was electrified. Its lamp was restored in 1890 after a storm.")
ARTICLE = {"title": "Karelian_Lighthouse", "paragraphs": [{"context": CONTEXT, "qas": [
    {"id": "a1", "question": "In what year was the Karelian Lighthouse electrified?", "is_impossible": False,
     "answers": [{"text": "1931", "answer_start": CONTEXT.index("1931")}]},
    {"id": "u1", "question": "In what year was the Karelian Lighthouse painted?", "is_impossible": True,
     "answers": [], "plausible_answers": [{"text": "1890", "answer_start": CONTEXT.index("1890")}]},
]}]}


def _by_question(rows):
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        out.setdefault(r["g"], {})[r["s"]] = r["y"]
    return out


def test_the_unit_holding_the_answer_at_its_offset_is_the_one_positive_read_with_its_context():
    rows, answering = squad_pairs([ARTICLE], "squad", random.Random(0), every_unit=True)
    labels = _by_question(rows)["a1"]
    units = text_candidates("Karelian Lighthouse", CONTEXT, "p")
    electrified = next(c for c in units if "electrified" in c.text)
    assert labels[reading_of(electrified)] == 1
    assert sum(labels.values()) == 1 and len(labels) == len(units)
    assert reading_of(electrified).startswith("In 1931 the lighthouse was electrified. | Karelian Lighthouse |")
    assert answering["a1"].text == electrified.text


def test_an_unanswerable_question_reads_its_tempting_unit_first_and_every_unit_is_negative():
    rows, _ = squad_pairs([ARTICLE], "squad", random.Random(0))
    asked = [r for r in rows if r["g"] == "u1"]
    assert asked[0]["s"].startswith("Its lamp was restored in 1890")  # the plausible answer's unit
    assert all(r["y"] == 0 and r["a"] == 0 for r in asked)


def test_a_hard_negative_is_asked_against_the_unit_that_answered_its_source_question():
    context = "The cache is kept per project. In Python 3.12 the --cache option enables caching."
    article = {"title": "Caching", "paragraphs": [{"context": context, "qas": [
        {"id": "c1", "question": "Which option enables caching in Python 3.12?", "is_impossible": False,
         "answers": [{"text": "--cache", "answer_start": context.index("--cache")}]}]}]}
    _, answering = squad_pairs([article], "squad", random.Random(0))
    source = Answered("c1", "Which option enables caching in Python 3.12?", ("--cache",), context, corpus="squad")
    rows = negative_pairs([source], answering, "negative")
    assert {r["q"] for r in rows} >= {"Which option enables caching in Python 3.14?",  # the version moved
                                      "Which option disables caching in Python 3.12?"}  # negated
    assert all(r["y"] == 0 and r["s"] == reading_of(answering["c1"]) for r in rows)
    assert answering["c1"].text == "In Python 3.12 the --cache option enables caching."


def test_each_written_corpus_gets_its_own_eval_kb_reading_its_pages(tmp_path):
    from evaluation.runner import eval_kb_config

    config = with_corpora(eval_kb_config(tmp_path), ["mypy", "hugo"], root=tmp_path)
    assert config.get(kb_name("mypy")).paths == (tmp_path / "mypy" / "pages",)
    assert config.get(kb_name("hugo")).max_age_days is None  # documentation pages carry no dates


def test_the_examples_page_draws_answers_and_refusals_and_says_which_are_right():
    from evaluation.doctrain_loop import examples_markdown

    def row(i: int, answerable: bool, refused: bool, fact: bool) -> dict:
        return {"id": f"c-{i:03d}", "kind": "number", "query": f"question {i}?", "answerable": answerable,
                "gold": ["42"] if answerable else [], "refused": refused, "has_fact": fact,
                "answer": "Insufficient information" if refused else "It is 42. [1]", "short_answer": ""}

    rows = [row(1, True, False, True), row(2, False, False, False), row(3, False, True, False),
            row(4, True, True, False)]
    page = examples_markdown({"split": "report", "rows": rows}, count=2)
    answers, refusals = page.split("## Refusals")
    assert "c-001** (number; right)" in answers and "c-002** (number; wrong)" in answers
    assert "c-003** (number; right)" in refusals and "c-004** (number; wrong)" in refusals
    assert page == examples_markdown({"split": "report", "rows": rows[::-1]}, count=2)  # same draw, any order


def test_the_reader_figures_read_each_question_s_best_unit():
    import numpy as np

    from evaluation.answers.reader.evaluate import figures

    rows = [{"g": "a", "a": 1, "y": 1}, {"g": "a", "a": 1, "y": 0},   # answerable, its answer scores best
            {"g": "b", "a": 1, "y": 1}, {"g": "b", "a": 1, "y": 0},   # answerable, another unit scores best
            {"g": "u", "a": 0, "y": 0}, {"g": "u", "a": 0, "y": 0}]   # unanswerable
    got = figures(rows, np.array([3.0, 1.0, 0.5, 2.0, -1.0, -2.0]), false_refusal=0.0)
    assert (got["questions"], got["top1"], got["question_auc"]) == (3, 0.5, 1.0)
    assert got["refused_at_fr_0.00"] == 1.0  # below every answerable question's best logit
