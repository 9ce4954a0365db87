"""Canned /rag bodies for the /ui tests: the shape `AnswerResult.to_body("full")` gives, with a
model's hostile text wherever a trace can quote it (the question, a document's text and title,
a citation's URL, a rejected attempt's answer, a check's finding, a unit the scorer weighed).

No model is loaded: the fast lane renders these. The browser tests (tests/reliability/
test_ui_browser.py) render real ones.
"""

from __future__ import annotations

import copy
from typing import Any

SCRIPT = "<script>window.pwned=1</script>"
IMAGE = '<img src="http://evil.example/x.png" onerror="window.pwned=2">'
MD_IMAGE = "![pixel](http://evil.example/p.png)"
JS_LINK = "[click](javascript:window.pwned=3)"
HOSTILE = f"{SCRIPT} {IMAGE} {MD_IMAGE} {JS_LINK}"

CLAIM = "E5102 is triggered when the APU does not reach 95% speed within 60 seconds of the start."
CHUNK_ID = "manuals-fault-e5102#0"
CHUNK_TEXT = ("Fault E5102\nE5102 is triggered when the APU does not reach 95% speed\nwithin 60 seconds of the start. "
              f"The EGT limit is 1,038 °C. {HOSTILE}")


def _op(op: str, stage: str, ms: float, **fields: Any) -> dict[str, Any]:
    base = {"op": op, "stage": stage, "params": {}, "input_count": 0, "output_count": 0, "kept": [],
            "rejected": {}, "ms": ms, "reason": ""}
    base.update(fields)
    return base


def _attempt_ops(number: int) -> list[dict[str, Any]]:
    """The operations of one attempt: route, two searches with filter rejections, fusion, compose, checks."""
    return [
        _op("route", "route", 0.5, params={"attempt": number, "hints": []}, output_count=1, kept=["t1"]),
        _op("retrieve.keyword", "retrieve", 1.2, params={"task": "t1", "kb": "manuals", "tokens": ["e5102"]},
            input_count=30, output_count=4, kept=[CHUNK_ID, "manuals-fault-e4027#0"],
            rejected={"manuals-old-e5102#0": "published_at=2019-01-01 < 2023-01-01",
                      "manuals-draft-e5102#0": "status=draft excluded",
                      "manuals-older-e5102#0": "published_at=2018-02-01 < 2023-01-01"}),
        _op("retrieve.vector", "retrieve", 2.0, params={"task": "t1", "kb": "manuals"}, input_count=30,
            output_count=5, kept=["manuals-fault-e4027#0", CHUNK_ID]),
        _op("credibility", "retrieve", 0.1, params={"task": "t1", "kb": "manuals",
                                                      "down_weighted": {CHUNK_ID: "x0.80"}},
            input_count=5, output_count=5, reason="keyword: 1 position(s) changed; "),
        _op("fuse.arms", "retrieve", 0.1, params={"task": "t1", "kb": "manuals"}, input_count=9, output_count=6),
        _op("fuse.tasks", "retrieve", 0.1, input_count=6, output_count=6, kept=[CHUNK_ID, "manuals-fault-e4027#0"]),
        _op("budget", "retrieve", 0.1, input_count=6, output_count=2, kept=[CHUNK_ID, "manuals-fault-e4027#0"],
            rejected={"manuals-fault-code-index#0": "over max_evidence (2)"}),
        _op("compose.llm", "compose", 30.0, params={"attempt": number, "call": 1, "model": "standin-1"}),
        _op("compose", "compose", 31.0, params={"attempt": number, "term_weights": {"e5102": 1.5, "trigger": 0.4}},
            input_count=2, output_count=2, kept=[f"{CHUNK_ID}@12"],
            rejected={f"{CHUNK_ID}@120": f"not chosen: sentence, score 0.10 {SCRIPT}"}),
        _op("validate.citation", "validate", 0.4, params={"attempt": number}, input_count=2, output_count=1,
            rejected={"unsupported_number#0": f"85% is not stated {SCRIPT}"}),
        _op("validate.freshness", "validate", 0.1, params={"attempt": number}, input_count=2),
    ]


def _attempt(number: int, evidence: list[str], hints: list[dict[str, Any]]) -> dict[str, Any]:
    candidates = [{"chunk_id": cid, "kb": "manuals", "fused": round(0.03 - 0.01 * k, 6), "credibility": 0.8,
                   "ranks": {"t1:keyword": k + 1, "t1:vector": 2 - k, "t1": k + 1},
                   "scores": {"t1:keyword": 7.5 - k, "t1:vector": 0.6, "t1": 0.03 - 0.01 * k}}
                  for k, cid in enumerate(evidence)]
    return {"attempt": number, "hints_in": hints, "evidence": evidence,
            "answer": f"The APU must reach 85% speed [1]. {HOSTILE}", "composer": "llm", "fallback": None,
            "verdict": {"ok": False, "checks_run": ["citation", "freshness"], "hints": [],
                        "issues": [{"check": "citation", "kind": "unsupported_number", "claim": 1,
                                    "chunk_id": CHUNK_ID, "entity": None,
                                    "detail": f"85% is not stated in the cited source; it states 95% {SCRIPT}"}]},
            "plan": {"tasks": [{"id": "t1", "query": "E5102 trigger", "search": "hybrid", "kb": "manuals",
                                "weight": 1.0, "priority": 1, "filters": {"exclude_status": ["draft"]},
                                "top_k": 6 + 2 * number, "rule": "code-lookup",
                                "reason": "rule 'code-lookup': the question names the code E5102"}],
                     "excluded_chunks": ["manuals-fault-e4027#0"] if number == 2 else [], "dropped_claims": [],
                     "notes": []},
            "candidates": candidates,
            "scoring": {"threshold": 0.35, "refusal": {},
                        "best": [{"text": f"E5102 is triggered ... {SCRIPT}", "p": 0.91, "unit": "sentence",
                                  "path": ["Fault E5102"], "why": {"names_the_code": 1.2, "overlap": -0.3},
                                  "cross_encoder_logit": None}]} if number == 0 else None}


