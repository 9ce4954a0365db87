"""What an operator configures for one LLM backend: plain values, checked in the constructor."""

from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class LLMSettings:
    """One OpenAI-compatible chat completions backend (vLLM, Ollama, llama.cpp server, OpenAI).

    Attributes:
        base_url: the API root that `/chat/completions` is appended to, e.g.
            http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8000/v1 (vLLM).
        model: the model name the server serves.
        api_key: sent as `Authorization: Bearer`; None sends no header (local servers).
        timeout: seconds one call may take, connect to last byte (a hard deadline).
        budget_seconds: seconds all LLM calls of one request may take together (retries
            included); when it runs out the extractive composer answers.
        max_tokens: the reply's length limit.
        temperature: 0 by default, so the same evidence gets the same answer where the server
            allows it.
        circuit_failures: consecutive failed calls (timeout, connection, HTTP error, malformed
            reply) after which a worker stops calling the model for `circuit_cooldown_seconds`
            and answers extractively at once (breaker.py); then one probe call decides.
        circuit_cooldown_seconds: how long the circuit stays open before that probe.

    Raises:
        ValueError: a value out of range (the message names it and the valid range).
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 20.0
    budget_seconds: float = 30.0
    max_tokens: int = 512
    temperature: float = 0.0
    circuit_failures: int = 5
    circuit_cooldown_seconds: float = 30.0

    def __post_init__(self) -> None:
        problem = url_problem(self.base_url)
        if problem:
            raise ValueError(f"LLMSettings: base_url {problem}")
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"LLMSettings: model must be a non-empty string, got {self.model!r}")
        for name in ("timeout", "budget_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
                raise ValueError(f"LLMSettings: {name} must be a number of seconds > 0, got {value!r}")
        if self.timeout > self.budget_seconds:
            raise ValueError(f"LLMSettings: timeout ({self.timeout:g} s) is longer than budget_seconds "
                             f"({self.budget_seconds:g} s), the time all LLM calls of one request may take")
        if isinstance(self.max_tokens, bool) or not isinstance(self.max_tokens, int) or self.max_tokens < 16:
            raise ValueError(f"LLMSettings: max_tokens must be an integer >= 16, got {self.max_tokens!r}")
        if not 0.0 <= float(self.temperature) <= 2.0:
            raise ValueError(f"LLMSettings: temperature must be between 0 and 2, got {self.temperature!r}")
        failures = self.circuit_failures
        if isinstance(failures, bool) or not isinstance(failures, int) or not 1 <= failures <= 1000:
            raise ValueError("LLMSettings: circuit_failures (consecutive failed calls that open the circuit) must "
                             f"be an integer from 1 to 1000, got {failures!r}")
        cooldown = self.circuit_cooldown_seconds
        if (isinstance(cooldown, bool) or not isinstance(cooldown, (int, float)) or not math.isfinite(cooldown)
                or not 0 < cooldown <= 86400):
            raise ValueError("LLMSettings: circuit_cooldown_seconds (how long the model is not called once the "
                             f"circuit opened) must be a number of seconds > 0 and <= 86400, got {cooldown!r}")

    def describe(self) -> dict:
        """The settings as logs and /readyz may show them: the API key only as set or not."""
        return {"base_url": self.base_url, "model": self.model, "api_key": "set" if self.api_key else None,
                "timeout": self.timeout, "budget_seconds": self.budget_seconds, "max_tokens": self.max_tokens,
                "temperature": self.temperature, "circuit_failures": self.circuit_failures,
                "circuit_cooldown_seconds": self.circuit_cooldown_seconds}


def url_problem(url: object) -> str | None:
    """What is wrong with an LLM base URL ("must start with http:// or https://, ..."), or None."""
    if not isinstance(url, str) or not url.strip():
        return f"must be a URL such as http://127.0.0.1:11434/v1, got {url!r}"
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"must be an http:// or https:// URL with a host, such as http://127.0.0.1:11434/v1, got {url!r}"
    if parts.query or parts.fragment:
        return f"must not carry a query or fragment (the path /chat/completions is appended), got {url!r}"
    try:
        _ = parts.port
    except ValueError:
        return f"has an invalid port, got {url!r}"
    return None
