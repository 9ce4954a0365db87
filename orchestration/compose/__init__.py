"""Answer composers: extractive (default, deterministic) and OpenAI-compatible LLM."""
