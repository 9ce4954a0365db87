"""LLMComposer: the answer an OpenAI-compatible model writes from the evidence, or the extractive one.

Contract (as every Sightline component): a cheap constructor of plain values (LLMSettings),
`warm_up()` (the fallback's; no network at start), and
`run(perception, evidence, excluded_claims, feedback=..., session=...) -> Answer`. Promises:

- One LLM call per `run()`, bounded by min(settings.timeout, the request's budget left).
- The reply is read into claims and citations (reply.py); validation then judges it like an
  extractive answer. On a retry, `feedback` (what validation found wrong: the claim, the
  chunks it cited, the problem) goes back to the model with the adjusted evidence.
- Whatever goes wrong with the call or the reply (timeout, connection, HTTP 4xx/5xx,
  malformed JSON, an empty reply, a reply with no citation at all, no budget left), the
  extractive composer answers instead, `Answer.fallback` names the reason (FALLBACK_REASONS)
  and a note says what happened. The session remembers a failure: later attempts of the same
  request go straight to the extractive composer, so one slow model costs one timeout.
- When validation rejects every claim of the model's answer, the loop asks `instead_of()` and
  the extractive answer takes its place (fallback `rejected`), as it does for a timeout: a
  model that mixes a true claim with junk must not do worse than no model.
- Every call is recorded in `Answer.llm_calls` (time, tokens from `usage`, outcome).
- A circuit breaker (breaker.py, one per composer: per worker) counts consecutive failed calls;
  once open, `run()` answers extractively at once (fallback `circuit_open`) until one probe
  call after the cool-down succeeds.
- Never raises for the model's misbehaviour.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from core.errors import UpstreamError
from orchestration.retrieval.scored import ScoredChunk
from orchestration.types import Answer, Feedback, LLMCall
from perception.types import Perception

from ..comparison import comparison_sides
from ..extractive import ExtractiveComposer
from .breaker import CIRCUIT_OPEN, CircuitBreaker
from .client import ChatClient, ChatReply
from .prompt import build_messages
from .reply import parse_reply
from .settings import LLMSettings

log = logging.getLogger("sightline.compose.llm")
REJECTED = "rejected"  # validation found no claim of the model's answer supported (the loop asks, `instead_of`)
FALLBACK_REASONS = ("timeout", "connection", "http_4xx", "http_5xx", "malformed", "empty", "uncited", "budget",
                    CIRCUIT_OPEN, REJECTED)
NOT_SENT = ("budget", CIRCUIT_OPEN)  # outcomes of an LLMCall that never reached the model
MIN_CALL_SECONDS = 0.05  # less budget than this left: do not start a call


class LLMSession:
    """One request's LLM state: the budget left and the failure that stops further calls."""

    def __init__(self, budget_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.deadline = clock() + budget_seconds
        self.failed: str | None = None
        self.detail = ""

    def remaining(self) -> float:
        """Seconds of the budget left (0 when spent)."""
        return max(0.0, self.deadline - self._clock())

    def fail(self, reason: str, detail: str) -> None:
        """Remember the first failure; later attempts of the request do not call the model."""
        if self.failed is None:
            self.failed, self.detail = reason, detail


class LLMComposer:
    """Asks an OpenAI-compatible model for a cited answer; falls back to the extractive composer."""

    name = "llm"
    deterministic = False  # a model may answer the same evidence differently: every retry is asked

    def __init__(self, settings: LLMSettings, fallback: ExtractiveComposer | None = None,
                 client: ChatClient | None = None) -> None:
        """Store the settings (already checked by LLMSettings); nothing is connected.

        Args:
            settings: the backend and its limits.
            fallback: the composer that answers when the model cannot (default: a new extractive one).
            client: the HTTP client (tests may pass their own; default: ChatClient(settings)).
        """
        self.settings = settings
        self.fallback = fallback or ExtractiveComposer()
        self.client = client or ChatClient(settings)
        self.breaker = CircuitBreaker(settings.circuit_failures, settings.circuit_cooldown_seconds)
        self.snippet_chars = self.fallback.snippet_chars

    @property
    def model(self) -> str:
        """The model that writes the answers (the configured name)."""
        return self.settings.model

    def warm_up(self) -> None:
        """Warm the fallback; the model is not called at start (it may be down, that is allowed)."""
        self.fallback.warm_up()

    def session(self) -> LLMSession:
        """A new request's session: the full budget, no failure yet."""
        return LLMSession(self.settings.budget_seconds)

    def run(self, perception: Perception, evidence: Sequence[ScoredChunk], excluded_claims: Sequence[str] = (),
            *, feedback: Sequence[Feedback] = (), session: LLMSession | None = None) -> Answer:
        """Compose an answer with the model, or with the extractive composer when it cannot.

        Args:
            perception: the understood query.
            evidence: the fused evidence, best first; the prompt numbers it [1]..[k].
            excluded_claims: statements earlier attempts were refused for.
            feedback: validation's findings on the previous attempt, sent back to the model.
            session: the request's session (default: a fresh one, the full budget).

        Returns:
            An Answer with composer "llm", or the extractive one with `fallback` set.
        """
        session = session or self.session()
        if session.failed is not None:
            return self._fallback(perception, evidence, excluded_claims, session.failed,
                                  f"the LLM failed earlier in this request ({session.detail})", [])
        if not evidence:
            answer = self.fallback.run(perception, evidence, excluded_claims)
            answer.notes.append("no evidence to give the LLM: the extractive composer answered")
            return answer
        left = session.remaining()
        if left < MIN_CALL_SECONDS:
            detail = f"the request's LLM budget of {self.settings.budget_seconds:g} s is spent"
            session.fail("budget", detail)
            return self._fallback(perception, evidence, excluded_claims, "budget", detail,
                                  [LLMCall(self.settings.model, 0.0, "budget", detail)])
        timeout = min(self.settings.timeout, left)
        messages = build_messages(perception, evidence, feedback, excluded_claims)
        started = time.perf_counter()
        try:
            reply = self.breaker.call(lambda: self.client.complete(messages, timeout))
        except UpstreamError as exc:
            call = LLMCall(self.settings.model, _ms(started), exc.reason, exc.message)
            session.fail(exc.reason, exc.message)
            return self._fallback(perception, evidence, excluded_claims, exc.reason, exc.message, [call])
        return self._read(perception, evidence, excluded_claims, reply, _ms(started), session)

    def _read(self, perception: Perception, evidence: Sequence[ScoredChunk], excluded_claims: Sequence[str],
              reply: ChatReply, ms: float, session: LLMSession) -> Answer:
        """The reply as an Answer, or the fallback when it is empty or cites nothing."""
        language = perception.language if perception.language in ("en", "zh") else "en"
        sides = comparison_sides(perception) if perception.action == "compare" else []
        call = LLMCall(self.settings.model, ms, "ok", "", reply.prompt_tokens, reply.completion_tokens,
                       reply.finish_reason)
        try:
            parsed = parse_reply(reply.content, evidence, sides, self.snippet_chars)
        except Exception:  # noqa: BLE001 - the reply is untrusted input: a parser bug must not fail the request
            log.exception("the LLM's reply could not be parsed; the extractive composer answers",
                          extra={"event": "llm_reply", "chars": len(reply.content)})
            call.outcome, call.detail = "malformed", "the LLM's reply could not be read into claims"
            session.fail(call.outcome, call.detail)
            return self._fallback(perception, evidence, excluded_claims, call.outcome, call.detail, [call])
        problem = None
        if not parsed.claims:
            problem = ("empty", "the LLM's reply is empty")
        elif not parsed.cited and not parsed.refused:
            problem = ("uncited", "the LLM's reply cites no evidence chunk")
        if problem is not None:
            call.outcome, call.detail = problem
            session.fail(*problem)
            return self._fallback(perception, evidence, excluded_claims, problem[0], problem[1], [call])
        notes = list(parsed.notes)
        if reply.finish_reason == "length":
            notes.append(f"the LLM's reply was cut at max_tokens={self.settings.max_tokens}")
        return Answer(text=parsed.text, claims=parsed.claims, citations=parsed.citations, composer=self.name,
                      language=language, notes=notes, llm_calls=[call])

    def instead_of(self, rejected: Answer, perception: Perception, evidence: Sequence[ScoredChunk],
                   excluded_claims: Sequence[str], why: str) -> Answer | None:
        """The answer to give in place of one validation rejected (`why`: what it found): the
        extractive one, when the model wrote the rejected answer (fallback `rejected`, its LLM
        calls kept for the cost); None when the extractive composer wrote it already."""
        if rejected.composer != self.name:
            return None
        return self._fallback(perception, evidence, excluded_claims, REJECTED, why, list(rejected.llm_calls))

    def _fallback(self, perception: Perception, evidence: Sequence[ScoredChunk], excluded_claims: Sequence[str],
                  reason: str, detail: str, calls: list[LLMCall]) -> Answer:
        """The extractive answer, saying why the model's was not used."""
        answer = self.fallback.run(perception, evidence, excluded_claims)
        answer.fallback = reason
        answer.llm_calls = calls
        answer.notes.append(f"the LLM answer was not used ({reason}: {detail}); the extractive composer answered")
        return answer


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
