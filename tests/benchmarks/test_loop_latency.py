"""The loop benchmark's pure parts: the results check and the table (the run itself needs the eval KB)."""

from benchmarks.loop_latency import _fingerprint, compare, percentile, table


def test_a_changed_or_missing_query_is_reported():
    stored = {"q1": {"status": "answered"}, "q2": {"status": "partial"}, "q3": {"status": "answered"}}
    now = {"q1": {"status": "answered"}, "q2": {"status": "answered"}, "q4": {"status": "answered"}}
    assert compare(now, stored) == ["q2", "q3", "q4"]
    assert compare(stored, stored) == []


def test_the_fingerprint_keeps_what_a_speed_change_must_not_alter():
    body = {"status": "answered", "answer": "A [1]", "citations": [{"chunk_id": "d#0", "snippet": "x"}],
            "attempts": [{"evidence": ["d#0", "e#1"], "answer": "A [1]"}], "timing": {"total": 3.0}}
    assert _fingerprint(body) == {"status": "answered", "answer": "A [1]", "citations": ["d#0"],
                                  "attempts": [["d#0", "e#1"]]}


def test_percentile_and_table():
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    text = table({"stages": {"total": {"median_ms": 1.0, "p95_ms": 2.0, "mean_ms": 1.5}}})
    assert text.splitlines()[-1] == "| total | 1.0 | 2.0 | 1.5 |"
