"""The OpenAPI 3.1 document served at GET /openapi.json, built from the live limits.

tests/server/test_openapi.py keeps it true: every route of the app is documented here, and
real responses validate against the schemas (the top-level /rag response allows no
undocumented field).
"""

from __future__ import annotations

from typing import Any

from core.names import NAME_PATTERN, NAME_RULE

from ..loop import STAGES, TRACE_LEVELS
from ..metrics import REQUEST_STATUSES
from .schemas import FILTER_FIELDS, TEXT_CHARACTER, RequestLimits

STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}
OBJ = {"type": "object"}
NSTR = {"type": ["string", "null"]}
NINT = {"type": ["integer", "null"]}
NULL = {"type": "null"}
KB_NAME = {**STR, "pattern": NAME_PATTERN.pattern, "description": f"A knowledge base name: {NAME_RULE}."}


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
    filters = _obj({"time_start": {**NSTR, "format": "date"}, "time_end": {**NSTR, "format": "date"},
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
                     "page": NINT},
                    required=["n", "chunk_id", "kb", "source", "title", "updated_at", "snippet"])
    claim = _obj({"text": STR, "citations": _arr(INT), "numbers": _arr(STR), "kind": STR}, )
    entity = _obj({"text": STR, "label": STR, "span": _arr(INT), "origin": {"enum": ["ner", "rule", "pattern"]}})
    perception = _obj({
        "query": STR, "language": STR, "action": STR, "entities": _arr(entity),
        "constraints": _obj({"time": {"oneOf": [{"type": "null"}, _obj({"start": STR, "end": STR, "text": STR})]},
                             "status": _arr(STR), "doc_type": _arr(STR), "source": _arr(STR),
                             "quantitative": BOOL}),
        "keywords": _arr(STR)})
    task = _obj({"id": STR, "query": STR, "search": {"enum": ["vector", "keyword", "hybrid"]}, "kb": STR,
                 "weight": NUM, "priority": INT, "filters": OBJ, "top_k": INT, "rule": STR, "reason": STR})
    plan = _obj({"tasks": _arr(task), "fusion": _obj({"method": STR, "k": NUM}), "max_evidence": INT,
                 "context_budget_words": INT, "config_version": STR, "notes": _arr(STR),
                 "excluded_chunks": _arr(STR), "dropped_claims": _arr(STR)})
    issue = _obj({"check": STR, "kind": STR, "detail": STR, "claim": {"type": ["integer", "null"]},
                  "chunk_id": NSTR, "entity": NSTR})
    hint = _obj({"action": STR, "reason": STR, "params": OBJ})
    verdict = _obj({"ok": BOOL, "issues": _arr(issue), "hints": _arr(hint), "checks_run": _arr(STR)})
    attempt = _obj({"attempt": INT, "hints_in": _arr(hint), "evidence": _arr(STR), "answer": STR,
                    "verdict": verdict, "plan": plan},
                   required=["attempt", "hints_in", "evidence", "answer", "verdict"],
                   description="One pass route -> retrieve -> compose -> validate; `plan` with trace=full only.")
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
    }, extra=False)
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
    return {"RagRequest": rag_request, "RagResponse": rag_response, "Citation": citation, "Error": error,
            "KnowledgeBase": kb, "Caller": caller,
            "KnowledgeBases": _obj({"knowledge_bases": _arr(_ref("KnowledgeBase")), "config_version": STR,
                                    "caller": _ref("Caller")}),
            "Health": _obj({"status": {"enum": ["ok"]}, "pid": INT}),
            "Ready": _obj({"ready": BOOL, "reason": NSTR, "checks": OBJ}, required=["ready", "checks"]),
            "RouterState": _obj({"version": STR, "file": STR, "worker": INT, "loaded_at": NSTR,
                                 "last_error": NSTR, "rules": _arr(STR), "yaml": STR}),
            "ReloadResult": _obj({"result": {"enum": ["ok", "unchanged", "error"]}, "version_before": STR,
                                  "version_after": STR, "cause": STR, "worker": INT, "error": STR},
                                 required=["result", "version_before", "version_after", "worker"])}


def _json(schema_name: str, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": _ref(schema_name)}}}


def build_openapi(limits: RequestLimits = RequestLimits(), version: str = "0.1.0") -> dict[str, Any]:
    """The OpenAPI 3.1 document of the service with these request limits."""
    admin: list[dict[str, list[str]]] = [{"bearer": []}]
    callers: list[dict[str, list[str]]] = [{"apiKey": []}, {}]
    caller_errors = {"401": _error_response("Unknown or malformed API key, or no key while anonymous calls are off "
                                            "(service.yaml `anonymous: false`).")}
    admin_errors = {"401": _error_response("Missing or wrong bearer token."),
                    "404": _error_response("Admin is disabled: SIGHTLINE_ADMIN_TOKEN is not set.")}
    paths = {
        "/rag": {"post": {
            "summary": "Answer a question with cited, validated evidence",
            "operationId": "rag", "security": callers,
            "parameters": [{"name": "X-Request-ID", "in": "header", "required": False, "schema": STR,
                            "description": "Echoed back and used as trace_id when it is 1-128 of A-Z a-z 0-9 . _ : - "
                            "(any other value is ignored, never refused); generated when absent or ignored."}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": _ref("RagRequest")}},
                            "description": f"At most {limits.max_body_bytes} bytes."},
            "responses": {
                "200": _json("RagResponse", "The answer, its citations and how it was reached."),
                "400": _error_response("Malformed JSON, a wrong type, an unknown field or a value over a limit; "
                                       "`field` names it."),
                **caller_errors,
                "404": _error_response("Unknown knowledge base; the message lists the known ones."),
                "405": _error_response("Method not allowed (only POST)."),
                "413": _error_response(f"Body larger than {limits.max_body_bytes} bytes."),
                "500": _error_response("Internal error; the message gives the request id to report."),
                "503": _error_response("Not ready: an index or the config failed to load (the reason says which)."),
            }}},
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
