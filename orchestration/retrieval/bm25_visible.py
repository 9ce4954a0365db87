"""An Okapi BM25 index as one caller sees it: the statistics of the rows it may read only.

BM25 scores a row with corpus statistics: how many rows there are, in how many a term occurs,
their average length, and the mean IDF that floors a very common term. Computed over every row,
they change when a restricted document is added, and so do a public row's scores, its rank,
and what a reply says: a caller could learn that a hidden document writes a word by asking
about it. A view computes every statistic over the caller's visible rows, from the term
frequencies and lengths the index stores, so a reply is the same bit for bit as the reply of
an index built without the rows the caller may not see (tests/orchestration/retrieval/
test_bm25_visible.py; docs/SECURITY.md).

Scores are computed as the build computes them (the same float64 operations in the same order,
then rounded to float32), so the view and that index agree exactly, not only to a tolerance.
"""

from __future__ import annotations

import functools
import hashlib
import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence

import numpy as np

from .bm25 import BM25Index, BM25Params, QueryScores, floored_idf

VIEWS_KEPT = 16  # per index: the statistics of this many distinct visible-row sets


def visible_to(index: BM25Index, visible: np.ndarray | None) -> BM25Index | VisibleBM25:
    """The index as a caller who sees only the rows `visible` marks: the same methods
    (`score_query`, `select`, `idf`, `document_frequency`, `written_tokens`, `n_docs`, `stats`),
    every statistic (N, document frequencies, average length, the IDF floor's mean) computed over
    those rows. The index itself when every row is visible (or `visible` is None: no ACL). A
    view is computed once per index and distinct row set and kept (VIEWS_KEPT per index, held
    with the index: a replaced build's views go with it)."""
    if visible is None or bool(visible.all()):
        return index
    key = hashlib.blake2b(np.packbits(visible).tobytes(), digest_size=16).digest()
    with _LOCK:
        views = _VIEWS.setdefault(index, OrderedDict())
        view = views.get(key)
        if view is not None:
            views.move_to_end(key)
            return view
    view = VisibleBM25(index, visible)
    with _LOCK:
        views[key] = view
        while len(views) > VIEWS_KEPT:
            views.popitem(last=False)
    return view


_VIEWS: weakref.WeakKeyDictionary[BM25Index, OrderedDict[bytes, VisibleBM25]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


class VisibleBM25:
    """BM25 statistics and scores over the rows a caller may see (`visible_to`).

    Rows keep their numbers (the index's), so the caller's masks select from its scores as from
    the index's; a hidden row is never matched.
    """

    def __init__(self, index: BM25Index, visible: np.ndarray) -> None:
        """Count what the visible rows hold: a pass over every posting (about 10 ms a million)."""
        self.index = index
        self.params: BM25Params = index.params
        self.visible = np.asarray(visible, dtype=bool)
        self.n_docs = int(self.visible.sum())
        held = np.concatenate(([0], np.cumsum(self.visible[index.indices], dtype=np.int64)))
        self.df = held[index.indptr[1:]] - held[index.indptr[:-1]]  # per term: visible rows holding it
        lengths = np.asarray(index.doc_len, dtype=np.int64)
        self.avgdl = float(lengths[self.visible].sum() / self.n_docs) if self.n_docs else 0.0
        self._weight_idf, mean_idf = floored_idf(self.params, self.n_docs, self.df)  # as a build weighs postings
        self.stats = {"avgdl": self.avgdl, "mean_idf": mean_idf, "n_terms": int((self.df > 0).sum())}

    def document_frequency(self, token: str) -> int:
        """How many visible rows hold the token (0 for a token none holds)."""
        term = self.index.vocab.get(token)
        return 0 if term is None else int(self.df[term])

    def idf(self, token: str) -> float:
        """The token's IDF over the visible rows, floored as a build floors it (0.0 when absent);
        computed as `BM25Index.idf` computes it."""
        df = self.document_frequency(token)
        if df == 0:
            return 0.0
        raw = math.log(self.n_docs - df + 0.5) - math.log(df + 0.5)
        return self.params.epsilon * self.stats["mean_idf"] if raw < 0 else raw

    def written_tokens(self) -> list[str]:
        """Every token some visible row holds."""
        return [token for token, term in self.index.vocab.items() if self.df[term]]

    def get_scores(self, tokens: Sequence[str], idf: Mapping[str, float] | None = None) -> np.ndarray:
        """Scores of every row for the query tokens (0 for hidden rows)."""
        return self.score_query(tokens, idf).scores

    def score_query(self, tokens: Sequence[str], idf: Mapping[str, float] | None = None) -> QueryScores:
        """Score the visible rows once, as `BM25Index.score_query` does over all of them.

        `idf`: IDF per token to score with instead of the view's own (several KBs searched as
        one corpus, retrieval/federation.py).
        """
        index, k1, b = self.index, self.params.k1, self.params.b
        scores = np.zeros(index.n_docs, dtype=np.float64)
        matched = np.zeros(index.n_docs, dtype=bool)
        seeds: list[np.ndarray] = []
        for term, count in index.term_counts(tokens).items():
            if not self.df[term]:
                continue
            start, end = index.indptr[term], index.indptr[term + 1]
            rows = np.asarray(index.indices[start:end], dtype=np.int64)
            keep = self.visible[rows]
            rows = rows[keep]
            f = np.asarray(index.tf[start:end], dtype=np.float64)[keep]
            norm = k1 * (1 - b + b * np.asarray(index.doc_len, dtype=np.int64)[rows] / self.avgdl)
            weights = (np.full(rows.size, self._weight_idf[term]) * f * (k1 + 1) / (f + norm)).astype(np.float32)
            scale = 1.0
            if idf:  # as BM25Index._score rescales its stored weights to another IDF
                token = self._token(term)
                own = self.idf(token)
                if token in idf and own:
                    scale = idf[token] / own
            scores[rows] += count * scale * weights.astype(np.float64)
            matched[rows] = True
            seeds.append(rows)
        seed = min(seeds, key=len) if seeds else np.empty(0, np.int64)
        return QueryScores(scores, matched, seed)

    select = staticmethod(BM25Index.select)

    def _token(self, term: int) -> str:
        """The token of a vocabulary id."""
        return self._tokens[term]

    @functools.cached_property
    def _tokens(self) -> dict[int, str]:
        """Vocabulary id -> token, read once per view (only shared-IDF searches need it)."""
        return {t: token for token, t in self.index.vocab.items()}
