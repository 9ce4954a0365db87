"""How often a keyword query's repeated terms count: as often as they occur, or once each.

rank-bm25's `BM25Okapi` adds a term's weight once per occurrence in the query, so a term a
long question repeats ("the article from TechCrunch ... the article from The Verge") counts
twice. `unique` scores each distinct term once (as Haystack's in-memory BM25 does). It is a
query-time choice per knowledge base (`bm25: {query_terms: ...}` in knowledge_bases.yaml):
the index is the same either way, so changing it needs no rebuild.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import ConfigError

COUNTED = "counted"
UNIQUE = "unique"
QUERY_TERMS = (COUNTED, UNIQUE)


def query_terms(tokens: Sequence[str], mode: str) -> list[str]:
    """The tokens a keyword query scores with under `mode`.

    Args:
        tokens: the query's tokens in order, repeats kept (`tokenize`'s output).
        mode: "counted" (every occurrence, the tokens unchanged) or "unique" (each distinct
            token once, at its first occurrence).

    Returns:
        A new list; the order of first occurrences is kept either way.

    Raises:
        ConfigError: for another mode (config loading refuses it before a search can see it).
    """
    if mode == COUNTED:
        return list(tokens)
    if mode == UNIQUE:
        return list(dict.fromkeys(tokens))
    raise ConfigError(f"unknown query_terms mode '{mode}'; known: {', '.join(QUERY_TERMS)}",
                      field="bm25.query_terms")
