"""The attributes of exported spans: what the trace counts and decides, never what documents say.

The trace a caller sees quotes the documents that caller may read; a tracing backend is read
by operators, so what leaves the process is only what cannot carry a document's words or name
a document: counts, the config's names (rules, knowledge bases, search types, composers,
statuses), weights, dates, issue kinds, the caller's name and groups (never a key). Chunk ids,
kept and rejected lists, claims, reasons, snippets, queries and answers stay out, whoever asks;
the trace id leads to the whole trace in /ui for those allowed to read it.

Operation parameters pass through allow-lists: a number or boolean under any key (but the
credibility settings of the router config, `CONFIG_PARAMS`); text only under a key of
`TEXT_PARAMS`; a mapping only under `NUMBER_MAPS` (its numbers) or `filters`. A text or mapping
parameter added to the trace later leaves the process only once it is named here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orchestration.trace import Operation, StageTime

    from ..loop import AnswerResult

Attribute = str | bool | int | float | Sequence[str] | Sequence[float] | Sequence[int]

PREFIX = "sightline."
# parameters whose text is a config name, an enum value, an id of ours or a date, never a document's words
TEXT_PARAMS = frozenset({"now", "kb", "kbs", "task", "search", "model", "index", "method", "composer", "used",
                         "fallback", "outcome", "finish_reason", "same", "across_kbs", "query_terms",
                         "rejected_issues"})
# parameters that map names of ours (arms, task ids) to numbers: the weights
NUMBER_MAPS = frozenset({"weights"})
# the router config's credibility parameters, the same in every request (config_version names them):
# left out of every span, where they were one attribute in seven
CONFIG_PARAMS = frozenset({"half_life_days", "recency_floor", "authority_weight", "status"})
# OpenInference's span kinds (Arize Phoenix, Langfuse read them); CHAIN for every other step
SPAN_KINDS = {"retrieve.keyword": "RETRIEVER", "retrieve.vector": "RETRIEVER", "embed": "EMBEDDING",
              "compose.llm": "LLM"}
KIND = "openinference.span.kind"


def _is_number(value: Any) -> bool:
    """A number or a boolean (an attribute as it is)."""
    return isinstance(value, int | float)


def _texts(value: Any) -> Attribute | None:
    """A string, or a list of strings, as an attribute; None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def param_attributes(params: Mapping[str, Any]) -> dict[str, Attribute]:
    """The allowed parameters of an operation as `sightline.<key>` attributes (see the module docstring).

    Promises: no value that is not a number, a boolean, an allowed key's text or a filter's
    value; a None, an empty list and every other key are left out.
    """
    out: dict[str, Attribute] = {}
    for key, value in params.items():
        if key in CONFIG_PARAMS:
            continue
        if _is_number(value):
            out[PREFIX + key] = value
        elif key in TEXT_PARAMS and (text := _texts(value)) is not None and text != []:
            out[PREFIX + key] = text
        elif key in NUMBER_MAPS and isinstance(value, Mapping):
            out.update({f"{PREFIX}{key}.{name}": float(v) for name, v in value.items() if _is_number(v)})
        elif key == "filters" and isinstance(value, Mapping):
            for name, v in value.items():
                filtered = v if isinstance(v, bool) else _texts(v)
                if filtered is not None and filtered != []:
                    out[f"{PREFIX}filters.{name}"] = filtered
    return out


def operation_attributes(op: Operation, result: AnswerResult) -> dict[str, Attribute]:
    """One operation's span attributes (the span's name is the operation's): its stage, counts and
    allowed parameters; the plan's rules and weights on `route`, the issue kinds on `validate.*`,
    the model and tokens on `compose.llm`."""
    out: dict[str, Attribute] = {KIND: "GUARDRAIL" if op.op.startswith("validate.") else SPAN_KINDS.get(op.op, "CHAIN"),
                                 PREFIX + "stage": op.stage,
                                 PREFIX + "input_count": op.input_count, PREFIX + "output_count": op.output_count,
                                 PREFIX + "kept_count": len(op.kept), PREFIX + "rejected_count": len(op.rejected)}
    out.update(param_attributes(op.params))
    if op.op == "route":
        out.update(_plan_attributes(result, op.params.get("attempt")))
        out[PREFIX + "hints"] = [str(h.get("action", "")) for h in op.params.get("hints") or ()
                                 if isinstance(h, Mapping)]
    elif op.op.startswith("validate."):
        out[PREFIX + "issues"] = [key.partition("#")[0] for key in op.rejected]
    elif op.op == "compose.llm":
        out.update({"gen_ai.operation.name": "chat", "gen_ai.request.model": str(op.params.get("model", "")),
                    "gen_ai.usage.input_tokens": op.input_count, "gen_ai.usage.output_tokens": op.output_count})
    return out


def _plan_attributes(result: AnswerResult, attempt: Any) -> dict[str, Attribute]:
    """The tasks an attempt's plan ran: rule, knowledge base, search type and weight of each, in order."""
    plan = next((a.plan for a in result.attempts if a.number == attempt), None)
    if plan is None:
        return {}
    return {PREFIX + "tasks": len(plan.tasks), PREFIX + "task.rule": [t.rule for t in plan.tasks],
            PREFIX + "task.kb": [t.kb for t in plan.tasks], PREFIX + "task.search": [t.search for t in plan.tasks],
            PREFIX + "task.weight": [float(t.weight) for t in plan.tasks]}


def stage_attributes(stage: StageTime) -> dict[str, Attribute]:
    """A stage entry's span attributes."""
    return {KIND: "CHAIN", PREFIX + "stage": stage.stage}


def request_attributes(result: AnswerResult) -> dict[str, Attribute]:
    """The root span's attributes: the request's context, outcome, config version, composer and issues."""
    context, final = result.context, result.final
    caller = context.caller.to_dict()
    out: dict[str, Attribute] = {
        KIND: "CHAIN", PREFIX + "trace_id": context.trace_id, PREFIX + "endpoint": context.endpoint,
        PREFIX + "now": context.now.isoformat(), PREFIX + "caller.name": caller["name"],
        PREFIX + "caller.kind": caller["kind"], PREFIX + "caller.groups": list(caller["groups"]),
        PREFIX + "profile": context.profile, PREFIX + "trace_level": context.trace_level,
        PREFIX + "status": result.status, PREFIX + "attempts": len(result.attempts),
        PREFIX + "retries": len(result.attempts) - 1, PREFIX + "config_version": result.config_version,
        PREFIX + "language": result.perception.language, PREFIX + "action": result.perception.action,
        PREFIX + "kbs": sorted({t.kb for t in final.plan.tasks}),
        PREFIX + "issues": [i.kind for i in final.verdict.issues],
        PREFIX + "issue_checks": [i.check for i in final.verdict.issues],
        PREFIX + "citations": len(final.answer.citations) if result.status != "insufficient" else 0,
    }
    out.update({f"{PREFIX}timing.{stage}_ms": ms for stage, ms in result.timing.items()})
    out.update({f"{PREFIX}composer.{key}": value for key in ("used", "fallback", "model")
                if isinstance(value := result.composer.get(key), str)})
    if result.composer.get("llm_calls"):
        out[PREFIX + "llm_calls"] = result.composer["llm_calls"]
    if result.unavailable_kbs:
        out[PREFIX + "unavailable_kbs"] = sorted(result.unavailable_kbs)
    return out
