"""Memoised pure text functions the composer and validation both run on evidence sentences.

Each attempt of a request splits the same evidence chunks into sentences and tokenises the
same sentences in the composer (candidates) and again in validation (the conflict check); a
retry does it all again on mostly the same chunks, and popular chunks recur across requests.
The functions are pure, so a bounded per-process cache changes no result.
"""

from __future__ import annotations

import functools

from orchestration.kb.chunking import split_sentences
from orchestration.retrieval.tokenize import tokenize

SENTENCE_CACHE = 8192   # entries: ~1.5 KB each (the text's term set), ~12 MB per worker at most
CHUNK_CACHE = 2048


@functools.lru_cache(maxsize=SENTENCE_CACHE)
def term_set(text: str) -> frozenset[str]:
    """The distinct BM25 terms of a text (`tokenize`, as a set)."""
    return frozenset(tokenize(text))


@functools.lru_cache(maxsize=CHUNK_CACHE)
def sentences_of(text: str) -> tuple[str, ...]:
    """`split_sentences(text)` as a tuple (callers must not rely on a list they may change)."""
    return tuple(split_sentences(text))
