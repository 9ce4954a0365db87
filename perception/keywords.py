"""Keywords for the keyword (BM25) arm: entities whole, then content words; jieba for Chinese."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any

from core.segment import private_tokenizer
from perception.config import PerceptionConfig
from perception.entities import overlaps
from perception.types import Entity

log = logging.getLogger(__name__)

_EN_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[\-'’.][A-Za-z0-9]+)*")
_HAN_OR_WORD = re.compile(r"[\w\u3400-\u9fff]", re.UNICODE)
# Entities kept whole as one keyword; SOURCE names go to the source filter instead, and
# QUOTED texts are long: their words are used one by one.
_WHOLE = ("CODE", "ORG", "PERSON", "PLACE", "PRODUCT", "TERM", "EVENT", "WORK")


class KeywordRules:
    """Turns a query into keyword strings; Chinese is segmented with a private jieba tokenizer."""

    def __init__(self, cfg: PerceptionConfig) -> None:
        """Keep the stopword lists; jieba loads lazily (or in `warm_up`)."""
        self._cfg = cfg
        self._jieba: Any = None  # a jieba.Tokenizer once warm_up ran (jieba ships no types)
        self._lock = threading.Lock()
        self._extra_words = sorted({p for g in cfg.term_groups for t, _n, syn in g.entries for p in (t, *syn)
                                    if _HAN_OR_WORD.search(p) and not p.isascii()}
                                   | {p for c in cfg.doc_type.values() for p in c.phrases if not p.isascii()}
                                   | {p for c in cfg.status.values() for p in c.phrases if not p.isascii()})

    def warm_up(self) -> None:
        """Load jieba's dictionary (about a second, once) and add the lexicon's Chinese terms."""
        if self._jieba is not None:
            return
        with self._lock:
            if self._jieba is not None:
                return
            self._jieba = private_tokenizer(self._extra_words)

    def segment(self, text: str) -> list[tuple[str, int, int]]:
        """Chinese segmentation: (word, start, end) for every jieba token."""
        self.warm_up()
        return list(self._jieba.tokenize(text))

    def keywords(self, text: str, language: str, entities: Iterable[Entity],
                 skip: Iterable[tuple[int, int]] = ()) -> list[str]:
        """Keywords in query order, without repeats.

        Entities (codes, names, glossary terms) come out whole; other words are kept when they
        are not stopwords, not shorter than keywords.min_length (Chinese: not a single
        character) and not inside a `skip` span (time phrases, source names).

        Args:
            text: the query.
            language: "en" or "zh" (selects the tokenizer and stopwords).
            entities: the extracted entities.
            skip: spans whose words are not keywords.

        Returns:
            The keywords (entities as written, codes upper-case, other words lower-case).
        """
        skip = list(skip)
        whole = [e for e in entities if e.label in _WHOLE and not overlaps(e.span, skip)]
        whole_spans = [e.span for e in whole]
        items: list[tuple[int, str]] = []
        for e in whole:
            word = e.normalized if e.label == "CODE" else e.text.lower() if e.text.isascii() else e.text
            items.append((e.span[0], word))
        blocked = skip + whole_spans
        if language == "zh":
            tokens = self.segment(text)
        else:
            tokens = [(m.group(0), m.start(), m.end()) for m in _EN_TOKEN.finditer(text)]
        for word, start, end in tokens:
            word = word.strip()
            if not word or overlaps((start, end), blocked):
                continue
            if self._keep(word):
                items.append((start, word.lower() if word.isascii() else word))
        items.sort(key=lambda item: item[0])
        return list(dict.fromkeys(word for _pos, word in items))

    def _keep(self, word: str) -> bool:
        """True for a content word (not a stopword, long enough, not punctuation)."""
        if not _HAN_OR_WORD.search(word):
            return False
        if word.isascii():
            low = word.lower().strip("'’.")
            if low in self._cfg.stopwords_en or len(low) < self._cfg.keyword_min_length:
                return False
            return not (low.isdigit() and len(low) < 2)
        return word not in self._cfg.stopwords_zh and len(word) >= 2
