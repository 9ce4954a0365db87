"""The LLM composer: an answer written by any OpenAI-compatible chat server, validated like any other.

Modules: `settings` (what an operator configures), `client` (one HTTP request per call, a hard
deadline), `prompt` (numbered evidence and the rules), `reply` (claims and citations parsed
from the reply), `relations` (comparison claims read from generated text), `composer`
(`LLMComposer`, with the extractive fallback), `breaker` (the circuit breaker in front of the
model). See docs/COMPOSER.md.
"""

from .composer import FALLBACK_REASONS, NOT_SENT, LLMComposer, LLMSession
from .settings import LLMSettings

__all__ = ["FALLBACK_REASONS", "NOT_SENT", "LLMComposer", "LLMSession", "LLMSettings"]
