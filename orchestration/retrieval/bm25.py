"""Okapi BM25 on a sparse term-by-document matrix, memory-mapped from disk.

The scoring is exactly rank-bm25's `BM25Okapi` (k1=1.5, b=0.75, epsilon=0.25): IDF is
log((N - n + 0.5) / (n + 0.5)), and terms whose IDF is negative (in more than half the
documents) get the floor epsilon x mean IDF. Every (term, document) weight
idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)) is computed once at build time
and stored column-wise (one posting list per term), so a query is a sum of a few posting
lists: no per-document Python work, a few milliseconds at a million chunks.

The raw term frequencies and document lengths are stored beside the weights, so the same
statistics can be computed over the rows one caller may see (bm25_visible.py):
a reply must not depend on documents its caller may not read (docs/SECURITY.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.errors import IndexUnavailable

from .arrays import load_mapped
from .topk import top_k

_FILES = ("indptr.npy", "indices.npy", "data.npy", "tf.npy", "doc_len.npy")


@dataclass(frozen=True)
class BM25Params:
    """BM25Okapi's parameters; the defaults are rank-bm25's."""

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25



def floored_idf(params: BM25Params, n_docs: int, df: np.ndarray) -> tuple[np.ndarray, float]:
    """Each term's BM25Okapi IDF over `n_docs` rows given its document frequency, a negative one
    floored at `epsilon` x the mean IDF of the terms some row holds; and that mean. The mean is
    summed exactly (fsum): the same terms give the same mean whatever their order, so a view of
    some rows (bm25_visible) and an index built from those rows alone agree to the bit."""
    with np.errstate(invalid="ignore", divide="ignore"):  # no rows (a view of none): nan, never read
        idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
    seen = df > 0
    mean_idf = math.fsum(idf[seen].tolist()) / max(int(seen.sum()), 1)
    return np.where(idf < 0, params.epsilon * mean_idf, idf), mean_idf


def length_norm(params: BM25Params, doc_len: np.ndarray, avgdl: float) -> np.ndarray:
    """Each row's k1 x (1 - b + b x length / mean length), the denominator's length term."""
    return params.k1 * (1 - params.b + params.b * doc_len / avgdl) if avgdl else np.full(doc_len.size, params.k1)


WEIGHT_SLICE = 1 << 22  # postings weighed at a time (float64 temporaries of 32 MB each)


def posting_weights(params: BM25Params, n_docs: int, df: np.ndarray, doc_len: np.ndarray, indptr: np.ndarray,
                    indices: np.ndarray, tf: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Each posting's BM25Okapi weight (float32) of a term x row matrix in CSR form (`indptr`,
    `indices`: rows, `tf`: counts), the mean length and the mean IDF; WEIGHT_SLICE postings at a
    time, so a large index needs no float64 copy of every posting."""
    avgdl = doc_len.sum() / n_docs
    idf, mean_idf = floored_idf(params, n_docs, df)
    norm = length_norm(params, doc_len, avgdl)
    data = np.empty(indices.size, dtype=np.float32)
    for start in range(0, indices.size, WEIGHT_SLICE):
        end = min(start + WEIGHT_SLICE, indices.size)
        term_of_entry = np.searchsorted(indptr, np.arange(start, end), side="right") - 1
        f = tf[start:end].astype(np.float64)
        data[start:end] = idf[term_of_entry] * f * (params.k1 + 1) / (f + norm[indices[start:end]])
    return data, float(avgdl), float(mean_idf)

