"""Article splits of the SQuAD 2.0 articles in ../shared/eval: fit on one, choose on another,
report a third (the ten articles held out upstream are never here).

The split is by article, never by question: questions of one article share its vocabulary,
so a question-level split would leak. Each article's place is fixed by a hash of its title,
so the split does not move when the file's order does.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

SQUAD_FILE = Path("squad2") / "dev-v2.0.shared.json.gz"
SQUAD_TRAIN_FILE = Path("squad2_train") / "train-v2.0.youtaqa441.json.gz"  # 441 train articles, none of the dev's
SPLITS = ("train", "dev", "test")
# of every 5 articles in hash order: 3 fit the model, 1 chooses it (and its threshold), 1 reports
_SHARES = ("train", "train", "train", "dev", "test")


def split_of(title: str) -> str:
    """"train", "dev" or "test" for an article title (stable across runs and machines)."""
    digest = hashlib.sha1(title.encode("utf-8")).hexdigest()
    return _SHARES[int(digest[:8], 16) % len(_SHARES)]


def read_squad(data_dir: Path, path: Path = SQUAD_FILE) -> list[dict[str, Any]]:
    """The SQuAD 2.0 articles (`data[]` of the official layout) of `data_dir / path` (gzipped
    JSON; the dev articles unless told: SQUAD_TRAIN_FILE is the train set)."""
    with gzip.open(data_dir / path, "rt", encoding="utf-8") as handle:
        return json.load(handle)["data"]


def squad_articles(data_dir: Path, split: str) -> list[dict[str, Any]]:
    """The articles of one split, in file order.

    Raises:
        ValueError: `split` is not one of SPLITS.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    return [a for a in read_squad(data_dir) if split_of(a["title"]) == split]


def query_split(query_id: str) -> str:
    """"train", "dev" or "test" for a query of a set without articles (MultiHop-RAG): by a hash of
    its id, in the same 3 : 1 : 1 shares as the articles."""
    return split_of(f"query:{query_id}")
