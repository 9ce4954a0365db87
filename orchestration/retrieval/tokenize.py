"""The tokeniser shared by BM25 indexing and keyword queries.

English: lowercased, Lucene's English stopword set removed, Snowball-stemmed; codes kept
whole and unstemmed (E4027, A320, LEAP-1A, GPT-4, B737-800). Chinese runs are segmented by
jieba (its dictionary ships inside the package) with a small stopword list. The same
function must tokenise documents and queries, or BM25 scores mean nothing.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from itertools import chain

import Stemmer

from core.reading.identifiers import is_code
from core.reading.quantities import NUMBER_RUN
from core.segment import default_tokenizer
from core.text import HAN_RUN

# A run of CJK ideographs, or a word made of letters/digits joined by '-', '.', '/' or '_'.
_WORD = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|[^\W_]+(?:[-./_][^\W_]+)*")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")


def _load_words(name: str) -> frozenset[str]:
    """The words of a packaged stopword file, one per line."""
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


STOPWORDS_EN = _load_words("stopwords_en.txt")
STOPWORDS_ZH = _load_words("stopwords_zh.txt")


@functools.lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


def _jieba():
    """jieba's default tokenizer, initialised once per process (core.segment)."""
    return default_tokenizer()


@functools.lru_cache(maxsize=200_000)
def _english_word_tokens(word: str) -> tuple[str, ...]:
    """Tokens for one regex word: a code or number whole, otherwise its stemmed parts."""
    lowered = word.lower()
    if NUMBER_RUN.fullmatch(lowered):
        return (_THOUSANDS.sub("", lowered),)  # 2,290 and 2290 are the same number
    if is_code(lowered):
        return (lowered,)
    parts = [p for p in re.split(r"[-./_]", lowered) if p and p not in STOPWORDS_EN]
    return tuple(_stemmer().stemWords(parts))


def _tokenize_latin(text: str, out: list[str]) -> None:
    out.extend(chain.from_iterable(map(_english_word_tokens, _WORD.findall(text))))


def _tokenize_cjk(run: str, out: list[str]) -> None:
    for word in _jieba().lcut(run, HMM=True):
        word = word.strip()
        if word and word not in STOPWORDS_ZH:
            out.append(word)


def tokenize(text: str) -> list[str]:
    """Split text into BM25 terms, in order, duplicates kept (term frequency matters)."""
    out: list[str] = []
    position = 0
    for run in HAN_RUN.finditer(text):
        if run.start() > position:
            _tokenize_latin(text[position:run.start()], out)
        _tokenize_cjk(run.group(), out)
        position = run.end()
    if position < len(text):
        _tokenize_latin(text[position:], out)
    return out
