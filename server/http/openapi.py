"""The OpenAPI 3.1 document served at GET /openapi.json, built from the live limits.

tests/server/test_openapi.py keeps it true: every route of the app is documented here, and
real responses validate against the schemas (the top-level /rag response allows no
undocumented field).
"""

from __future__ import annotations

from typing import Any

from core.names import NAME_PATTERN, NAME_RULE
from orchestration.compose.llm import FALLBACK_REASONS

from ..loop import STAGES, TRACE_LEVELS
from ..metrics import REQUEST_STATUSES
from ..profiles import PROFILES
from .chat import CHAT_TRACE, ROLES, SIGHTLINE_OPTIONS
from .schemas import FILTER_FIELDS, TEXT_CHARACTER, RequestLimits

STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}
OBJ = {"type": "object"}
NSTR = {"type": ["string", "null"]}
NINT = {"type": ["integer", "null"]}
NULL = {"type": "null"}
# JSON Schema patterns search (ECMA-262): anchored here, where `$` is the end of the string
KB_NAME = {**STR, "pattern": f"^{NAME_PATTERN.pattern}$", "description": f"A knowledge base name: {NAME_RULE}."}
# W3C Trace Context, read by the question endpoints (server/traceparent.py)
TRACEPARENT = {"name": "traceparent", "in": "header", "required": False, "schema": STR,
               "description": "W3C Trace Context: with OpenTelemetry export on (OTEL_EXPORTER_OTLP_ENDPOINT), this "
                              "request's spans join the caller's trace under its span; a malformed value is "
                              "ignored, never refused."}
# the question endpoints' own request id (server/http/app.py)
REQUEST_ID = {"name": "X-Request-ID", "in": "header", "required": False, "schema": STR,
              "description": "Echoed back and used as trace_id when it is 1-128 of A-Z a-z 0-9 . _ : - (any other "
                             "value is ignored, never refused); generated when absent or ignored."}


def _arr(items: dict) -> dict:
    return {"type": "array", "items": items}


