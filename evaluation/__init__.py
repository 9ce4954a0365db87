"""Evaluation on public benchmark sets (read from ../shared/eval, never copied)."""
