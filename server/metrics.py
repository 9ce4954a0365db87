"""Prometheus metrics (DESIGN.md section 8), recorded from response bodies, correct under gunicorn.

Multiprocess mode, as prometheus-client documents it: the start command sets
PROMETHEUS_MULTIPROC_DIR before this module is imported (`sightline serve` and
gunicorn.conf.py both do), gunicorn's `on_starting` wipes it, `child_exit` calls
`mark_dead` (live gauges dropped, counters and histograms folded into an archive file), and
`/metrics` collects the files into a fresh registry on each scrape. Counters and histograms
therefore sum over all workers, dead ones included (no resets when a worker is replaced);
gauges say how they combine (`livemax`: the largest value among live workers). Without the
variable (tests, `flask run`) the default registry is used.

Times are observed in seconds (Prometheus' base unit) with buckets chosen for stages that
take from a tenth of a millisecond (a BM25 lookup) to seconds (a cold embedder).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from core.vocab import ARM_TYPES
from orchestration.compose.llm import FALLBACK_REASONS, NOT_SENT
from orchestration.compose.llm.breaker import STATES, CircuitBreaker
from orchestration.trace import Operation
from validation.types import Verdict

from .loop import STAGES, AnswerResult
from .metrics_archive import archive_dead_worker, scrape_lock

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
REQUEST_STATUSES = ("answered", "partial", "insufficient", "rejected", "error")
ENDPOINTS = ("rag", "ui", "chat", "mcp")  # POST /rag, POST /ui/answer, POST /v1/chat/completions, MCP's `ask`
RELOAD_RESULTS = ("ok", "unchanged", "error")

# seconds; dense around 1-500 ms where stages and whole requests live
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0,
                   10.0, 30.0)
STAGE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0,
                 2.5, 5.0)
LLM_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 15.0, 20.0, 30.0, 60.0)
LLM_OUTCOMES = ("ok", "failed")
TOKEN_KINDS = ("prompt", "completion")
RETRIEVAL_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

REQUESTS = Counter("sightline_requests", "Question requests by outcome: answered, partial, insufficient; "
                   "rejected (4xx), error (5xx); endpoint: rag (POST /rag), ui (POST /ui/answer, the /ui ask page), "
                   "chat (POST /v1/chat/completions) or mcp (the MCP tool ask).",
                   ["status", "endpoint"])
REQUEST_SECONDS = Histogram("sightline_request_seconds", "Wall time of a question request, parse to response, "
                            "by endpoint (rag, ui, chat, mcp).", ["endpoint"], buckets=REQUEST_BUCKETS)
STAGE_SECONDS = Histogram("sightline_stage_seconds", "Time per stage of the answer loop, summed over attempts.",
                          ["stage"], buckets=STAGE_BUCKETS)
RETRIEVAL_SECONDS = Histogram("sightline_retrieval_seconds", "Time of one retrieval arm on one knowledge base.",
                              ["search", "kb"], buckets=RETRIEVAL_BUCKETS)
VALIDATION_ISSUES = Counter("sightline_validation_issues", "Validation issues found, every attempt counted.",
                            ["check", "kind"])
RETRIES = Counter("sightline_retries", "Attempts beyond the first, by the issue kinds that triggered them.",
                  ["reason"])
ROUTER_RELOADS = Counter("sightline_router_reloads", "Router config reloads per worker: ok, unchanged "
                         "(forced, same content), error (refused, the last good config keeps serving).",
                         ["result"])
ROUTER_CONFIG = Gauge("sightline_router_config", "1 for the router config version a live worker serves, "
                      "0 for versions it served before.", ["version"], multiprocess_mode="livemax")
AUTH_FAILURES = Counter("sightline_auth_failures", "Requests refused with 401, by reason: missing_key (anonymous "
                        "calls are off), malformed_key, unknown_key, bad_gateway_header, bad_admin_token; and "
                        "admin_throttled: refused with 429 after too many failed admin attempts.", ["reason"])
COMPOSER_FALLBACKS = Counter("sightline_composer_fallbacks", "LLM answers not used, the extractive composer "
                             "answering instead, by reason: timeout, connection, http_4xx, http_5xx, malformed, "
                             "empty, uncited, budget, circuit_open.", ["reason"])
LLM_SECONDS = Histogram("sightline_llm_seconds", "Wall time of one LLM call (connect to last byte), by outcome: "
                        "ok (a reply was read) or failed.", ["outcome"], buckets=LLM_BUCKETS)
LLM_TOKENS = Counter("sightline_llm_tokens", "Tokens of LLM calls as the server's usage reports them, by kind: "
                     "prompt, completion.", ["kind"])
LLM_CIRCUIT_STATE = Gauge("sightline_llm_circuit_state", "The LLM circuit breaker of each worker: 0 closed "
                          "(the model is called), 1 half open (one probe call), 2 open (answers are extractive "
                          "without calling the model); the largest among live workers.", multiprocess_mode="livemax")
LLM_CIRCUIT_OPENS = Counter("sightline_llm_circuit_opens", "Times a worker's LLM circuit breaker opened (after "
                            "consecutive failed calls, or a failed probe).")
KB_CHUNKS = Gauge("sightline_kb_chunks", "Chunks in each served knowledge base.", ["kb"],
                  multiprocess_mode="livemax")


def initialise(kb_chunks: dict[str, int | None], version: str, kbs: Iterable[str] = ()) -> None:
    """Per worker at start: zero every known label set (so rates exist before the first event)."""
    for endpoint in ENDPOINTS:
        REQUEST_SECONDS.labels(endpoint)
        for status in REQUEST_STATUSES:
            REQUESTS.labels(status, endpoint)
    from .callers import AUTH_FAILURE_REASONS

    for metric, values in ((ROUTER_RELOADS, RELOAD_RESULTS), (AUTH_FAILURES, AUTH_FAILURE_REASONS),
                           (STAGE_SECONDS, STAGES), (COMPOSER_FALLBACKS, FALLBACK_REASONS),
                           (LLM_SECONDS, LLM_OUTCOMES), (LLM_TOKENS, TOKEN_KINDS)):
        for value in values:
            metric.labels(value)
    for name in dict.fromkeys([*kbs, *kb_chunks]):
        add_knowledge_base(name, kb_chunks.get(name))
    set_router_version(None, version)


def add_knowledge_base(name: str, chunks: int | None) -> None:
    """A KB served from now on (at start, or added while running): its chunk gauge and retrieval
    label sets."""
    for search in ARM_TYPES:
        RETRIEVAL_SECONDS.labels(search, name)
    KB_CHUNKS.labels(name).set(chunks or 0)


def set_router_version(before: str | None, after: str) -> None:
    """The active-version gauge: the new version 1, the one it replaces 0."""
    if before and before != after:
        ROUTER_CONFIG.labels(before).set(0)
    ROUTER_CONFIG.labels(after).set(1)


def record_auth_failure(reason: str) -> None:
    """A request refused with 401 (reason: one of server.callers.AUTH_FAILURE_REASONS)."""
    AUTH_FAILURES.labels(reason).inc()


def record_reload(result: str) -> None:
    ROUTER_RELOADS.labels(result).inc()


def record_failure(status: str, seconds: float, endpoint: str = "rag") -> None:
    """A question request that ended in an error response (status: rejected or error; endpoint: ENDPOINTS)."""
    REQUESTS.labels(status, endpoint).inc()
    REQUEST_SECONDS.labels(endpoint).observe(seconds)


def record_result(result: AnswerResult, seconds: float, endpoint: str = "rag") -> None:
    """Everything one answered request tells (see `record_answer`), read from the typed result."""
    record_answer(result.status, result.timing, result.operations, [a.verdict for a in result.attempts], seconds,
                  endpoint)


def record_answer(status: str, timing: dict[str, float], operations: Sequence[Operation],
                  verdicts: Sequence[Verdict], seconds: float, endpoint: str = "rag") -> None:
    """Outcome, stage times, retrieval arm times, validation issues and retries of one request.

    Args:
        status: answered, partial or insufficient.
        timing: milliseconds per stage.
        operations: the traced steps; `retrieve.keyword` / `retrieve.vector` give arm times per KB,
            `compose.llm` the LLM calls (time, tokens, and the fallback a failed call caused).
        verdicts: one per attempt, in order; each attempt but the last was retried for its issues.
        seconds: wall time of the whole request.
        endpoint: which endpoint asked (ENDPOINTS): rag, ui, chat or mcp.
    """
    REQUESTS.labels(status, endpoint).inc()
    REQUEST_SECONDS.labels(endpoint).observe(seconds)
    for stage in STAGES:
        STAGE_SECONDS.labels(stage).observe(timing.get(stage, 0.0) / 1000)
    for op in operations:
        if op.op.startswith("retrieve."):
            search = op.op.split(".", 1)[1]
            RETRIEVAL_SECONDS.labels(search, str(op.params.get("kb"))).observe(op.ms / 1000)
        elif op.op == "compose.llm":
            record_llm_call(op)
    for verdict in verdicts:
        for issue in verdict.issues:
            VALIDATION_ISSUES.labels(issue.check, issue.kind).inc()
    for previous in verdicts[:-1]:
        for kind in sorted({issue.kind for issue in previous.issues}) or ["unknown"]:
            RETRIES.labels(kind).inc()


def record_llm_call(op: Operation) -> None:
    """One LLM call: its time (unless no call was made), its tokens, the fallback it caused."""
    fallback = op.params.get("fallback")
    if fallback not in NOT_SENT:  # no request was sent (budget spent, circuit open): nothing was timed
        LLM_SECONDS.labels("failed" if fallback else "ok").observe(op.ms / 1000)
    for kind in TOKEN_KINDS:
        tokens = op.params.get(f"{kind}_tokens")
        if isinstance(tokens, int) and tokens > 0:
            LLM_TOKENS.labels(kind).inc(tokens)
    if fallback:
        COMPOSER_FALLBACKS.labels(str(fallback)).inc()


def watch_llm_circuit(breaker: CircuitBreaker) -> None:
    """Per worker at start: keep the circuit gauge and the opens counter in step with `breaker`."""
    def changed(state: str, opened: bool) -> None:
        LLM_CIRCUIT_STATE.set(STATES.index(state))
        if opened:
            LLM_CIRCUIT_OPENS.inc()

    breaker.listener = changed
    LLM_CIRCUIT_STATE.set(STATES.index(breaker.state))


def exposition() -> tuple[bytes, str]:
    """The metrics text for a scrape: every worker's values (multiprocess) or this process's."""
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        with scrape_lock(directory):
            return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def mark_dead(pid: int) -> None:
    """A worker died: drop its live gauges and fold its counters and histograms into the archive.

    Its events stay in the totals (no counter resets), and its files go, so scrape time does
    not grow with the number of workers that ever lived (server.metrics_archive).
    """
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        multiprocess.mark_process_dead(pid)
        archive_dead_worker(directory, pid)