def _obj(props: dict, required: list[str] | None = None, extra: bool = True, **more: Any) -> dict:
    body: dict[str, Any] = {"type": "object", "properties": props,
                            "required": list(props) if required is None else required}
    if not extra:
        body["additionalProperties"] = False
    body.update(more)
    return body


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _error_response(description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": _ref("Error")}}}


def _schemas(limits: RequestLimits) -> dict[str, Any]:
    # null is accepted wherever the server treats it as "not given" (every optional field but trace)
    strings = {"oneOf": [STR, _arr(STR), NULL]}
    filters = _obj({"time_start": {**NSTR, "format": "date", "description": "First day of the window on the "
                                   "document date (inclusive)."},
                    "time_end": {**NSTR, "format": "date", "description": "Last day of the window (inclusive); on "
                                 "or after time_start, else 400 naming filters.time_end."},
                    "status": strings, "doc_type": strings, "source": strings, "exclude_status": strings,
                    "keep_undated": BOOL}, required=[], extra=False,
                   description="Filters applied inside retrieval on top of the router's.")
    filters["type"] = ["object", "null"]
    assert set(filters["properties"]) == set(FILTER_FIELDS)
    rag_request = _obj({
        "query": {**STR, "minLength": 1, "maxLength": limits.max_query_chars, "pattern": TEXT_CHARACTER,
                  "description": "The question (English or Chinese); not only whitespace and control "
                                 "characters."},
        "kb": {"oneOf": [KB_NAME, {**_arr(KB_NAME), "minItems": 1}, NULL],
               "description": "Knowledge base name(s) to search; default every served one (GET /kb)."},
        "now": {**NSTR, "format": "date", "description": "Resolve relative times and ages against this date "
                "(YYYY-MM-DD); default today (UTC)."},
        "filters": filters,
        "top_k": {**NINT, "minimum": 1, "maximum": limits.max_top_k, "description": "Results per retrieval task."},
        "max_retries": {**NINT, "minimum": 0, "maximum": limits.max_retries,
                        "description": "Extra attempts after validation issues; default router.yaml limits."},
        "trace": {"enum": list(TRACE_LEVELS), "default": "full",
                  "description": "none: no attempts/operations; summary: operations without params, kept and "
                  "rejected ids; full: everything."},
    }, required=["query"], extra=False)
    citation = _obj({"n": INT, "chunk_id": STR, "kb": STR, "source": NSTR, "title": STR, "updated_at": NSTR,
                     "snippet": STR, "published_at": NSTR, "status": NSTR,
                     "page": NINT,
                     "unit": {**NSTR, "description": "What the cited text is in its document: sentence, "
                              "list_item, definition, field, table_row or code."},
                     "name": {**NSTR, "description": "For a field: the documented name it describes (a setting, "
                              "an option, a function)."},
                     "version_notes": {"type": ["array", "null"], "items": STR,
                                       "description": "For a field: its version notes (\"Changed in version 1.0\"), "
                                       "read as metadata, never quoted as text."},
                     "section": {**NSTR, "description": "The heading the cited chunk falls under."},
                     "path": {"type": ["array", "null"], "items": STR,
                              "description": "The headings the cited unit falls under, outermost first."},
                     "url": {**NSTR, "description": "The document's own address (metadata url); answer links and "
                             "images may point at its host only."}},
                    required=["n", "chunk_id", "kb", "source", "title", "updated_at", "snippet"])
    claim = _obj({"text": {**NSTR, "description": "null when a model wrote it and validation rejected it (see "
                                              "withheld)"},
                  "withheld": {**_arr(STR), "description": "Why a model's claim is not shown: its issue kinds."},
                  "citations": _arr(INT), "numbers": _arr(STR),
                  "kind": {**STR, "description": "fact (a quoted unit), relation (a comparison derived from two "
                           "facts), verdict (a yes/no question's Yes. or No., citing the unit that decides it) "
                           "or notice (about the answer itself)"}},
                 required=["text", "citations", "numbers", "kind"])
    entity = _obj({"text": STR, "label": STR, "span": _arr(INT), "origin": {"enum": ["ner", "rule", "pattern"]}})
    perception = _obj({
        "query": STR, "language": STR, "action": STR, "entities": _arr(entity),
        "constraints": _obj({"time": {"oneOf": [{"type": "null"}, _obj({"start": STR, "end": STR, "text": STR})]},
                             "status": _arr(STR), "doc_type": _arr(STR), "source": _arr(STR),
                             "quantitative": BOOL}),
        "keywords": _arr(STR),
        "question": {**OBJ, "description": "What the query asks, read once from the question-kind table of "
                     "config/perception.yaml: kind, slot, unit, counted, subject, polarity, direction, "
                     "comparative, head, identifiers, "
                     "options (command-line options and setting keys it writes: --retry-lock, "
                     "installer.max-workers), parts (sub-questions, each a question)."}})
    task = _obj({"id": STR, "query": STR, "search": {"enum": ["vector", "keyword", "hybrid"]}, "kb": STR,
                 "weight": NUM, "priority": INT, "filters": OBJ, "top_k": INT, "rule": STR, "reason": STR})
    plan = _obj({"tasks": _arr(task), "fusion": _obj({"method": STR, "k": NUM}), "max_evidence": INT,
                 "context_budget_words": INT, "config_version": STR, "notes": _arr(STR),
                 "excluded_chunks": _arr(STR), "dropped_claims": _arr(STR)})
    issue = _obj({"check": STR, "kind": STR, "detail": STR, "claim": {"type": ["integer", "null"]},
                  "chunk_id": NSTR, "entity": NSTR,
                  "reason": {"type": ["object", "null"], "description": "A refusing finding's reason as data: "
                             "`code` and `values` (validation/reasons.py); the answer writes it in the "
                             "question's language."}})
    hint = _obj({"action": STR, "reason": STR, "params": OBJ})
    verdict = _obj({"ok": BOOL, "issues": _arr(issue), "hints": _arr(hint), "checks_run": _arr(STR)})
    candidate = _obj({"chunk_id": STR, "kb": STR, "fused": NUM, "credibility": NUM,
                      "ranks": {**OBJ, "description": "1-based rank per list: `<search>:keyword`, `<search>:vector` "
                                "(after credibility), `<search>` (the search's fused list)."},
                      "scores": {**OBJ, "description": "The score in each of those lists."}},
                     description="How one piece of evidence ranked (trace=full).")
    attempt = _obj({"attempt": INT, "hints_in": _arr(hint), "evidence": _arr(STR), "answer": STR,
                    "verdict": verdict, "plan": plan, "candidates": _arr(candidate),
                    "scoring": {"type": ["object", "null"], "description": "The answer model's reading when it "
                                "ranked the units (threshold, refusal, best units with p and the features that "
                                "moved it most); null otherwise (trace=full)."}},
                   required=["attempt", "hints_in", "evidence", "answer", "verdict"],
                   description="One pass route -> retrieve -> compose -> validate; `plan`, `candidates` and "
                   "`scoring` with trace=full only.")
    operation = _obj({"op": STR, "stage": STR, "input_count": INT, "output_count": INT, "ms": NUM, "reason": NSTR,
                      "params": OBJ, "kept": _arr(STR), "rejected": OBJ, "rejected_count": INT},
                     required=["op", "input_count", "output_count", "ms"],
                     description="trace=full: params, kept, rejected {id: reason}; trace=summary: rejected_count.")
    timing = _obj({**{stage: NUM for stage in STAGES}, "total": NUM}, extra=False,
                  description="Milliseconds per stage, summed over attempts; total is the whole loop.")
    rag_response = _obj({
        "trace_id": {**STR, "description": "Equals the X-Request-ID response header and tags every log line."},
        "status": {"enum": ["answered", "partial", "insufficient"],
                   "description": "answered: validated; partial: unresolved issues flagged in the answer; "
                   "insufficient: no supported answer (says so and what was searched)."},
        "answer": STR, "citations": _arr(citation), "claims": _arr(claim), "perception": perception,
        "plan": plan, "validation": verdict, "attempts": _arr(attempt), "operations": _arr(operation),
        "timing": timing, "config_version": {**STR, "description": "Router config version (content hash)."},
        "caller": _ref("Caller"),
        "composer": _ref("Composer"),
        "short_answer": {"oneOf": [_obj({"text": STR, "citation": INT}, extra=False), NULL],
                         "description": "For a question asking for a value (a number, version, amount, duration "
                                        "or date) in an answered reply: the value as the answer's lead unit "
                                        "writes it, with that unit's citation [n]; else null."},
        "unavailable_kbs": {**_arr(_obj({"kb": STR, "reason": STR}, extra=False)),
                            "description": "Knowledge bases the plan would have searched whose index cannot be "
                                           "read now (missing, damaged or being replaced): the others answered, "
                                           "and the answer ends with a note saying so. A request that names such "
                                           "a knowledge base gets 503 instead."},
    }, extra=False)
    composer = _obj({
        "profile": {**STR, "description": "The answer profile: sightline or sightline-extractive."},
        "used": {"enum": ["llm", "extractive"], "description": "Who wrote the final answer."},
        "model": {**NSTR, "description": "The profile's LLM model, null when it has none."},
        "fallback": {"oneOf": [{"enum": list(FALLBACK_REASONS)}, NULL],
                     "description": "Why the LLM's answer was not used (the extractive composer answered); null "
                                    "when it was, or when no LLM is configured."},
        "detail": {**NSTR, "description": "What happened to the LLM call, with a fallback."},
        "llm_calls": INT, "tokens": _obj({"prompt": INT, "completion": INT}, extra=False),
        "llm_ms": {**NUM, "description": "Milliseconds spent in LLM calls, every attempt."},
    }, extra=False, description="Who composed the answer and what the LLM cost (docs/COMPOSER.md).")
    caller = _obj({"name": {**STR, "description": "The API key's name, the gateway user, or anonymous; never a key."},
                   "kind": {"enum": ["key", "gateway", "anonymous", "operator"]},
                   "groups": {**_arr(STR), "description": "ACL groups whose documents the caller may see "
                              "(empty: public documents only; [\"*\"]: every document)."}}, extra=False)
    error = _obj({"error": _obj({"code": STR, "message": STR, "field": STR}, required=["code", "message"],
                                extra=False)}, extra=False)
    kb = _obj({"name": STR, "description": STR, "ready": BOOL, "chunks": {"type": ["integer", "null"]},
               "documents": {"type": ["integer", "null"]}, "built_at": NSTR,
               "build_id": {**NSTR, "description": "The build directory serving (changes when a rebuild is "
                            "picked up)."},
               "embedder": {"type": ["object", "null"]}, "dense_index": NSTR})
    chat = _chat_schemas(limits, rag_request, rag_response)
    return {**chat, "RagRequest": rag_request, "RagResponse": rag_response, "Citation": citation, "Error": error,
            "KnowledgeBase": kb, "Caller": caller, "Composer": composer,
            "KnowledgeBases": _obj({"knowledge_bases": _arr(_ref("KnowledgeBase")), "config_version": STR,
                                    "caller": _ref("Caller")}),
            "Health": _obj({"status": {"enum": ["ok"]}, "pid": INT}),
            "Ready": _obj({"ready": BOOL, "reason": NSTR, "worker": INT, "checks": OBJ},
                          required=["ready", "worker", "checks"]),
            "RouterState": _obj({"version": STR, "file": STR, "worker": INT, "loaded_at": NSTR,
                                 "last_error": NSTR, "rules": _arr(STR), "yaml": STR}),
            "ReloadResult": _obj({"result": {"enum": ["ok", "unchanged", "error"]}, "version_before": STR,
                                  "version_after": STR, "cause": STR, "worker": INT, "error": STR},
                                 required=["result", "version_before", "version_after", "worker"])}


def _chat_schemas(limits: RequestLimits, rag_request: dict, rag_response: dict) -> dict[str, Any]:
    """The OpenAI-compatible request and response schemas (server/http/chat.py)."""
    nnum = {"type": ["number", "null"]}
    part = _obj({"type": {**STR, "description": "text parts are read; other kinds (image_url, ...) are ignored"},
                 "text": STR}, required=["type"])
    content = {"oneOf": [{**STR, "maxLength": limits.max_message_chars}, _arr(part), NULL],
               "description": f"A string or a list of content parts, at most {limits.max_message_chars} characters "
               f"of text; the last (user) message is the question: at most {limits.max_query_chars} characters, "
               "not only whitespace."}
    message = _obj({"role": {"enum": list(ROLES)}, "content": content}, required=["role"],
                   description="system, developer, assistant and tool messages are accepted and not read; the "
                   "earlier user messages resolve follow-up questions.")
    properties = {k: v for k, v in rag_request["properties"].items() if k in SIGHTLINE_OPTIONS}
    properties["trace"] = {**properties["trace"], "default": CHAT_TRACE,
                           "description": "The trace in the reply's `sightline` field: summary (the default "
                           "here) has operations as counts and no plans; full adds plans, parameters, kept and "
                           "rejected ids (about three times larger); none has no attempts or operations."}
    options = _obj(properties, required=[], extra=False,
                   description="Sightline's own options, as on POST /rag (but the trace defaults to summary).")
    options["type"] = ["object", "null"]
    request = _obj({
        "model": {"enum": list(PROFILES), "description": "An answer profile (GET /v1/models)."},
        "messages": {**_arr(message), "minItems": 1, "maxItems": limits.max_messages,
                     "description": "The conversation; the last message must be the user's question."},
        "stream": {**BOOL, "description": "true: server-sent events in OpenAI's chunk format, then data: [DONE]."},
        "stream_options": {"type": ["object", "null"], "properties": {"include_usage": BOOL}},
        "temperature": {**nnum, "minimum": 0, "maximum": 2}, "top_p": {**nnum, "minimum": 0, "maximum": 1},
        "presence_penalty": {**nnum, "minimum": -2, "maximum": 2},
        "frequency_penalty": {**nnum, "minimum": -2, "maximum": 2},
        "max_tokens": {**NINT, "minimum": 1}, "max_completion_tokens": {**NINT, "minimum": 1},
        "n": {**NINT, "minimum": 1, "maximum": 1, "description": "One answer per request."},
        "seed": NINT, "user": NSTR, "stop": {"oneOf": [STR, _arr(STR), NULL]},
        "sightline": options,
    }, required=["model", "messages"],
        description="OpenAI's chat completion request. Sampling fields are checked and ignored (answers are composed "
        "from evidence); fields not listed here are tolerated.")
    extra = {**rag_response, "properties": {**rag_response["properties"], "profile": STR,
                                                   "issues": _arr(OBJ), "followup": {"type": ["object", "null"]}}}
    extra["required"] = list(extra["properties"])
    extra["description"] = ("The structured result: the POST /rag response body, plus the profile, the validation "
                            "issues and how the question was read as a follow-up (null when it was not).")
    choice = _obj({"index": INT, "message": _obj({"role": {"enum": ["assistant"]}, "content": STR,
                                                  "refusal": NULL}),
                   "logprobs": NULL, "finish_reason": {"enum": ["stop"]}})
    completion = _obj({"id": STR, "object": {"enum": ["chat.completion"]}, "created": INT, "model": STR,
                       "system_fingerprint": {**STR, "description": "sightline-<router config version>"},
                       "choices": {**_arr(choice), "minItems": 1, "maxItems": 1}, "sightline": _ref("SightlineResult")},
                      description="`choices[0].message.content` is Markdown: the answer with [n] markers (quoted "
                      "code fenced, HTML shown as text) and a Sources list (title, headings, source, date, age, "
                      "URL or document id).")
    model = _obj({"id": STR, "object": {"enum": ["model"]}, "created": INT, "owned_by": STR, "description": STR})
    error = _obj({"error": _obj({"message": STR, "type": STR, "param": NSTR, "code": NSTR}, extra=False)},
                 extra=False, description="OpenAI's error object.")
    return {"ChatCompletionRequest": request, "ChatCompletion": completion, "SightlineResult": extra,
            "Model": model, "ModelList": _obj({"object": {"enum": ["list"]}, "data": _arr(_ref("Model"))}),
            "OpenAIError": error}


def _openai_error(description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": _ref("OpenAIError")}}}


def _chat_paths(limits: RequestLimits, callers: list) -> dict[str, Any]:
    """The /v1 paths: chat completions (plain and streamed) and the model list."""
    request_id = {"name": "X-Request-ID", "in": "header", "required": False, "schema": STR,
                  "description": "Echoed back and used as trace_id (as on /rag)."}
    unauthorised = _openai_error("A key the service does not know (code invalid_api_key), a header it cannot read "
                                 "(malformed_key), or no key while anonymous calls are off (missing_key).")
    headers = {name: {"schema": STR, "required": False, "description": text} for name, text in (
        ("X-Sightline-Status", "answered, partial or insufficient."),
        ("X-Sightline-Config-Version", "The router config version that served the answer."),
        ("X-Sightline-Model", "The answer profile that answered."))}
    return {
        "/v1/chat/completions": {"post": {
            "summary": "OpenAI-compatible chat completion: answer the last user message with cited evidence",
            "operationId": "chatCompletions", "security": callers, "parameters": [request_id, TRACEPARENT],
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": _ref("ChatCompletionRequest")}},
                            "description": f"At most {limits.max_body_bytes} bytes."},
            "responses": {
                "200": {"description": "The answer (insufficient answers too: they say so). With stream: true, "
                        "server-sent events of chat.completion.chunk objects (the last one carries `sightline`), "
                        "then data: [DONE].", "headers": headers,
                        "content": {"application/json": {"schema": _ref("ChatCompletion")},
                                    "text/event-stream": {"schema": STR}}},
                "400": _openai_error("Malformed JSON, a wrong type, no user message last, or a value over a limit; "
                                     "`param` names the field."),
                "401": unauthorised,
                "404": _openai_error("Unknown model (code model_not_found) or knowledge base."),
                "413": _openai_error(f"Body larger than {limits.max_body_bytes} bytes."),
                "500": _openai_error("Internal error; the message gives the request id to report."),
                "503": _openai_error("Not ready: an index or the config failed to load."),
            }}},
        "/v1/models": {"get": {
            "summary": "The answer profiles, as OpenAI models", "operationId": "listModels", "security": callers,
            "responses": {"200": _json("ModelList", "sightline (default composer) and sightline-extractive."),
                          "401": unauthorised}}},
        "/v1/models/{model}": {"get": {
            "summary": "One answer profile", "operationId": "getModel", "security": callers,
            "parameters": [{"name": "model", "in": "path", "required": True, "schema": {"enum": list(PROFILES)}}],
            "responses": {"200": _json("Model", "The profile."), "401": unauthorised,
                          "404": _openai_error("Unknown model (code model_not_found).")}}},
    }


def _html(description: str) -> dict:
    return {"description": description, "content": {"text/html": {"schema": STR}}}


def _answer_errors(limits: RequestLimits, caller_errors: dict) -> dict[str, Any]:
    """The error responses of a question asked with /rag's request (POST /rag, POST /ui/answer)."""
    return {
        "400": _error_response("Malformed JSON, a wrong type, an unknown field or a value over a limit; "
                               "`field` names it."),
        **caller_errors,
        "404": _error_response("Unknown knowledge base; the message lists the known ones."),
        "405": _error_response("Method not allowed (only POST)."),
        "413": _error_response(f"Body larger than {limits.max_body_bytes} bytes."),
        "500": _error_response("Internal error; the message gives the request id to report."),
        "503": _error_response("Not ready: an index or the config failed to load (the reason says which)."),
    }


def _ui_paths(limits: RequestLimits, callers: list, caller_errors: dict) -> dict[str, Any]:
    """The /ui pages (server/http/ui.py): HTML, errors included; and POST /ui/answer, /rag's request
    answered with the trace page, its errors /rag's JSON."""
    return {
        "/ui": {"get": {"summary": "The page to ask a question and see why (HTML; asks POST /ui/answer)",
                        "operationId": "uiAsk", "responses": {"200": _html("The page.")}}},
        "/ui/answer": {"post": {
            "summary": "Answer a question as POST /rag does; the reply is the answer's trace page (HTML), "
                       "rendered by the host that answered",
            "operationId": "uiAnswer", "security": callers, "parameters": [REQUEST_ID, TRACEPARENT],
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("RagRequest")}},
                            "description": f"POST /rag's request; at most {limits.max_body_bytes} bytes. The "
                                           "page shows the full trace whatever `trace` asks."},
            "responses": {
                "200": {**_html("The answer's trace page, the same page GET /ui/trace/{trace_id} shows of the "
                                "stored trace (insufficient answers too: they say so)."),
                        "headers": {
                            "X-Sightline-Trace-Stored": {"schema": {"enum": ["true", "false"]}, "description":
                                                         "true: the trace is kept for GET /ui/trace/{trace_id} on "
                                                         "this host; false: it is not (the store is off, refused "
                                                         "the id or could not write), the page cannot be reopened."},
                            "X-Sightline-Status": {"schema": STR, "description": "answered, partial or "
                                                                                 "insufficient."},
                            "X-Sightline-Config-Version": {"schema": STR, "description": "The router config "
                                                           "version that served the answer."}}},
                **_answer_errors(limits, caller_errors),
            }}},
        "/ui/trace/{trace_id}": {"get": {
            "summary": "The stored trace of an answer, for the caller that asked it or the admin (HTML)",
            "operationId": "uiTrace", "security": [*callers, {"bearer": []}],
            "parameters": [{"name": "trace_id", "in": "path", "required": True, "schema": STR,
                            "description": "The answer's trace_id (its X-Request-ID)."}],
            "responses": {"200": _html("The answer and its trace."),
                          "401": _html("A malformed or unknown key (the page says which)."),
                          "404": _html("No stored trace with this id that this caller may see (absent, expired, "
                                       "or another caller's)."),
                          "429": _html("Too many failed keys from this address: wait Retry-After seconds.")}}},
        "/ui/static/{name}": {"get": {
            "summary": "The pages' script, stylesheet and icon", "operationId": "uiStatic",
            "parameters": [{"name": "name", "in": "path", "required": True,
                            "schema": {"enum": ["ui.js", "ui.css", "favicon.svg"]}}],
            "responses": {"200": {"description": "The file.", "content": {
                "text/javascript": {"schema": STR}, "text/css": {"schema": STR}, "image/svg+xml": {"schema": STR}}},
                "404": _html("No such file.")}}},
    }


