"""The OpenAI-compatible endpoints: POST /v1/chat/completions (plain and streamed) and GET /v1/models.

Chat frontends (Open WebUI, LibreChat, the `openai` clients) speak this API. The mapping:

- `model` is an answer profile (server/profiles.py): `sightline` (default composer) or
  `sightline-extractive`; an unknown one is 404 `model_not_found`.
- The last message must be the user's: it is the question. The earlier user turns go along as
  `AskRequest.history`, so a follow-up ("and the 737 MAX 8?") is read against them
  (perception/followup.py); system, developer, assistant and tool messages are not read.
- The reply's `content` is Markdown: the answer with its [n] markers and a "Sources" list
  (server/markdown.py: HTML outside code shown as text, each source with its headings and its
  URL or document id). The structured result rides in the extra top-level field `sightline`
  (the POST /rag body plus `profile`, `issues` and `followup`) and in the headers
  X-Request-ID, X-Sightline-Status and X-Sightline-Config-Version. An `insufficient`
  answer is a normal 200 reply that says so.
- OpenAI's sampling fields (temperature, top_p, max_tokens, stop, seed, user, ...) are
  type-checked and ignored (the answer is composed from evidence, not sampled); fields this
  endpoint does not know are tolerated, as clients send many. Sightline's own options
  (kb, now, filters, top_k, max_retries, trace) go in an optional `sightline` object. The
  `sightline` field carries the summary trace unless `trace` asks for "full" (or "none"):
  chat clients keep the whole reply, and the full trace makes it about three times larger.
- `stream: true` answers as server-sent events in OpenAI's chunk format, ending with
  `data: [DONE]`; the answer is complete before the first event, so every error is still an
  ordinary status code and the last chunk carries the `sightline` field.
- Errors are OpenAI's shape `{"error": {"message", "type", "param", "code"}}` (errors.py).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from flask import Blueprint, Response, current_app, g, jsonify

from core.errors import RequestError

from .. import metrics
from ..context import RequestContext
from ..loop import AnswerResult, AskRequest
from ..markdown import render_markdown
from ..profiles import get_profile, list_profiles
from .body import decode_json
from .context import request_context
from .schemas import RequestLimits, check_json_value, has_text, parse_ask_request

chat = Blueprint("chat", __name__, url_prefix="/v1")

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
# OpenAI's fields that change sampling or packaging: checked for type (and range), then ignored
NUMBERS = {"temperature": (0.0, 2.0), "top_p": (0.0, 1.0), "presence_penalty": (-2.0, 2.0),
           "frequency_penalty": (-2.0, 2.0)}
INTEGERS = {"max_tokens": 1, "max_completion_tokens": 1, "n": 1, "seed": None, "top_logprobs": 0}
BOOLEANS = ("stream", "logprobs", "parallel_tool_calls", "store")
STRINGS = ("user",)
SIGHTLINE_OPTIONS = ("kb", "now", "filters", "top_k", "max_retries", "trace")
CHAT_TRACE = "summary"  # the trace level of a chat reply unless `sightline.trace` says otherwise
BODY_EXAMPLE = '{"model": "sightline", "messages": [{"role": "user", "content": "..."}]}'  # for an empty body
MODELS_CREATED = 1751328000  # 2025-07-01: profiles have no build date; a fixed one keeps the list stable


@dataclass
class ChatRequest:
    """A validated chat completion request: the profile, the question (with history) and how to reply."""

    profile: str
    ask: AskRequest
    stream: bool = False


def _field_error(field: str, expected: str, value: Any) -> RequestError:
    return RequestError(f"'{field}' must be {expected}, got {type(value).__name__}", field=field)


def _text_of(content: Any, field: str, limits: RequestLimits) -> str:
    """The text of a message's content: a string, or the text parts of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        texts = []
        for index, part in enumerate(content):
            where = f"{field}[{index}]"
            if not isinstance(part, dict) or not isinstance(part.get("type"), str):
                raise RequestError(f"'{where}' must be a content part object with a 'type', such as "
                                   "{\"type\": \"text\", \"text\": \"...\"}", field=where)
            if ("text" in part or part["type"] == "text") and not isinstance(part.get("text"), str):
                raise _field_error(f"{where}.text", "a string", part.get("text"))
            if part["type"] == "text":
                texts.append(part["text"])
        text = "\n".join(texts)
    else:
        raise _field_error(field, "a string or a list of content parts", content)
    if len(text) > limits.max_message_chars:
        raise RequestError(f"'{field}' is {len(text)} characters; the limit is {limits.max_message_chars}",
                           field=field)
    return text


