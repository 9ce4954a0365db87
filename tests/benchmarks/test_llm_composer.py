"""benchmarks/llm_composer.py without running it: its faults name real issue kinds, its tables render."""

from __future__ import annotations

from benchmarks import llm_composer as bench
from core.vocab import ISSUE_KINDS
from orchestration.compose.llm import FALLBACK_REASONS


def test_every_fault_names_known_issue_kinds_and_every_fallback_a_known_reason():
    known = {kind for kinds in ISSUE_KINDS.values() for kind in kinds}
    for fault in bench.FAULTS:
        assert set(fault.kinds) <= known, fault.name
    assert {reason for _, _, reason in bench.TRANSPORT} <= set(FALLBACK_REASONS)


def test_the_tables_render_from_a_result():
    results = {"runs": 3, "llm_timeout_seconds": 0.5,
               "faults": [{"fault": "drifts a number", "caught": ["unsupported_number"],
                           "repaired": {"status": "answered", "attempts": 2, "used": "llm"},
                           "flagged": {"status": "partial", "attempts": 3, "marked": True, "used": "llm",
                                       "fallback": None}}],
               "fallback_latency": [{"case": "times out", "fallback": "timeout", "seen": [["answered", "timeout"]],
                                     "median_ms": 561.0}],
               "overhead": [{"query": "q", "extractive_ms": 57.0, "llm_path_ms": 23.0, "llm_call_ms": 5.0,
                             "llm_path_without_call_ms": 18.0, "overhead_ms": -39.0,
                             "llm_compose_without_call_ms": 1.0}]}
    text = bench.render(results)
    assert "| drifts a number | unsupported_number | answered (2 attempts, by llm) | partial (3 attempts, " \
           "claim marked, by llm) |" in text
    assert "| times out | timeout | answered | 561.0 |" in text
    assert "| q | 57.0 | 23.0 | 5.0 | 18.0 | -39.0 | 1.0 |" in text
