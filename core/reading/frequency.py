"""How common a word is in general English: its Zipf frequency, from a table shipped with the code.

Zipf is log10 of a word's occurrences per billion words ("the" 7.7, "server" 4.9, "cipher" 3.1);
the table (core/reading/data, from wordfreq) holds every word of 3.0 or more, so a word it lacks
(a product name, a number, a typo, a term of art) reads as rarer than 3.0. What it is for: a
question word that general English uses rarely is specific enough that a source answering the
question would write it, where a common one ("carry", "hold", "talk") is easily said otherwise.
"""

from __future__ import annotations

import gzip
from functools import cache
from pathlib import Path

TABLE = Path(__file__).resolve().parent / "data" / "english_zipf.tsv.gz"
# what a word outside the table reads as: below the table's floor
BELOW_TABLE = 0.0


@cache
def _english() -> dict[str, float]:
    with gzip.open(TABLE, "rt", encoding="utf-8") as lines:
        return {word: float(zipf) for word, zipf in (line.rstrip("\n").split("\t") for line in lines)}


def zipf(word: str) -> float:
    """The word's Zipf frequency in general English (case-insensitive; a possessive "'s" and
    surrounding punctuation ignored); BELOW_TABLE for a word the table lacks."""
    key = word.lower().strip(".,;:!?()[]{}\"'“”‘’")
    if key.endswith(("'s", "’s")):
        key = key[:-2]
    return _english().get(key, BELOW_TABLE)
