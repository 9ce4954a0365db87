"""Building the BM25 index one chunk at a time, without holding the chunks' texts or tokens.

`BM25Builder.add` takes one row's tokens and keeps only its term counts: the distinct term ids
and how often each occurs, written a block of rows at a time to a scratch file. `finish` reads
the blocks back in row order, places each posting at its term's place (a counting sort: the
document frequencies fix where every term's postings start) and computes the weights as
`BM25Index.build` does, so the index is the same, array for array, as one built from every
row's tokens at once (tests/orchestration/kb/test_bm25_build.py). Memory holds the vocabulary,
one block, and the finished index's own arrays.
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ..retrieval.bm25 import BM25Index, BM25Params, posting_weights

BLOCK_ROWS = 8192  # rows whose term counts are gathered before they go to the scratch file


class BM25Builder:
    """Term counts of rows added in row order; `finish()` turns them into a `BM25Index`.

    Promises: `finish()` returns what `BM25Index.build(rows, params)` returns for the same rows
    (vocabulary ids in order of first use, postings in row order within each term, the same
    weights to the bit); the scratch file lives in `scratch_dir` and is gone once it is closed.
    """

    def __init__(self, scratch_dir: Path | None = None, params: BM25Params | None = None) -> None:
        self.vocab: dict[str, int] = {}
        self.params = params or BM25Params()
        self._scratch: BinaryIO = tempfile.TemporaryFile(dir=scratch_dir, prefix="bm25-")
        self._pending: list[np.ndarray] = []  # term ids of the rows not yet counted, one array a row
        self._doc_len = array("q")  # per row: its token count
        self._blocks: list[int] = []  # postings in each block written to the scratch file
        self._df = np.zeros(0, dtype=np.int64)  # per term: rows holding it, so far

    @property
    def rows(self) -> int:
        """Rows added so far."""
        return len(self._doc_len)

    def add(self, tokens: Sequence[str]) -> None:
        """Add the next row's tokens."""
        vocab = self.vocab
        self._pending.append(np.fromiter((vocab.setdefault(t, len(vocab)) for t in tokens),
                                         dtype=np.int64, count=len(tokens)))
        self._doc_len.append(len(tokens))
        if len(self._pending) >= BLOCK_ROWS:
            self._flush()

    def _flush(self) -> None:
        """Count the pending rows' terms and append them to the scratch file as one block:
        rows, term ids and term frequencies (int32 each), ordered by row, then term."""
        if not self._pending:
            return
        first = len(self._doc_len) - len(self._pending)
        lengths = np.fromiter((len(t) for t in self._pending), dtype=np.int64, count=len(self._pending))
        terms = np.concatenate(self._pending) if lengths.sum() else np.empty(0, np.int64)
        rows = np.repeat(np.arange(first, first + len(self._pending), dtype=np.int64), lengths)
        keys, tf = np.unique(rows << 32 | terms, return_counts=True)
        block_rows, block_terms = keys >> 32, keys & 0xFFFFFFFF
        for column in (block_rows, block_terms, tf):
            column.astype(np.int32).tofile(self._scratch)
        self._blocks.append(int(keys.size))
        if len(self.vocab) > self._df.size:
            self._df = np.concatenate([self._df, np.zeros(len(self.vocab) - self._df.size, np.int64)])
        self._df += np.bincount(block_terms, minlength=self._df.size)
        self._pending = []

    def _read_blocks(self) -> Iterator[tuple[np.ndarray, ...]]:
        """(rows, term ids, term frequencies) of each block, in the order written."""
        self._scratch.seek(0)
        for size in self._blocks:
            yield tuple(np.fromfile(self._scratch, dtype=np.int32, count=size) for _ in range(3))

    def close(self) -> None:
        """Remove the scratch file (`finish` does it too)."""
        self._scratch.close()

    def finish(self) -> BM25Index:
        """The index of every row added.

        Raises:
            ValueError: no row was added (as `BM25Index.build`).
        """
        try:
            self._flush()
            n_docs = self.rows
            if n_docs == 0:
                raise ValueError("cannot build a BM25 index over zero documents")
            n_terms = max(len(self.vocab), 1)
            df = np.zeros(n_terms, dtype=np.int64)
            df[:self._df.size] = self._df
            indptr = np.zeros(n_terms + 1, dtype=np.int64)
            np.cumsum(df, out=indptr[1:])
            indices, tf = self._place(indptr)
            doc_len = np.frombuffer(self._doc_len, dtype=np.int64).copy()
            self._doc_len = array("q")
            data, avgdl, mean_idf = posting_weights(self.params, n_docs, df, doc_len, indptr, indices, tf)
            stats = {"avgdl": avgdl, "mean_idf": mean_idf, "n_terms": int(len(self.vocab)),
                     "n_postings": int(indices.size)}
            return BM25Index(self.vocab, indptr, indices, data, n_docs, self.params, stats,
                             tf=tf, doc_len=doc_len.astype(np.int32))
        finally:
            self.close()

    def _place(self, indptr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows and term frequencies of every posting at its place: grouped by term, in row order."""
        total = int(indptr[-1])
        indices = np.empty(total, dtype=np.int32)
        tf = np.empty(total, dtype=np.int32)
        cursor = indptr[:-1].copy()  # per term: where its next posting goes
        for rows, terms, counts in self._read_blocks():
            if not terms.size:
                continue
            order = np.argsort(terms, kind="stable")  # by term; rows stay in order within a term
            by_term = terms[order]
            starts = np.flatnonzero(np.r_[True, by_term[1:] != by_term[:-1]])
            run = np.diff(np.r_[starts, by_term.size])
            rank = np.arange(by_term.size) - np.repeat(starts, run)  # place within its term in this block
            places = cursor[by_term] + rank
            indices[places] = rows[order]
            tf[places] = counts[order]
            cursor[by_term[starts]] += run
        return indices, tf

