"""Memoised pure text functions the composer and validation both run on evidence units.

Each attempt of a request tokenises the same evidence units in the composer (candidates) and
again in validation (the conflict check); a retry does it all again on mostly the same chunks,
and popular chunks recur across requests. The functions are pure, so a bounded per-process
cache changes no result.
"""

from __future__ import annotations

import functools

from orchestration.retrieval.tokenize import tokenize

SENTENCE_CACHE = 8192   # entries per cache: ~1.5 KB each (a text's terms), ~12 MB per cache and worker at most


@functools.lru_cache(maxsize=SENTENCE_CACHE)
def term_list(text: str) -> tuple[str, ...]:
    """The BM25 terms of a text in order (`tokenize`, as a tuple)."""
    return tuple(tokenize(text))


@functools.lru_cache(maxsize=SENTENCE_CACHE)
def term_set(text: str) -> frozenset[str]:
    """The distinct BM25 terms of a text (`tokenize`, as a set)."""
    return frozenset(term_list(text))