class BM25Index:
    """Posting lists of precomputed BM25 weights plus the vocabulary.

    Row numbers (document positions) are the chunk rows of the knowledge base.
    """

    def __init__(self, vocab: dict[str, int], indptr: np.ndarray, indices: np.ndarray,
                 data: np.ndarray, n_docs: int, params: BM25Params, stats: dict,
                 tf: np.ndarray, doc_len: np.ndarray) -> None:
        self.vocab = vocab
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.tf = tf            # per posting, as `indices`: the term's count in that row
        self.doc_len = doc_len  # per row: its token count
        self.n_docs = n_docs
        self.params = params
        self.stats = stats

    # --- build -------------------------------------------------------------------------

    @classmethod
    def build(cls, documents: Iterable[Sequence[str]], params: BM25Params = BM25Params()) -> BM25Index:
        """Index tokenised documents (one token list per row, in row order)."""
        vocab: dict[str, int] = {}
        term_ids: list[np.ndarray] = []
        for tokens in documents:
            term_ids.append(np.fromiter((vocab.setdefault(t, len(vocab)) for t in tokens),
                                        dtype=np.int64, count=len(tokens)))
        return cls.build_from_term_ids(term_ids, vocab, params)

    @classmethod
    def build_from_term_ids(cls, term_ids: Sequence[np.ndarray], vocab: dict[str, int],
                            params: BM25Params = BM25Params()) -> BM25Index:
        """Index documents given as arrays of term ids (vectorised; used for large corpora)."""
        import scipy.sparse as sp  # building only: a search reads the saved arrays (~0.1 s import)

        n_docs = len(term_ids)
        if n_docs == 0:
            raise ValueError("cannot build a BM25 index over zero documents")
        doc_len = np.fromiter((len(t) for t in term_ids), dtype=np.int64, count=n_docs)
        rows = np.concatenate(term_ids) if doc_len.sum() else np.empty(0, np.int64)
        cols = np.repeat(np.arange(n_docs, dtype=np.int64), doc_len)
        ones = np.ones(rows.size, dtype=np.float64)
        # term x doc counts; duplicates summed into term frequencies.
        tf = sp.csr_matrix((ones, (rows, cols)), shape=(max(len(vocab), 1), n_docs))
        tf.sum_duplicates()
        tf.sort_indices()
        df = np.diff(tf.indptr)
        counts = tf.data.astype(np.int32)
        weights, avgdl, mean_idf = posting_weights(params, n_docs, df, doc_len, tf.indptr, tf.indices, counts)
        stats = {"avgdl": avgdl, "mean_idf": mean_idf, "n_terms": int(len(vocab)), "n_postings": int(counts.size)}
        return cls(vocab, tf.indptr.astype(np.int64), tf.indices.astype(np.int32), weights, n_docs, params, stats,
                   tf=counts, doc_len=doc_len.astype(np.int32))

    # --- persistence -------------------------------------------------------------------

    def save(self, directory: Path) -> None:
        """Write the index into `directory` (created if missing)."""
        directory.mkdir(parents=True, exist_ok=True)
        np.save(directory / "indptr.npy", self.indptr)
        np.save(directory / "indices.npy", self.indices)
        np.save(directory / "data.npy", self.data)
        np.save(directory / "tf.npy", self.tf)
        np.save(directory / "doc_len.npy", self.doc_len)
        meta = {"n_docs": self.n_docs, "params": self.params.__dict__, "stats": self.stats}
        (directory / "bm25.json").write_text(json.dumps(meta), encoding="utf-8")
        (directory / "vocab.json").write_text(json.dumps(self.vocab, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> BM25Index:
        """Map a saved index read-only (pages shared between processes)."""
        try:
            meta = json.loads((directory / "bm25.json").read_text(encoding="utf-8"))
            vocab = json.loads((directory / "vocab.json").read_text(encoding="utf-8"))
            arrays = [load_mapped(directory / name) for name in _FILES]
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(f"BM25 index at {directory} is unreadable ({exc})", field=str(directory)) from exc
        indptr, indices, data, tf, doc_len = arrays
        return cls(vocab, indptr, indices, data, n_docs=meta["n_docs"], params=BM25Params(**meta["params"]),
                   stats=meta["stats"], tf=tf, doc_len=doc_len)

    # --- what one caller may see: bm25_visible.visible_to -----------------------------

    def written_tokens(self) -> list[str]:
        """Every token some row holds (the vocabulary)."""
        return list(self.vocab)

    # --- search ------------------------------------------------------------------------

    def term_counts(self, tokens: Sequence[str]) -> dict[int, int]:
        """Vocabulary ids of the query tokens with their multiplicity; unknown tokens dropped."""
        counts: dict[int, int] = {}
        for token in tokens:
            term = self.vocab.get(token)
            if term is not None:
                counts[term] = counts.get(term, 0) + 1
        return counts

    def document_frequency(self, token: str) -> int:
        """How many documents hold the token (0 for a token not in the vocabulary)."""
        term = self.vocab.get(token)
        return 0 if term is None else int(self.indptr[term + 1] - self.indptr[term])

    def idf(self, token: str) -> float:
        """The token's IDF in this index, floored as at build time (0.0 when it is absent)."""
        df = self.document_frequency(token)
        if df == 0:
            return 0.0
        raw = math.log(self.n_docs - df + 0.5) - math.log(df + 0.5)
        return self.params.epsilon * self.stats.get("mean_idf", 0.0) if raw < 0 else raw

    def get_scores(self, tokens: Sequence[str], idf: Mapping[str, float] | None = None) -> np.ndarray:
        """Scores of every document for the query tokens (as BM25Okapi.get_scores); `idf` as in `_score`."""
        return self._score(tokens, idf)[0]

    def _score(self, tokens: Sequence[str], idf: Mapping[str, float] | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """(scores, matched): matched marks documents holding at least one query term.

        `idf` replaces the index's own IDF of the tokens it names (the stored weights are
        rescaled by the ratio), so several indexes can score on one corpus's statistics.
        """
        return self._score_terms(self.term_counts(tokens), idf)

    def _score_terms(self, counts: Mapping[int, int], idf: Mapping[str, float] | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
        """`_score` of the query's vocabulary ids with their multiplicity (`term_counts`).

        The posting lists of every query term are gathered at once and summed by `bincount`,
        which adds each row's weights in the order given: term after term, as adding each list
        in turn does, so the float64 sums are the same to the bit (a loop of one fancy-indexed
        add per term cost twice as much at ~28 terms a question).
        """
        matched = np.zeros(self.n_docs, dtype=bool)
        if not counts:
            return np.zeros(self.n_docs, dtype=np.float64), matched
        scale: dict[int, float] = {}
        for token, shared in (idf or {}).items():
            term = self.vocab.get(token)
            if term is not None and term in counts:
                own = self.idf(token)
                if own:
                    scale[term] = shared / own
        terms = np.fromiter(counts, dtype=np.int64, count=len(counts))
        starts = self.indptr[terms]
        lengths = self.indptr[terms + 1] - starts
        # the positions of every posting of every term, term after term
        ends = np.cumsum(lengths)
        postings = np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(starts - (ends - lengths), lengths)
        rows = self.indices[postings]
        factors = np.fromiter((count * scale.get(term, 1.0) for term, count in counts.items()),
                              dtype=np.float64, count=len(counts))
        weights = np.repeat(factors, lengths) * self.data[postings].astype(np.float64)
        scores = np.bincount(rows, weights=weights, minlength=self.n_docs)
        matched[rows] = True
        return scores, matched

    def search(self, tokens: Sequence[str], k: int, allowed: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """Top-k rows holding at least one query term, best first, restricted to `allowed`.

        A matching row can score 0 or below (Okapi's IDF for a term in half or more of the
        documents); it is still a match and still returned.
        """
        return self.select(self.score_query(tokens), k, allowed)

    def score_query(self, tokens: Sequence[str], idf: Mapping[str, float] | None = None) -> QueryScores:
        """Score every row once; `select` then picks top-k under any number of masks.

        `idf`: IDF per token to score with instead of this index's own (see `_score`).
        """
        counts = self.term_counts(tokens)
        scores, matched = self._score_terms(counts, idf)
        seed = np.empty(0, np.int64)
        if counts:
            rarest = min(counts, key=lambda t: self.indptr[t + 1] - self.indptr[t])
            seed = np.asarray(self.indices[self.indptr[rarest]:self.indptr[rarest + 1]], dtype=np.int64)
        return QueryScores(scores, matched, seed)

    @staticmethod
    def select(query: QueryScores, k: int, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Exact top-k of scored rows, ties to the lower row, without partitioning every row.

        The k-th best score among the rows of the rarest query term is a lower bound on the
        k-th best overall, so only rows scoring at least that much are sorted (about 1.5 ms
        instead of 99 ms at a million rows, measured in docs/BENCHMARKS.md).
        """
        if k <= 0 or not query.seed.size:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        matched = query.matched if allowed is None else query.matched & allowed
        seed = query.seed if allowed is None else query.seed[allowed[query.seed]]
        scores = query.scores
        if seed.size >= k:
            cutoff = np.partition(scores[seed], seed.size - k)[seed.size - k]
            candidates = np.flatnonzero(matched & (scores >= cutoff))
            rows, best = top_k(scores[candidates].astype(np.float32), k)
            return candidates[rows], best
        return top_k(scores.astype(np.float32), k, allowed=matched)


@dataclass(frozen=True)
class QueryScores:
    """One query's scores over all rows, which rows match a term, and the rarest term's rows."""

    scores: np.ndarray
    matched: np.ndarray
    seed: np.ndarray


def idf_floor_applies(n_docs: int, df: int) -> bool:
    """True when a term in `df` of `n_docs` documents has a negative raw IDF (floored)."""
    return math.log(n_docs - df + 0.5) - math.log(df + 0.5) < 0
