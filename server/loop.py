"""The agents loop: perceive, route, retrieve, compose, validate, retry. No Flask here.

`AnswerLoop.run()` is what `POST /rag`, `sightline ask`, `sightline eval` and the benchmarks
all call, so they behave the same. The loop owns the retry policy: validation's typed
adjustments (add a task for a missing entity, a date window for stale sources, leave out a
rejected chunk or claim, ...) accumulate and go to the router, which carries out those its
retry table allows; at most `max_retries` extra attempts run, and none once an attempt would
only repeat an earlier one (same plan, or same evidence: `retry.stop`, docs/ROUTER.md). Every
attempt stays in the response.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import IndexUnavailable
from orchestration.compose.extractive import ExtractiveComposer
from orchestration.compose.llm import NOT_SENT, LLMComposer
from orchestration.executor import Executor
from orchestration.focus import Focus
from orchestration.kb.config import KBConfig
from orchestration.retrieval.scored import ScoredChunk
from orchestration.retrieval.search import Retriever
from orchestration.router.config import RouterConfig
from orchestration.router.planner import Router
from orchestration.trace import Operation, StageTime, Trace
from orchestration.types import Answer, Feedback, Plan, ShortAnswer
from orchestration.unwritten import SPECIFIC_BELOW, specific_words, unwritten_words, vocabulary_of
from perception import PerceptionAgent
from perception.followup import resolve as resolve_followup
from validation.agent import ValidationAgent
from validation.types import Adjustment, Verdict

from .context import RequestContext
from .feedback import feedback_for
from .sanitize import allowed_hosts, sanitize_answer, sanitize_value
from .status import (
    UNAVAILABLE_WHY,
    WRITTEN_BY_MODEL,
    final_status,
    flag_issues,
    insufficient_text,
    rejected_by_validation,
    shown_claims,
    shown_text,
    unavailable_note,
)

TRACE_LEVELS = ("none", "summary", "full")
STAGES = ("perceive", "route", "retrieve", "compose", "validate")


@dataclass(slots=True)
class AskRequest:
    """One question and its options, already validated (see server.http.schemas), in its context.

    `context` is the request's frozen context (server/context.py): its date, its caller (whose
    groups are the only ACL groups searched: an anonymous caller sees public documents only),
    its trace id and level, its answer profile. Every layer reads `now` from it.
    `history` holds a conversation's earlier user turns, oldest first (the OpenAI-compatible
    endpoint sends them): a follow-up query is read against them (perception/followup.py).
    """

    query: str
    kbs: list[str] | None = None
    filters: dict[str, Any] | None = None
    top_k: int | None = None
    max_retries: int | None = None
    history: list[str] = field(default_factory=list)
    context: RequestContext = field(default_factory=RequestContext.create)


@dataclass
class Attempt:
    """One pass through route -> retrieve -> compose -> validate."""

    number: int
    plan: Plan
    evidence_ids: list[str]
    answer: Answer
    verdict: Verdict
    hints_in: list[Adjustment] = field(default_factory=list)
    evidence_scores: list[float] = field(default_factory=list)  # in evidence_ids' order
    candidates: list[dict[str, Any]] = field(default_factory=list)  # the evidence's ranks and scores (`_candidate`)

    def to_dict(self) -> dict[str, Any]:
        return {"attempt": self.number, "hints_in": [h.to_dict() for h in self.hints_in],
                "evidence": self.evidence_ids, "answer": shown_text(self.answer, self.verdict),
                "composer": self.answer.composer,
                "fallback": self.answer.fallback,
                "verdict": self.verdict.to_dict(), "plan": self.plan.to_dict(),
                "candidates": self.candidates,
                "scoring": self.answer.scoring.to_dict() if self.answer.scoring else None}


@dataclass
class AnswerResult:
    """What one run of the loop produced, typed: the HTTP and CLI edges turn it into a body.

    Attributes:
        status: answered, partial or insufficient.
        text: the answer as the caller reads it (flagged or refused as the status says).
        perception: what Perception understood.
        attempts: every pass, the last one final.
        operations: every traced step, in order (name, parameters, counts, kept/rejected, ms).
        timing: milliseconds per stage (STAGES) and "total".
        context: the request's context (its date, caller, trace id and level, profile).
        config_version: the router config that served it.
        stages: each stage as it ran (name, start and length in ms), every attempt's in order.
        started: `time.perf_counter()` when the trace started: operations' and stages' `start_ms`
            count from it (`context.arrival.wall_ns_at` turns it into wall time).
        composer: who wrote the final answer and what the LLM cost (`composer_summary`).
        unavailable_kbs: {name: why} of the knowledge bases the plan would have searched and could
            not (their index cannot be read now); the others answered.
    """

    status: str
    text: str
    perception: Any
    attempts: list[Attempt]
    operations: list[Operation]
    timing: dict[str, float]
    context: RequestContext
    config_version: str
    stages: list[StageTime] = field(default_factory=list)
    started: float = 0.0
    composer: dict[str, Any] = field(default_factory=dict)
    unavailable_kbs: dict[str, str] = field(default_factory=dict)

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]

    @property
    def short_answer(self) -> ShortAnswer | None:
        """A value question's value as the answer's lead writes it, with its citation; only for an
        `answered` reply (a partial one's lead may carry the issue)."""
        return self.final.answer.short_answer if self.status == "answered" else None

    @property
    def trace_id(self) -> str:
        return self.context.trace_id

    @property
    def caller(self) -> dict[str, Any]:
        """How the response names who asked (server.callers.Caller.to_dict())."""
        return self.context.caller.to_dict()

    def to_body(self, level: str = "full") -> dict[str, Any]:
        """The POST /rag response body at a trace level (see `shape_trace`)."""
        final, answered = self.final, self.status != "insufficient"
        body: dict[str, Any] = {
            "trace_id": self.trace_id,
            "status": self.status,
            "answer": self.text,
            "citations": [c.to_dict() for c in final.answer.citations] if answered else [],
            "claims": shown_claims(final.answer, final.verdict) if answered else [],
            "perception": self.perception.to_dict(),
            "plan": final.plan.to_dict(),
            "validation": final.verdict.to_dict(),
            "attempts": [a.to_dict() for a in self.attempts],
            "operations": [op.to_dict() for op in self.operations],
            "timing": dict(self.timing),
            "config_version": self.config_version,
            "caller": dict(self.caller),
            "composer": dict(self.composer),
            "unavailable_kbs": [{"kb": name, "reason": why} for name, why in sorted(self.unavailable_kbs.items())],
            "short_answer": self.short_answer.to_dict() if self.short_answer else None,
        }
        if any(a.answer.composer in WRITTEN_BY_MODEL for a in self.attempts):
            # the trace quotes what validation rejected: kept for explanation, never as a live link or image
            hosts = allowed_hosts(c.url for c in final.answer.citations)
            for key in ("plan", "validation", "attempts", "operations"):
                body[key] = sanitize_value(body[key], hosts)
        return shape_trace(body, level)


class AnswerLoop:
    """Runs requests through the three agents it is given (server.bootstrap.build_loop wires them);
    cheap constructor, `warm_up()` loads models."""

    def __init__(self, kb_config: KBConfig, router_config: RouterConfig, retriever: Retriever, executor: Executor,
                 perception: PerceptionAgent, router: Router, composer: ExtractiveComposer,
                 validator: ValidationAgent, composers: Mapping[str, ExtractiveComposer | LLMComposer] | None = None,
                 ) -> None:
        """`composer` is the extractive one, which answers every profile `composers` does not name
        (profile -> composer, e.g. the default profile's LLM composer)."""
        self.kb_config = kb_config
        self.router_config = router_config
        self.retriever = retriever
        self.executor = executor
        self.perception = perception
        self.router = router
        self.composer = composer
        self.validator = validator
        self.composers: dict[str, ExtractiveComposer | LLMComposer] = dict(composers or {})

    # --- lifecycle ---------------------------------------------------------------------

    def warm_up(self, eager: bool = True) -> None:
        """Map every index, load the embedders and the spaCy pipeline, feed KB sources to Perception.

        Args:
            eager: also load what only some questions need (the embedders, jieba's dictionary)
                now, as a service does before it forks; a one-shot command (`sightline ask`)
                passes False and loads them on first use, except the embedders: those start
                loading in a background thread now, while Perception and routing run (nearly
                every plan has a vector query: the default router's broad task, the fallback
                task and retry tasks are hybrid; a keyword-only router config loads it unused).
        """
        if eager:
            self.executor.warm_up()
            for kb in self.retriever.knowledge_bases.values():  # opened by the executor's warm-up
                if kb.bm25 is not None:  # before the fork, so every worker shares them: what an
                    vocabulary_of(kb.keyword_index(None))  # unrestricted caller and
                    vocabulary_of(kb.keyword_index(()))    # an anonymous one may read
            for warm in {id(c): c for c in (self.composer, *self.composers.values())}.values():
                warm.warm_up()
            self.validator.warm_up()
        else:
            self.retriever.open()
            self.retriever.load_embedders_in_background()
        self.perception.set_known_sources(self.retriever.public_sources())
        self.perception.warm_up(eager=eager)
        self.router.warm_up()

    def composer_for(self, profile: str) -> ExtractiveComposer | LLMComposer:
        """The composer that answers a profile (server/profiles.py); the extractive one by default."""
        return self.composers.get(profile, self.composer)

    def set_router_config(self, config: RouterConfig) -> None:
        """Swap in a new (already validated) router config; takes effect on the next request."""
        self.router_config = config
        self.router = Router(config)
        self.retriever.credibility_params = config.credibility

    @property
    def max_age_days(self) -> dict[str, int | None]:
        return {name: s.max_age_days for name, s in self.kb_config.knowledge_bases.items()}

    # --- the loop ----------------------------------------------------------------------

    def run(self, request: AskRequest) -> dict[str, Any]:
        """Answer one question; the response body of POST /rag (and `sightline ask --json`)."""
        return self.answer(request).to_body(request.context.trace_level)

    def answer(self, request: AskRequest) -> AnswerResult:
        """Answer one question, typed (the service reads metrics from it, then renders the body)."""
        if request.kbs:
            for name in request.kbs:
                self.retriever.kb(name)  # raises UnknownKnowledgeBase listing the known ones
        started = time.perf_counter()
        context = request.context
        now = context.now
        trace = Trace(context.trace_id)
        router, retries_allowed = self.router, self._max_retries(request)
        with trace.stage("perceive"), trace.operation("perceive", query=request.query, now=now.isoformat()) as op:
            perception, followup = resolve_followup(self.perception, request.query, request.history, now)
            op.output_count = len(perception.entities)
            op.reason = f"action={perception.action}, language={perception.language}"
        if followup is not None:
            trace.add(Operation(op="perceive.followup", params=followup.to_dict(), stage="perceive",
                                input_count=len(request.history), output_count=len(perception.entities),
                                kept=[f"turn {followup.from_turn}"], reason=followup.reason))
        composer = self.composer_for(context.profile)
        session = composer.session()
        feedback: list[Feedback] = []
        attempts: list[Attempt] = []
        read: dict[int, tuple[list[ScoredChunk], list[str]]] = {}  # id(answer) -> its evidence and unwritten words
        unavailable: dict[str, str] = {}  # KB -> why the plans searched without it
        adjustments: list[Adjustment] = []
        overrides = {key: value for key, value in (("filters", request.filters), ("top_k", request.top_k))
                     if value is not None}
        for number in range(retries_allowed + 1):
            with trace.stage("route"), trace.operation("route", attempt=number,
                                                       hints=[a.to_dict() for a in adjustments]) as op:
                plan = router.run(perception, hints=adjustments, attempt=number, kbs=request.kbs, overrides=overrides)
                op.output_count = len(plan.tasks)
                op.kept = [t.id for t in plan.tasks]
                plan = self._without_unavailable(plan, request.kbs, trace, number, unavailable)
            deterministic = composer.deterministic
            repeated = _same_plan(plan, attempts) if deterministic else None
            if repeated is not None:
                _trace_repeat(trace, number, repeated, "plan")
                if repeated.number != attempts[-1].number:  # its outcome, not the last one's, is final
                    attempts.append(replace(repeated, number=number, hints_in=list(adjustments)))
                break
            with trace.stage("retrieve"):
                evidence = self.executor.run(plan, trace, now, acl_groups=context.acl_groups)
                unwritten = self._unwritten(perception, plan, trace, number, context.acl_groups)
            repeated = _same_evidence(plan, evidence, attempts) if deterministic else None
            if repeated is not None:
                _trace_repeat(trace, number, repeated, "evidence")
                attempts.append(replace(repeated, number=number, plan=plan, hints_in=list(adjustments)))
                break
            with trace.stage("compose"), trace.operation("compose", attempt=number, composer=composer.name) as op:
                answer = composer.run(perception, evidence, excluded_claims=plan.dropped_claims, feedback=feedback,
                                      session=session)
                _trace_llm_calls(trace, answer, number, composer.model)
                op.params.update(used=answer.composer, fallback=answer.fallback)
                if answer.term_weights:
                    op.params["term_weights"] = answer.term_weights
                op.reason = "; ".join(answer.notes[-1:]) if answer.fallback else ""
                op.input_count, op.output_count = len(evidence), len(answer.claims)
                op.kept = [k for k, why in answer.decisions.items() if why.startswith("chosen")]
                op.rejected = {k: why for k, why in answer.decisions.items() if not why.startswith("chosen")}
            with trace.stage("validate"):
                verdict = self._validate(perception, answer, evidence, now, trace, number, unwritten)
            read[id(answer)] = (evidence, unwritten)
            attempts.append(Attempt(number, plan, [c.chunk_id for c in evidence], answer, verdict, list(adjustments),
                                    [c.score for c in evidence], [_candidate(c) for c in evidence]))
            if verdict.ok or number == retries_allowed or not verdict.hints:
                break
            # adjustments accumulate (a fix found once keeps applying), without repeats
            adjustments += [a for a in verdict.hints if a not in adjustments]
            feedback = feedback_for(answer, verdict)
        final = attempts[-1]
        if rejected_by_validation(final.answer, final.verdict):  # after the retries: the model had its chances
            answer, verdict = self._instead_of_rejected(composer, attempts, read, perception, now, trace)
            final = attempts[-1] = replace(final, answer=answer, verdict=verdict)
        status = final_status(final.answer, final.verdict)
        text = final.answer.text
        if status == "insufficient":
            text = insufficient_text(perception, final.plan, final.verdict, [a.verdict for a in attempts])
        elif status == "partial":
            text = flag_issues(final.answer, final.verdict, perception.language)
        if unavailable:
            text += "\n\n" + unavailable_note(sorted(unavailable), perception.language)
        # the one exit of every answer text (/rag, chat, the CLI): safe for Markdown renderers
        cited = final.answer.citations if status != "insufficient" else []
        text = sanitize_answer(text, allowed_hosts(c.url for c in cited),
                               quotes_documents=final.answer.composer not in WRITTEN_BY_MODEL)
        result = self._result(request, trace, perception, attempts, status, text, started)
        result.composer = composer_summary(context.profile, composer, attempts)
        result.unavailable_kbs = unavailable
        return result

    # --- helpers -----------------------------------------------------------------------

    def _max_retries(self, request: AskRequest) -> int:
        limit = self.router_config.limits.max_retries
        if request.max_retries is None:
            return limit
        return request.max_retries

    def _without_unavailable(self, plan: Plan, named: Sequence[str] | None, trace: Trace, attempt: int,
                             unavailable: dict[str, str]) -> Plan:
        """The plan without the tasks of knowledge bases that cannot be searched now (a build that is
        missing, damaged or changed on disk since it was opened), each added to `unavailable` with
        the reason a caller is told, and a `kb.unavailable` operation saying so.

        Raises:
            IndexUnavailable: a KB the request named cannot be searched, or none of the plan's can
                (503, naming the KB and the fix).
        """
        failed: dict[str, IndexUnavailable] = {}
        kbs = list(dict.fromkeys(task.kb for task in plan.tasks))
        for name in kbs:
            try:
                self.retriever.kb(name).require_intact()
            except IndexUnavailable as exc:
                failed[name] = exc
        if not failed:
            return plan
        asked = [name for name in failed if name in (named or ())]
        if asked or len(failed) == len(kbs):
            raise failed[asked[0] if asked else kbs[0]]
        why = UNAVAILABLE_WHY["en"]
        unavailable.update((name, why) for name in failed)
        trace.add(Operation(op="kb.unavailable", stage="route", params={"attempt": attempt, "kbs": sorted(failed)},
                            input_count=len(kbs), output_count=len(kbs) - len(failed),
                            kept=[name for name in kbs if name not in failed],
                            rejected={name: why for name in failed},
                            reason="searched without the knowledge bases whose index cannot be read now; "
                                   "/readyz names the file and the fix"))
        return replace(plan, tasks=[task for task in plan.tasks if task.kb not in failed])

    def _unwritten(self, perception, plan: Plan, trace: Trace, attempt: int,
                   acl_groups: Sequence[str] | None) -> list[str]:
        """The question's specific words that no document of the plan's knowledge bases the caller
        may read writes (orchestration/unwritten.py), recorded as the `vocabulary` operation; []
        when a KB of the plan has no keyword index to read."""
        names = sorted({task.kb for task in plan.tasks})
        kbs = [self.retriever.kb(name) for name in names]
        if not names or any(kb.bm25 is None for kb in kbs):
            return []
        with trace.operation("vocabulary", attempt=attempt, kbs=names, specific_below_zipf=SPECIFIC_BELOW) as op:
            specific = specific_words(Focus.of(perception))
            missing = unwritten_words(specific, [vocabulary_of(kb.keyword_index(acl_groups)) for kb in kbs])
            op.input_count, op.output_count = len(specific), len(missing)
            op.kept = [word for word in specific.values() if word not in missing]
            op.rejected = {word: "no document searched that the caller may read writes it" for word in missing}
        return missing

    def _instead_of_rejected(self, composer: ExtractiveComposer | LLMComposer, attempts: Sequence[Attempt],
                             read: Mapping[int, tuple[list[ScoredChunk], list[str]]], perception, now: dt.date,
                             trace: Trace) -> tuple[Answer, Verdict]:
        """The composer's answer in place of the final attempt's, which validation rejected; that
        answer and its verdict when the composer has none (its own refusal stands).

        Asked once the retries are over, so a model first gets validation's feedback. The retries
        were shaped by the model's mistakes (a chunk its junk cited is excluded next), so the
        replacement reads each attempt's evidence in turn, the first attempt's first, and keeps
        the first answer validation does not refuse (else the first attempt's refusal): what the
        request would have answered had the model timed out. Each try is a `compose.fallback`
        operation with its validation."""
        final = attempts[-1]
        kinds = list(dict.fromkeys(i.kind for i in final.verdict.issues))
        why = f"validation left no claim of the model's answer standing ({', '.join(kinds)})"
        tried: list[tuple[Answer, Verdict]] = []
        for attempt in {id(a.answer): a for a in attempts}.values():
            evidence, unwritten = read[id(attempt.answer)]
            started = time.perf_counter()
            with trace.stage("compose"):
                instead = composer.instead_of(final.answer, perception, evidence, attempt.plan.dropped_claims, why)
            if instead is None:
                return final.answer, final.verdict
            trace.add(Operation(op="compose.fallback", stage="compose",
                                ms=round((time.perf_counter() - started) * 1000, 3),
                                params={"attempt": final.number, "evidence_of_attempt": attempt.number,
                                        "composer": composer.name, "used": instead.composer,
                                        "fallback": instead.fallback, "rejected_issues": kinds},
                                input_count=len(evidence), output_count=len(instead.claims),
                                reason=f"{why}: the extractive composer answered from attempt {attempt.number}'s "
                                       f"evidence instead"))
            with trace.stage("validate"):
                verdict = self._validate(perception, instead, evidence, now, trace, final.number, unwritten)
            tried.append((instead, verdict))
            if final_status(instead, verdict) != "insufficient":
                break
        return next((t for t in tried if final_status(*t) != "insufficient"), tried[0])

    def _validate(self, perception, answer, evidence, now, trace: Trace, attempt: int,
                  unwritten: Sequence[str] = ()) -> Verdict:
        start = trace.elapsed_ms()
        verdict, timings = self.validator.run_with_timing(perception, answer, evidence, now=now,
                                                          max_age_days=self.max_age_days, unwritten=unwritten)
        for check, ms in timings.items():  # the checks ran one after another, in this order
            found = [i for i in verdict.issues if i.check == check]
            trace.add(Operation(op=f"validate.{check}", params={"attempt": attempt}, input_count=len(answer.claims),
                                output_count=len(found), ms=ms, start_ms=start,
                                rejected={f"{i.kind}#{k}": i.detail for k, i in enumerate(found)}))
            start += ms
        return verdict

    def _result(self, request: AskRequest, trace: Trace, perception, attempts: list[Attempt], status: str,
                text: str, started: float) -> AnswerResult:
        timing = {stage: round(trace.stage_ms.get(stage, 0.0), 3) for stage in STAGES}
        timing["total"] = round((time.perf_counter() - started) * 1000, 3)
        return AnswerResult(status=status, text=text, perception=perception, attempts=attempts,
                            operations=list(trace.operations), timing=timing, context=request.context,
                            config_version=self.router_config.version, stages=list(trace.stages),
                            started=trace.started)


def _candidate(chunk: ScoredChunk) -> dict[str, Any]:
    """How a piece of evidence ranked: its rank and score in every list it was in (each task's
    keyword and vector arm after credibility, each task's fused list), its fused score and its
    credibility multiplier (what /ui shows per candidate)."""
    return {"chunk_id": chunk.chunk_id, "kb": chunk.kb, "fused": round(chunk.fused, 6),
            "credibility": round(chunk.credibility, 4), "ranks": dict(chunk.ranks),
            "scores": {name: round(value, 6) for name, value in chunk.scores.items()}}


def _plan_key(plan: Plan) -> dict[str, Any]:
    """What decides a plan's evidence: everything but its notes (which name the attempt)."""
    return {k: v for k, v in plan.to_dict().items() if k != "notes"}


def _same_plan(plan: Plan, attempts: Sequence[Attempt]) -> Attempt | None:
    """The earlier attempt that ran this very plan, if any.

    Retrieval, the extractive composer and validation are deterministic, so such an attempt
    would retrieve, say and be judged exactly as that one was; its hints are already among the
    adjustments, so every later plan would be the same again (the retries' fixed point).
    """
    key = _plan_key(plan)
    return next((a for a in attempts if _plan_key(a.plan) == key), None)


def _same_evidence(plan: Plan, evidence: Sequence[ScoredChunk], attempts: Sequence[Attempt]) -> Attempt | None:
    """The previous attempt, when this one retrieved the same evidence (ids and scores, in order)
    and drops the same claims: the extractive answer and its verdict would be that attempt's."""
    if not attempts:
        return None
    last = attempts[-1]
    same = (last.plan.dropped_claims == plan.dropped_claims
            and last.evidence_ids == [c.chunk_id for c in evidence]
            and last.evidence_scores == [c.score for c in evidence])
    return last if same else None


def _trace_repeat(trace: Trace, number: int, repeated: Attempt, what: str) -> None:
    """Record why the retries stop at attempt `number`: it repeats an earlier attempt's `what`."""
    reason = (f"attempt {number} has attempt {repeated.number}'s {what}; retrieval, composition and "
              f"validation are deterministic, so its answer and verdict would be attempt {repeated.number}'s "
              f"and every further retry the same: retries stop here")
    trace.add(Operation(op="retry.stop", params={"attempt": number, "repeats": repeated.number, "same": what},
                        stage="route", input_count=1, output_count=0, reason=reason))


def _trace_llm_calls(trace: Trace, answer: Answer, attempt: int, model: str | None) -> None:
    """One `compose.llm` operation per LLM call: model, tokens, outcome, time."""
    for k, call in enumerate(answer.llm_calls, start=1):
        trace.add(Operation(op="compose.llm", params={
            "attempt": attempt, "call": k, "model": model, "outcome": call.outcome,
            "fallback": None if call.outcome == "ok" else call.outcome,
            "prompt_tokens": call.prompt_tokens, "completion_tokens": call.completion_tokens,
            "finish_reason": call.finish_reason}, input_count=call.prompt_tokens or 0,
            output_count=call.completion_tokens or 0, ms=call.ms, reason=call.detail or call.outcome))


def composer_summary(profile: str, composer: ExtractiveComposer | LLMComposer, attempts: Sequence[Attempt]) -> dict:
    """The response's `composer` field: the profile, who wrote the final answer, why not the LLM, its cost.

    `used` is "llm" or "extractive"; `fallback` the reason the LLM's answer was not used (None
    when it was, or when no LLM is configured); `llm_calls`, `tokens` and `llm_ms` add up every
    attempt's calls.
    """
    final = attempts[-1].answer
    calls = [call for attempt in attempts for call in attempt.answer.llm_calls]
    model = composer.model
    detail = None
    if final.fallback:  # the failed call's detail, or (a reply validation rejected) the composer's note
        detail = next((c.detail for c in reversed(calls) if c.outcome != "ok"), None) or final.notes[-1]
    return {"profile": profile, "used": final.composer, "model": model, "fallback": final.fallback,
            "detail": detail, "llm_calls": len([c for c in calls if c.outcome not in NOT_SENT]),
            "tokens": {"prompt": sum(c.prompt_tokens or 0 for c in calls),
                       "completion": sum(c.completion_tokens or 0 for c in calls)},
            "llm_ms": round(sum(c.ms for c in calls), 3)}


def shape_trace(body: dict[str, Any], level: str) -> dict[str, Any]:
    """A full-trace response cut down to a trace level: "full" as is, "summary" without plans,
    candidates, scoring, kept/rejected lists and parameters (counts instead), "none" without
    attempts and operations."""
    if level == "full":
        return body
    out = dict(body)
    if level == "none":
        out["attempts"], out["operations"] = [], []
        return out
    out["attempts"] = [{k: v for k, v in a.items() if k not in ("plan", "candidates", "scoring")}
                       for a in body["attempts"]]
    out["operations"] = [{k: v for k, v in o.items() if k not in ("kept", "rejected", "params")}
                         | {"rejected_count": len(o.get("rejected") or {})} for o in body["operations"]]
    return out