def _json(schema_name: str, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": _ref(schema_name)}}}


def _mcp_paths(limits: RequestLimits, callers: list, caller_errors: dict) -> dict[str, Any]:
    """POST /mcp: the MCP streamable-HTTP endpoint (server/mcp/http.py), stateless, JSON replies."""
    jsonrpc = {"application/json": {"schema": {**OBJ, "description": "A JSON-RPC 2.0 message of the Model "
                                               "Context Protocol (modelcontextprotocol.io)."}}}
    return {"/mcp": {"post": {
        "summary": "Model Context Protocol (streamable HTTP, stateless): the tools ask, search and "
                   "list_knowledge_bases, each reading as the caller of the key",
        "operationId": "mcp", "security": callers,
        "requestBody": {"required": True, "content": jsonrpc, "description": f"One JSON-RPC message; at most "
                        f"{limits.max_body_bytes} bytes. Send Accept: application/json, text/event-stream."},
        "responses": {
            "200": {"description": "The JSON-RPC reply (a tool's error is a result with isError).",
                    "content": jsonrpc},
            "202": {"description": "A notification, accepted."},
            "400": {"description": "Not a JSON-RPC message, or an MCP header that does not match it.",
                    "content": jsonrpc},
            **caller_errors,
            "405": _error_response("Method not allowed (only POST: no server stream, no session to end)."),
            "406": {"description": "The Accept header does not include application/json.", "content": jsonrpc},
            "413": _error_response(f"Body larger than {limits.max_body_bytes} bytes."),
            "503": _error_response("Not ready: an index or the config failed to load."),
        }}}}


def build_openapi(limits: RequestLimits = RequestLimits(), version: str = "0.1.0") -> dict[str, Any]:
    """The OpenAPI 3.1 document of the service with these request limits."""
    admin: list[dict[str, list[str]]] = [{"bearer": []}]
    callers: list[dict[str, list[str]]] = [{"apiKey": []}, {}]
    caller_errors = {"401": _error_response("The code says which: unknown_key (a well-formed key the service does not "
                                            "know: revoked or mistyped), malformed_key (the Authorization header is "
                                            "not 'Bearer <key>'), missing_key (no key while anonymous calls are off, "
                                            "service.yaml `anonymous: false`), bad_gateway_header.")}
    admin_errors = {"401": _error_response("Missing or wrong bearer token."),
                    "429": _error_response("Too many failed attempts from this address: wait Retry-After seconds."),
                    "404": _error_response("Admin is disabled: SIGHTLINE_ADMIN_TOKEN is not set.")}
    paths = {
        **_chat_paths(limits, callers),
        "/rag": {"post": {
            "summary": "Answer a question with cited, validated evidence",
            "operationId": "rag", "security": callers,
            "parameters": [REQUEST_ID, TRACEPARENT],
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("RagRequest")}},
                            "description": f"At most {limits.max_body_bytes} bytes."},
            "responses": {
                "200": _json("RagResponse", "The answer, its citations and how it was reached."),
                **_answer_errors(limits, caller_errors),
            }}},
        **_ui_paths(limits, callers, caller_errors),
        "/healthz": {"get": {"summary": "Liveness: the process answers", "operationId": "healthz",
                             "responses": {"200": _json("Health", "Alive.")}}},
        "/readyz": {"get": {"summary": "Readiness: models and indexes loaded, router config valid",
                            "operationId": "readyz",
                            "responses": {"200": _json("Ready", "Ready to answer."),
                                          "503": _json("Ready", "Not ready; `reason` says why.")}}},
        "/metrics": {"get": {"summary": "Prometheus metrics, summed over all workers", "operationId": "metrics",
                             "responses": {"200": {"description": "Prometheus text format "
                                                   f"(sightline_requests_total{{status={'|'.join(REQUEST_STATUSES)}}}, "
                                                   "...; see docs/SERVICE.md).",
                                                   "content": {"text/plain": {"schema": STR}}}}}},
        "/kb": {"get": {"summary": "Served knowledge bases with counts (of what the caller may see) and build dates",
                        "operationId": "kb", "security": callers,
                        "responses": {"200": _json("KnowledgeBases", "One entry per knowledge base."),
                                      **caller_errors,
                                      "503": _error_response("Not ready.")}}},
        **_mcp_paths(limits, callers, caller_errors),
        "/openapi.json": {"get": {"summary": "This document", "operationId": "openapi",
                                  "responses": {"200": {"description": "OpenAPI 3.1",
                                                        "content": {"application/json": {"schema": OBJ}}}}}},
        "/admin/router": {
            "get": {"summary": "The active router config of the worker that answers, and its version",
                    "operationId": "getRouter", "security": admin,
                    "responses": {"200": _json("RouterState", "Active config."), **admin_errors}},
            "put": {"summary": "Validate a router.yaml and write it atomically; every worker picks it up",
                    "operationId": "putRouter", "security": admin,
                    "parameters": [{"name": "If-Match", "in": "header", "required": False, "schema": STR,
                                    "description": "Only write if the file's current version is this one."}],
                    "requestBody": {"required": True, "content": {"text/yaml": {"schema": STR},
                                                                  "application/yaml": {"schema": STR}}},
                    "responses": {"200": _json("ReloadResult", "Written and active in this worker."),
                                  "412": _error_response("If-Match does not match the file's version."),
                                  "415": _error_response("Send the YAML as text/yaml or application/yaml."),
                                  "422": _error_response("Invalid config; nothing was written."), **admin_errors}}},
        "/admin/reload": {"post": {
            "summary": "Reload router.yaml in the worker that answers now (others follow within seconds)",
            "operationId": "reloadRouter", "security": admin,
            "responses": {"200": _json("ReloadResult", "Reloaded or unchanged."),
                          "422": _error_response("The file is invalid; the last good config keeps serving."),
                          **admin_errors}}},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Sightline", "version": version,
                 "description": "Explainable retrieval-augmented answering. Every error body is "
                 "{\"error\": {\"code\", \"message\", \"field\"?}}; every response carries X-Request-ID."},
        "paths": paths,
        "components": {"schemas": _schemas(limits),
                       "securitySchemes": {
                           "bearer": {"type": "http", "scheme": "bearer",
                                      "description": "Admin: the token in SIGHTLINE_ADMIN_TOKEN."},
                           "apiKey": {"type": "http", "scheme": "bearer",
                                      "description": "An API key from `sightline keys add`; its groups decide which "
                                      "restricted documents the caller sees. Without one: public documents only."}}},
    }