def _check_openai_fields(body: dict) -> None:
    """Type- and range-check the OpenAI fields Sightline ignores (a wrong type is still a 400)."""
    for name, (low, high) in NUMBERS.items():
        value = body.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _field_error(name, "a number", value)
        if not low <= value <= high:
            raise RequestError(f"'{name}' must be between {low:g} and {high:g}, got {value}", field=name)
    for name, minimum in INTEGERS.items():
        value = body.get(name)
        if value is None:
            continue
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise _field_error(name, "an integer", value)
        if minimum is not None and value < minimum:
            raise RequestError(f"'{name}' must be at least {minimum}, got {value}", field=name)
    if body.get("n") not in (None, 1, 1.0):
        raise RequestError(f"'n' must be 1: Sightline gives one answer per request, got {body['n']}", field="n")
    for name in BOOLEANS:
        if body.get(name) is not None and not isinstance(body[name], bool):
            raise _field_error(name, "true or false", body[name])
    for name in STRINGS:
        if body.get(name) is not None and not isinstance(body[name], str):
            raise _field_error(name, "a string", body[name])
    stop = body.get("stop")
    if stop is not None and not isinstance(stop, str) and not (
            isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
        raise _field_error("stop", "a string or a list of strings", stop)
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise _field_error("stream_options", "an object", options)
    if options and "include_usage" in options and not isinstance(options["include_usage"], bool):
        raise _field_error("stream_options.include_usage", "true or false", options["include_usage"])


def _options(value: Any, query: str, limits: RequestLimits, context: RequestContext) -> AskRequest:
    """The AskRequest of the question with Sightline's own options (the `sightline` object) applied,
    in `context`; the trace level is CHAT_TRACE unless the options name one."""
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise _field_error("sightline", "an object", value)
    unknown = sorted(set(value) - set(SIGHTLINE_OPTIONS))
    if unknown:
        raise RequestError(f"unknown option(s) sightline.{', sightline.'.join(unknown)}; allowed: "
                           f"{', '.join(SIGHTLINE_OPTIONS)}", field=f"sightline.{unknown[0]}")
    try:
        return parse_ask_request({"trace": CHAT_TRACE, **value, "query": query}, limits, context)
    except RequestError as exc:
        field = f"sightline.{exc.field}" if exc.field and exc.field != "query" else exc.field
        raise RequestError(exc.message.replace(f"'{exc.field}'", f"'{field}'"), field=field) from None


def _required(body: dict[str, Any], name: str, what: str) -> Any:
    """body[name]; RequestError saying it is required and what it holds when it is missing or null."""
    value = body.get(name)
    if value is None:
        raise RequestError(f"'{name}' is required: {what}", field=name)
    return value


def parse_chat_request(body: Any, limits: RequestLimits = RequestLimits(),
                       context: RequestContext | None = None) -> ChatRequest:
    """A ChatRequest from a decoded JSON body; RequestError (400) names the first bad field,
    UnknownModel (404) an unknown model.

    Promises: the question's context is `context` (None: an anonymous caller's, arriving now)
    with the model's profile and the `sightline` options' `now` and `trace`."""
    if not isinstance(body, dict):
        raise RequestError(f"the request body must be a JSON object, got {type(body).__name__}", field="body")
    check_json_value(body)
    model = _required(body, "model", "one of the models GET /v1/models lists, e.g. \"sightline\"")
    if not isinstance(model, str):
        raise _field_error("model", "a string", model)
    profile = get_profile(model).name
    messages = _required(body, "messages", "the conversation, ending with the user's question")
    if not isinstance(messages, list):
        raise _field_error("messages", "a list of {role, content} objects", messages)
    if not messages:
        raise RequestError("'messages' is empty: send at least one user message", field="messages")
    if len(messages) > limits.max_messages:
        raise RequestError(f"'messages' holds {len(messages)} messages; the limit is {limits.max_messages}",
                           field="messages")
    turns: list[tuple[str, str, str]] = []  # (role, text, field of its content)
    for index, message in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(message, dict):
            raise _field_error(where, "an object with 'role' and 'content'", message)
        role = message.get("role")
        if not isinstance(role, str) or role not in ROLES:
            raise RequestError(f"'{where}.role' must be one of {', '.join(ROLES)}, got {role!r}"[:300],
                               field=f"{where}.role")
        if "content" not in message and role not in ("assistant",):
            raise RequestError(f"'{where}.content' is required", field=f"{where}.content")
        turns.append((role, _text_of(message.get("content"), f"{where}.content", limits), f"{where}.content"))
    role, query, field = turns[-1]
    if role != "user":
        raise RequestError(f"the last message must be the user's question; messages[{len(turns) - 1}] is "
                           f"{role!r}", field=f"messages[{len(turns) - 1}].role")
    if not has_text(query):
        raise RequestError(f"'{field}' is empty: send the question text", field=field)
    if len(query.strip()) > limits.max_query_chars:
        raise RequestError(f"'{field}' (the question) is {len(query.strip())} characters; the limit is "
                           f"{limits.max_query_chars}", field=field)
    _check_openai_fields(body)
    ask = _options(body.get("sightline"), query, limits, replace(context or RequestContext.create(), profile=profile))
    ask.history = [text.strip() for r, text, _f in turns[:-1] if r == "user" and has_text(text)]
    return ChatRequest(profile=profile, ask=ask, stream=bool(body.get("stream")))


# --- responses -----------------------------------------------------------------------------

def followup_of(result: AnswerResult) -> dict[str, Any] | None:
    """How the question was read as a follow-up (the perceive.followup operation), or None."""
    for op in result.operations:
        if op.op == "perceive.followup":
            return dict(op.params)
    return None


def sightline_field(result: AnswerResult, ask: AskRequest) -> dict[str, Any]:
    """The extra top-level `sightline` field: the POST /rag body plus profile, issues and followup."""
    body = result.to_body(ask.context.trace_level)
    body["profile"] = ask.context.profile
    body["issues"] = list(body["validation"]["issues"])
    body["followup"] = followup_of(result)
    return body


def reply_markdown(result: AnswerResult) -> str:
    """The `content` of the reply: the answer and its Sources list (none for an insufficient answer);
    sources' ages count from the request's date."""
    citations = [c.to_dict() for c in result.final.answer.citations] if result.status != "insufficient" else []
    text = result.text
    if result.short_answer is not None:  # the asked-for value first, then the units that state it
        text = f"**{result.short_answer.text}** [{result.short_answer.citation}]\n\n{text}"
    return render_markdown(text, citations, result.context.now, result.perception.language)


def _pieces(text: str) -> list[str]:
    """The reply cut after sentence ends and line breaks: the deltas of a stream."""
    return [p for p in re.split(r"(?<=[\n.!?。！？])", text) if p]


def _event(data: dict[str, Any]) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"


def stream_events(completion_id: str, created: int, model: str, fingerprint: str, content: str,
                  extra: dict[str, Any]) -> Iterator[str]:
    """The server-sent events of a streamed reply: role, content deltas, finish (with `sightline`), [DONE]."""
    head = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
            "system_fingerprint": fingerprint}
    yield _event({**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                       "logprobs": None, "finish_reason": None}]})
    for piece in _pieces(content):
        yield _event({**head, "choices": [{"index": 0, "delta": {"content": piece}, "logprobs": None,
                                           "finish_reason": None}]})
    yield _event({**head, "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}],
                  "sightline": extra})
    yield "data: [DONE]\n\n"


