"""The scoring rules against hand-worked examples (upstream definitions)."""

from __future__ import annotations

import math

from evaluation.metrics import multihop_query_metrics, ndcg_at_k, recall_at_k
from evaluation.rgb import contains_answer, language_of, source_tag, write_corpus
from evaluation.stats import latency_summary


def test_ndcg_and_recall():
    assert ndcg_at_k(["a", "b"], {"a": 1}) == 1.0
    assert math.isclose(ndcg_at_k(["x", "a"], {"a": 1}), 1 / math.log2(3))
    assert recall_at_k(["a", "x"], {"a": 1, "b": 1}, 2) == 0.5


def test_multihop_substring_rule_ignores_spaces_and_newlines():
    chunks = ["nothing here", "The cat\nsat on the mat", "dog barked"]
    row = multihop_query_metrics(chunks, ["cat sat", "dogbarked"])
    assert row["hits@10"] == 1.0 and row["hits@4"] == 1.0 and row["mrr@10"] == 0.5
    assert row["all_evidence@10"] == 1.0
    assert math.isclose(row["map@10"], (1 / 2 + 1 / 3) / 2)


def test_rgb_answer_rule():
    assert contains_answer("At least 12人 died", ["12人"])
    assert contains_answer("Tampa, Florida hosted it", "tampa, florida")
    assert contains_answer("A and C", ["a", ["b", "c"]])
    assert not contains_answer("A only", ["a", ["b", "c"]])
    assert not contains_answer("anything", [])


def test_rgb_corpus_tags_each_passage_with_its_query_and_role(tmp_path):
    records = [{"id": 3, "query": "q", "answer": ["x"], "positive": ["p1"], "negative": ["n1", "n2"]}]
    path = write_corpus(records, "zh", tmp_path / "c.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and source_tag("zh", 3, "negative") in lines[2]
    assert language_of(tmp_path / "zh_refine_dev.jsonl", []) == "zh"
    assert language_of(tmp_path / "other.jsonl", [{"query": "印度"}]) == "zh"


def test_latency_summary():
    s = latency_summary({"total": [float(i) for i in range(1, 101)], "empty": []})
    assert list(s) == ["total"] and s["total"]["median_ms"] == 50.5 and s["total"]["p95_ms"] == 95.0
