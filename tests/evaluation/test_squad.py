"""SQuAD 2.0 through the whole loop: the corpus of a split, its questions, the balanced limit,
the lead-sentence rule and the metrics, and one tiny split built and asked end to end."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

import pytest

from evaluation.answers.splits import SQUAD_FILE, split_of
from evaluation.runner import eval_kb_config, run_set
from evaluation.squad import (
    KB_OF,
    balanced,
    build_squad_kb,
    build_squad_loop,
    holds_gold,
    lead_sentence,
    meets_targets,
    run_squad,
    score_body,
    squad_questions,
    summarise,
    write_squad_corpus,
)
from server.cli import build_parser


def _title(split: str, stem: str) -> str:
    """A title of `stem` that the article split puts in `split`."""
    return next(f"{stem}_{i}" for i in range(1000) if split_of(f"{stem}_{i}") == split)


LIGHTHOUSE, GLACIER, ELSEWHERE = _title("dev", "Karelian_Lighthouse"), _title("dev", "Orvik_Glacier"), \
    _title("train", "Harbour_Town")


def _qa(qid: str, question: str, answers: list[str] = (), plausible: list[str] = ()) -> dict:
    qa = {"id": qid, "question": question, "is_impossible": not answers,
          "answers": [{"text": a, "answer_start": 0} for a in answers]}
    if plausible:
        qa["plausible_answers"] = [{"text": p, "answer_start": 0} for p in plausible]
    return qa


ARTICLES = [
    {"title": LIGHTHOUSE, "paragraphs": [
        {"context": "The Karelian Lighthouse was built in 1872 on the northern cape of Vessel Island. Its lamp "
                    "was designed by the engineer Marta Holm, who also planned the harbour of the island. The "
                    "tower is 41 metres tall and is painted red and white.",
         "qas": [_qa("l1", "Who designed the lamp of the Karelian Lighthouse?", ["Marta Holm", "Marta Holm",
                                                                                  "the engineer Marta Holm"]),
                 _qa("l2", "Who designed the tower of the Vessel Island church?", plausible=["Marta Holm"])]},
        {"context": "In 1931 the Karelian Lighthouse was electrified. The keeper's house became a museum in "
                    "1985, and it now receives about 20,000 visitors each year.",
         "qas": [_qa("l3", "When did the keeper's house of the Karelian Lighthouse become a museum?", ["1985"])]}]},
    {"title": GLACIER, "paragraphs": [
        {"context": "The Orvik Glacier covers 310 square kilometres of the Tamsa plateau. Its meltwater feeds "
                    "the Orvik River, which flows south into the Bay of Lenna.",
         "qas": [_qa("g1", "Where does the Orvik River flow?", ["the Bay of Lenna", "south into the Bay of Lenna"]),
                 _qa("g2", "What is the name of the volcano beneath the Orvik Glacier?")]}]},
    {"title": ELSEWHERE, "paragraphs": [
        {"context": "Harbour Town is not in the dev split.", "qas": [_qa("h1", "Where is Harbour Town?", ["x"])]}]},
]


@pytest.fixture
def squad_dir(tmp_path):
    """A data folder holding a SQuAD 2.0 file of two dev articles and one train article."""
    path = tmp_path / SQUAD_FILE
    path.parent.mkdir(parents=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump({"version": "v2.0", "data": ARTICLES}, handle)
    return tmp_path


# --- the lead sentence and the gold rule -----------------------------------------------------

@pytest.mark.parametrize(("answer", "lead"), [
    ("Marta Holm designed it [1]. The tower is 41 metres tall [2].", "Marta Holm designed it"),
    ("Built in 1872 [12], electrified in 1931 [3].", "Built in 1872"),
    ("  No marker at all, the whole text.  ", "No marker at all, the whole text."),
    ("A list [a] is not a marker [2].", "A list [a] is not a marker"),
    ("", ""),
])
def test_lead_sentence_is_the_answer_up_to_its_first_numbered_marker(answer, lead):
    assert lead_sentence(answer) == lead


def test_gold_rule_folds_case_and_whitespace_and_needs_a_nonempty_gold():
    assert holds_gold("Designed by  MARTA\nholm in 1872", ["marta holm"])
    assert holds_gold("it covers 310 square kilometres", ["nothing", "310 Square   kilometres"])
    assert not holds_gold("Marta designed it", ["Marta Holm"])
    assert not holds_gold("anything", []) and not holds_gold("anything", ["  "])


# --- the corpus and the questions ------------------------------------------------------------

def test_corpus_is_one_document_per_paragraph_of_the_split_titled_by_article(squad_dir, tmp_path):
    path = write_squad_corpus(squad_dir, "dev", tmp_path / "out" / "dev.corpus.jsonl")
    docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [d["id"] for d in docs] == [f"{LIGHTHOUSE}#0", f"{LIGHTHOUSE}#1", f"{GLACIER}#0"]
    assert docs[0]["title"] == LIGHTHOUSE.replace("_", " ") and "_" not in docs[2]["title"]
    assert docs[1]["text"].startswith("In 1931 the Karelian Lighthouse was electrified.")
    assert docs[2]["metadata"] == {"source": "squad", "article": GLACIER}
    assert not any(ELSEWHERE in d["id"] for d in docs)  # a train article stays out of the dev KB


def test_corpus_is_rewritten_only_when_it_changed(squad_dir, tmp_path):
    path = tmp_path / "dev.corpus.jsonl"
    write_squad_corpus(squad_dir, "dev", path)
    stamp = path.stat().st_mtime_ns
    write_squad_corpus(squad_dir, "dev", path)
    assert path.stat().st_mtime_ns == stamp
    path.write_text("stale\n", encoding="utf-8")
    write_squad_corpus(squad_dir, "dev", path)
    assert path.read_text(encoding="utf-8").count("\n") == 3


def test_questions_carry_distinct_gold_texts_and_whether_they_are_answerable(squad_dir):
    questions = {q.id: q for q in squad_questions(squad_dir, "dev")}
    assert list(questions) == ["l1", "l2", "l3", "g1", "g2"]
    assert questions["l1"].raw["answers"] == ["Marta Holm", "the engineer Marta Holm"]
    assert not questions["l1"].raw["is_impossible"] and questions["l1"].type == "answerable"
    assert questions["l2"].raw["is_impossible"] and questions["l2"].raw["answers"] == []
    assert questions["l2"].raw["plausible_answers"] == ["Marta Holm"]
    assert questions["g2"].raw["article"] == GLACIER


def test_a_missing_squad_file_or_unknown_split_is_a_request_error_naming_the_fix(tmp_path, squad_dir):
    from core.errors import RequestError

    with pytest.raises(RequestError, match="--data"):
        squad_questions(tmp_path / "nowhere", "dev")
    with pytest.raises(RequestError, match="train, dev, test"):
        squad_questions(squad_dir, "holdout")


def test_the_limit_alternates_answerable_and_unanswerable_in_file_order(squad_dir):
    questions = squad_questions(squad_dir, "dev")  # l1 a, l2 u, l3 a, g1 a, g2 u
    assert [q.id for q in balanced(questions, 4)] == ["l1", "l2", "l3", "g2"]
    assert [q.id for q in balanced(questions, 10)] == ["l1", "l2", "l3", "g2", "g1"]  # then the longer kind
    assert [q.id for q in balanced(questions, 1)] == ["l1"]
    assert [q.id for q in balanced(questions, None)] == [q.id for q in questions]  # all, as in the file


# --- the metrics on recorded bodies ----------------------------------------------------------

def _body(status: str, answer: str, total: float = 10.0) -> dict:
    return {"status": status, "answer": answer, "timing": {"total": total}}


def test_metrics_on_recorded_bodies(squad_dir):
    questions = {q.id: q for q in squad_questions(squad_dir, "dev")}
    rows = [
        score_body(questions["l1"], _body("answered", "The lamp was designed by MARTA  Holm [1].")),
        # the gold only after the first marker: anywhere, not in the lead
        score_body(questions["l3"], _body("partial", "It was electrified in 1931 [1]. A museum since 1985 [2].")),
        # a refusal quoting the closest text never counts as holding the gold
        score_body(questions["g1"], _body("insufficient", "Insufficient: closest: flows south into the Bay of Lenna")),
        score_body(questions["l2"], _body("insufficient", "Insufficient information.")),
        score_body(questions["g2"], _body("answered", "The Orvik Glacier covers the Tamsa plateau [1].")),
    ]
    assert rows[0]["lead"] == "The lamp was designed by MARTA  Holm" and rows[0]["lead_has_gold"]
    assert not rows[1]["lead_has_gold"] and rows[1]["answer_has_gold"]
    assert not rows[2]["answer_has_gold"]
    assert rows[3]["impossible"] and rows[3]["plausible"] == ["Marta Holm"] and rows[3]["gold"] == []
    metrics, counts = summarise(rows)
    assert metrics == {"lead_answer": round(1 / 3, 4), "answer_anywhere": round(2 / 3, 4),
                       "unanswerable_refused": 0.5, "false_refusal": round(1 / 3, 4)}
    assert counts == {"questions": 5, "answerable": 3, "unanswerable": 2, "lead_answer": 1, "answer_anywhere": 2,
                      "unanswerable_refused": 1, "false_refusal": 1}
    assert meets_targets(metrics) == {"lead_answer": False, "unanswerable_refused": False, "false_refusal": False}


def test_a_kind_with_no_question_has_no_metric_and_no_verdict(squad_dir):
    answerable = [q for q in squad_questions(squad_dir, "dev") if not q.raw["is_impossible"]]
    metrics, counts = summarise([score_body(q, _body("answered", "x [1].")) for q in answerable])
    assert metrics["unanswerable_refused"] is None and metrics["false_refusal"] == 0.0
    assert counts["unanswerable"] == 0
    assert meets_targets(metrics) == {"lead_answer": False, "unanswerable_refused": None, "false_refusal": True}


# --- the command line ------------------------------------------------------------------------

def test_eval_squad_takes_a_split_defaulting_to_dev():
    parser = build_parser()
    assert parser.parse_args(["eval", "squad"]).split == "dev"
    assert parser.parse_args(["eval", "squad", "--split", "test", "--limit", "40"]).split == "test"
    with pytest.raises(SystemExit):
        parser.parse_args(["eval", "squad", "--split", "holdout"])


def test_squad_refuses_another_query_file(squad_dir, tmp_path):
    from core.errors import RequestError

    with pytest.raises(RequestError, match="--split"):
        run_set("squad", squad_dir, queries=tmp_path / "q.jsonl", progress=False)


# --- one tiny split through the whole loop ---------------------------------------------------

def test_a_tiny_split_through_the_whole_loop(squad_dir, tmp_path, embedder):
    kb_config = replace(eval_kb_config(squad_dir), data_dir=tmp_path / "var")
    built = build_squad_kb(kb_config, "dev", progress=False, data_dir=squad_dir, corpus=tmp_path / "c.jsonl")
    assert built["documents"] == 3
    loop = build_squad_loop(kb_config, "dev", use_ner=False)
    questions = squad_questions(squad_dir, "dev")
    result = run_squad(loop, KB_OF["dev"], questions, progress=False)
    rows = {r["id"]: r for r in result["questions"]}
    assert set(rows) == {q.id for q in questions}
    # a plain fact stated once in the KB: answered, the gold text in the lead sentence
    assert rows["l1"]["status"] != "insufficient" and rows["l1"]["lead_has_gold"], rows["l1"]
    assert rows["g1"]["lead_has_gold"], rows["g1"]
    # nothing in the KB is about a volcano: refused
    assert rows["g2"]["status"] == "insufficient" and rows["g2"]["impossible"], rows["g2"]
    assert result["counts"]["answerable"] == 3 and result["counts"]["unanswerable"] == 2
    assert result["metrics"] == summarise(result["questions"])[0]
    assert sum(result["statuses"].values()) == 5 and result["latency"]["total"]["n"] == 5