def _model_body(profile) -> dict[str, Any]:
    return {"id": profile.name, "object": "model", "created": MODELS_CREATED, "owned_by": "sightline",
            "description": profile.description}


@chat.get("/models")
def models():
    """The answer profiles, as OpenAI's model list."""
    return jsonify({"object": "list", "data": [_model_body(p) for p in list_profiles()]})


@chat.get("/models/<path:model>")
def get_model(model: str):
    """One answer profile; 404 model_not_found for an unknown one."""
    return jsonify(_model_body(get_profile(model)))


@chat.post("/chat/completions")
def completions():
    """Answer the conversation's last user message (see the module docstring for the mapping)."""
    service = current_app.extensions["sightline"]
    loop = service.require_ready()
    limits = service.settings.limits
    parsed = parse_chat_request(decode_json(limits.max_body_bytes, limits.body_timeout_seconds, example=BODY_EXAMPLE),
                                limits, request_context("chat"))
    ask = parsed.ask
    result = service.answer(loop, ask)
    metrics.record_result(result, time.perf_counter() - g.started, endpoint="chat")
    g.answer_headers = {"X-Sightline-Status": result.status, "X-Sightline-Config-Version": result.config_version,
                        "X-Sightline-Model": parsed.profile}
    g.log_extra = {"answer_status": result.status, "attempts": len(result.attempts), "profile": parsed.profile,
                   "config_version": result.config_version, "timing": result.timing,
                   "followup": followup_of(result) is not None, "stream": parsed.stream}
    content = reply_markdown(result)
    extra = sightline_field(result, ask)
    completion_id, created = f"chatcmpl-{result.trace_id}", int(time.time())
    fingerprint = f"sightline-{result.config_version}"
    if parsed.stream:
        return Response(stream_events(completion_id, created, parsed.profile, fingerprint, content, extra),
                        mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    return jsonify({"id": completion_id, "object": "chat.completion", "created": created, "model": parsed.profile,
                    "system_fingerprint": fingerprint,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "refusal": None},
                                 "logprobs": None, "finish_reason": "stop"}],
                    "sightline": extra})
