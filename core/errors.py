"""The Sightline exception tree, every family with its HTTP status.

It lives in `core/`, below every agent (core <- perception <- orchestration <- validation <-
server), so that every layer can raise from it without importing another agent. Each class
says its own `http_status` (and `challenge`, the WWW-Authenticate value of a 401), so the
server's handler (server/http/errors.py) has no table: a new error is one class here.
Validation findings are data, never exceptions.
"""

from __future__ import annotations


class SightlineError(Exception):
    """Root of every error Sightline raises on purpose.

    Args:
        message: what went wrong and how to fix it, for a person.
        field: the input field, config key or file the error is about, when there is one.
    """

    code = "sightline_error"
    http_status = 500
    challenge: str | None = None  # WWW-Authenticate header of a 401
    retry_after: int | None = None  # Retry-After header (seconds) of a 429 or 503

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_dict(self) -> dict:
        """The error as the JSON body the API returns under "error"."""
        body = {"code": self.code, "message": self.message}
        if self.field is not None:
            body["field"] = self.field
        return body


# --- configuration ---------------------------------------------------------------------

class ConfigError(SightlineError):
    """A config file (YAML) is missing, malformed, or holds a value that is not allowed."""

    code = "config_error"


class ConfigRejected(ConfigError):
    """A router config sent to or reloaded by an /admin endpoint is invalid; nothing changed."""

    code = "config_rejected"
    http_status = 422


# --- knowledge bases -------------------------------------------------------------------

class KnowledgeBaseError(SightlineError):
    """A knowledge base cannot be built, opened or searched."""

    code = "knowledge_base_error"


class UnknownKnowledgeBase(KnowledgeBaseError):
    """A request or config names a knowledge base that is not configured."""

    code = "unknown_kb"
    http_status = 404


class NoUsableDocuments(KnowledgeBaseError):
    """An ingest read no document it could use; `report` says what it read and every input it skipped, and why.

    Args:
        message: the counts and the first reasons, for a person.
        report: the ingest's report as JSON (`IngestReport.to_dict()`: `skipped` lists every input).
    """

    code = "no_usable_documents"
    http_status = 422

    def __init__(self, message: str, report: dict) -> None:
        super().__init__(message, field="paths")
        self.report = report


class IndexUnavailable(KnowledgeBaseError):
    """A knowledge base's index directory is missing, incomplete or corrupted."""

    code = "index_unavailable"
    http_status = 503


class SearchEngineUnavailable(IndexUnavailable):
    """A knowledge base's search engine (Milvus) cannot be reached or refused a call (503, as an index)."""


# --- requests --------------------------------------------------------------------------

class RequestError(SightlineError):
    """Input from a caller (HTTP body, CLI argument) is malformed or out of limits."""

    code = "bad_request"
    http_status = 400


class PayloadTooLarge(RequestError):
    """A request body is larger than the configured limit."""

    code = "payload_too_large"
    http_status = 413


class RequestTimeout(RequestError):
    """A client stopped sending its request body for longer than the body timeout."""

    code = "request_timeout"
    http_status = 408


class UnsupportedMediaType(RequestError):
    """A body was sent with a Content-Type the endpoint does not take."""

    code = "unsupported_media_type"
    http_status = 415


class UnknownModel(RequestError):
    """An OpenAI-compatible request names a model (answer profile, server/profiles.py) that does not exist."""

    code = "model_not_found"
    http_status = 404


# --- who is asking ---------------------------------------------------------------------

class Unauthenticated(SightlineError):
    """A request's credentials are missing (when anonymous calls are off), malformed or unknown.

    The code is the reason, so a caller can tell a key the service does not know
    (`unknown_key`: ask for a new one) from a header it cannot read (`malformed_key`: fix the
    client); the WWW-Authenticate challenge says the same in RFC 6750's words.

    Args:
        message: what is wrong and how to fix it.
        reason: one of server.callers.AUTH_FAILURE_REASONS (the auth failure metric's label).
    """

    code = "unauthorized"
    http_status = 401
    challenge = 'Bearer realm="sightline"'
    # reason -> RFC 6750 error attribute (a missing credential carries none)
    BEARER_ERRORS = {"malformed_key": "invalid_request", "bad_gateway_header": "invalid_request",
                     "unknown_key": "invalid_token"}

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message, field="Authorization")
        self.reason = reason
        self.code = reason
        bearer_error = self.BEARER_ERRORS.get(reason)
        if bearer_error:
            description = message.replace("\\", "").replace('"', "'")
            self.challenge = f'Bearer realm="sightline", error="{bearer_error}", error_description="{description}"'


class Unauthorized(SightlineError):
    """An /admin endpoint was called without the right bearer token."""

    code = "unauthorized"
    http_status = 401
    challenge = 'Bearer realm="sightline-admin"'


class TooManyAttempts(SightlineError):
    """A client address failed authentication too often in a row; it must wait before trying again.

    Args:
        message: how long to wait and why.
        retry_after: whole seconds until the next attempt counts (the Retry-After header).
    """

    code = "too_many_attempts"
    http_status = 429

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message, field="Authorization")
        self.retry_after = retry_after


class AdminDisabled(SightlineError):
    """An /admin endpoint was called while no admin token is configured (it does not exist then)."""

    code = "admin_disabled"
    http_status = 404


# --- upstream services (an LLM server) --------------------------------------------------

class UpstreamError(SightlineError):
    """A backend Sightline calls (an OpenAI-compatible LLM server) failed or answered unusably.

    The composer catches it and falls back to the extractive answer, so a caller never sees
    it as an HTTP error; the status is what it would be if it ever escaped.

    Args:
        message: what happened (never the API key or the prompt).
        reason: the fallback label (`sightline_composer_fallbacks_total{reason}`): timeout,
            connection, http_4xx, http_5xx, malformed, empty, uncited, budget or circuit_open.
    """

    code = "upstream_error"
    http_status = 502

    def __init__(self, message: str, reason: str = "connection") -> None:
        super().__init__(message)
        self.reason = reason


class UpstreamTimeout(UpstreamError):
    """An LLM server did not send its whole reply within the call's timeout."""

    code = "upstream_timeout"
    http_status = 504

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="timeout")


class CircuitOpen(UpstreamError):
    """The LLM circuit breaker is open (or its one probe call is in flight): the model was not called."""

    code = "circuit_open"
    http_status = 503

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="circuit_open")


# --- the service -----------------------------------------------------------------------

class NotReady(SightlineError):
    """The service is up but cannot answer yet (an index or the config failed to load)."""

    code = "not_ready"
    http_status = 503


class TraceNotFound(SightlineError):
    """/ui/trace/<id> names no stored trace this caller may see (absent, expired, or another caller's)."""

    code = "trace_not_found"
    http_status = 404


class PreconditionFailed(SightlineError):
    """PUT /admin/router with an If-Match version that is not the file's current one."""

    code = "precondition_failed"
    http_status = 412