def answered_body() -> dict[str, Any]:
    """A partial answer by a model over three attempts: one claim supported, one withheld."""
    widen = {"action": "widen", "reason": "unsupported_number", "params": {"factor": 2}}
    exclude = {"action": "exclude_chunk", "reason": "unsupported_number", "params": {"chunk_id": "x"}}
    attempts = [_attempt(0, [CHUNK_ID, "manuals-fault-e4027#0"], []),
                _attempt(1, ["manuals-fault-e4027#0", CHUNK_ID], [widen]),
                _attempt(2, [CHUNK_ID], [widen, exclude])]
    operations = [_op("perceive", "perceive", 3.0, output_count=1, reason="action=lookup, language=en")]
    for number in range(3):
        operations += _attempt_ops(number)
    return {
        "trace_id": "t-answered", "status": "partial",
        "answer": f"{CLAIM[:-1]} [1].\n\nLeft out 1 statement the cited sources do not support.",
        "citations": [{"n": 1, "chunk_id": CHUNK_ID, "kb": "manuals", "source": f"Aurora Ops {SCRIPT}",
                       "title": f"Fault E5102 {IMAGE}", "updated_at": "2024-03-01T00:00:00+00:00",
                       "published_at": "2024-03-01T00:00:00+00:00", "status": "effective",
                       "snippet": CLAIM, "page": None, "url": "javascript:window.pwned=4", "unit": "sentence",
                       "section": "Fault E5102", "path": ["Fault E5102", "Triggers"], "name": None,
                       "version_notes": None}],
        "claims": [{"text": f"{CLAIM[:-1]} [1].", "citations": [1], "numbers": ["95%", "60 seconds"],
                    "kind": "fact", "entity": None, "values": {}, "relation": None, "probability": 0.91},
                   {"text": None, "withheld": ["unsupported_number"], "citations": [1], "numbers": ["85%"],
                    "kind": "fact", "entity": None, "values": {}, "relation": None, "probability": None}],
        "perception": {"query": f"What triggers E5102? {SCRIPT}", "language": "en", "action": "lookup",
                       "entities": [{"text": "E5102", "label": "CODE", "span": [14, 19], "origin": "pattern",
                                     "normalized": "E5102"}],
                       "constraints": {"time": {"start": "2023-01-01", "end": "2023-12-31", "text": "2023"},
                                       "status": ["effective"], "doc_type": [], "source": [], "quantitative": False},
                       "keywords": ["E5102"], "question": {"kind": "cause", "slot": "cause"},
                       "notes": [{"rule": "entity.pattern", "text": "E5102", "produced": {"label": "CODE"}}]},
        "plan": attempts[-1]["plan"], "validation": attempts[-1]["verdict"], "attempts": attempts,
        "operations": operations + [_op("retry.stop", "route", 0.0, params={"attempt": 3},
                                        reason="attempt 3 would repeat attempt 2: retries stop here")],
        "timing": {"perceive": 3.0, "route": 1.5, "retrieve": 11.0, "compose": 93.0, "validate": 1.5,
                   "total": 112.0},
        "config_version": "cd50f82273b4", "caller": {"name": "finance-app", "kind": "key", "groups": ["finance"]},
        "composer": {"profile": "sightline", "used": "llm", "model": "standin-1", "fallback": None, "detail": None,
                     "llm_calls": 3, "tokens": {"prompt": 900, "completion": 90}, "llm_ms": 90.0},
        "unavailable_kbs": []}


def refusal_body() -> dict[str, Any]:
    """A refusal: nothing cited; the last attempt's evidence is the closest."""
    body = copy.deepcopy(answered_body())
    body.update(trace_id="t-refusal", status="insufficient", citations=[], claims=[],
                answer=f"Insufficient information: the evidence never mentions 'Mars'. {SCRIPT}")
    body["validation"] = {"ok": False, "checks_run": ["evidence"], "hints": [],
                          "issues": [{"check": "evidence", "kind": "no_evidence", "claim": None, "chunk_id": None,
                                      "entity": None, "detail": "the evidence never mentions 'Mars'"}]}
    return body


def chunks() -> dict[str, dict[str, Any]]:
    """What the store quotes for these bodies: the cited chunk's text as its caller may read it."""
    return {CHUNK_ID: {"kb": "manuals", "title": f"Fault E5102 {IMAGE}", "text": CHUNK_TEXT}}
