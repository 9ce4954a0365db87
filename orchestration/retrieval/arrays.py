"""Saved numpy arrays, mapped read-only for serving.

Every process maps the same file pages (shared by all workers, read on first touch). The
array is a plain ndarray view of the mapping, not an `np.memmap`: the subclass's Python-level
`__getitem__` and `__array_finalize__` cost more than the per-term and per-row lookups they
wrap (BM25 postings, filter columns).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def load_mapped(path: Path) -> np.ndarray:
    """The array saved at `path` (`np.save`), mapped read-only."""
    return np.asarray(np.load(path, mmap_mode="r"))
