"""The Sightline exception tree.

It lives in `core/`, below every agent (core <- perception <- orchestration <- validation <-
server), so that every layer can raise from it without importing another agent.
The server maps each family to one HTTP status in a single place. Validation findings are
data, never exceptions.
"""

from __future__ import annotations


class SightlineError(Exception):
    """Root of every error Sightline raises on purpose.

    Args:
        message: what went wrong and how to fix it, for a person.
        field: the input field, config key or file the error is about, when there is one.
    """

    code = "sightline_error"

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


# --- knowledge bases -------------------------------------------------------------------

class KnowledgeBaseError(SightlineError):
    """A knowledge base cannot be built, opened or searched."""

    code = "knowledge_base_error"


class UnknownKnowledgeBase(KnowledgeBaseError):
    """A request or config names a knowledge base that is not configured."""

    code = "unknown_kb"


class IndexUnavailable(KnowledgeBaseError):
    """A knowledge base's index directory is missing, incomplete or corrupted."""

    code = "index_unavailable"


# --- requests --------------------------------------------------------------------------

class RequestError(SightlineError):
    """Input from a caller (HTTP body, CLI argument) is malformed or out of limits."""

    code = "bad_request"


class PayloadTooLarge(RequestError):
    """A request body is larger than the configured limit."""

    code = "payload_too_large"


# --- upstream services -----------------------------------------------------------------

class UpstreamError(SightlineError):
    """An external service (an OpenAI-compatible LLM endpoint) failed or timed out."""

    code = "upstream_error"
