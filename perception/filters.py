"""Status, document type and quantitative intent: lexicon-driven, normalised to KB metadata values."""

from __future__ import annotations

from dataclasses import dataclass

from perception.config import PerceptionConfig
from perception.lexicon import PhraseLexicon, tokenize


@dataclass(frozen=True)
class FilterHit:
    """One status / doc-type / quantitative cue: the value it gives and the rule and span."""

    kind: str
    value: str
    start: int
    end: int
    text: str
    rule: str

    def note(self) -> dict:
        """The hit as a trace note."""
        return {"rule": self.rule, "span": [self.start, self.end], "text": self.text,
                "produced": {self.kind: self.value}}


_LINKS = {":", "=", "is", "are", "of", "为", "是", "-"}
_COPULA = {"is", "are", "was", "were"}
_CONJUNCTIONS = {"and", "or", ",", "/", "和", "或", "、"}
_RELATIVE = _COPULA | {"that", "which", "still", "now", "currently", "not", "yet", "already"}


class FilterRules:
    """Finds status values, document types and quantitative intent in a query."""

    def __init__(self, cfg: PerceptionConfig) -> None:
        """Compile the `status`, `doc_type` and `quantitative` sections."""
        self._doc = PhraseLexicon(
            ((p, value, f"doc_type.{value}") for value, c in cfg.doc_type.items() for p in c.phrases),
            plurals=True, unless=[u for c in cfg.doc_type.values() for u in c.unless])
        self._doc_patterns = [(value, rx) for value, c in cfg.doc_type.items() for rx in c.patterns]
        self._status = PhraseLexicon(
            ((p, value, f"status.{value}") for value, c in cfg.status.items() for p in c.phrases),
            unless=[u for c in cfg.status.values() for u in c.unless])
        self._status_patterns = [(value, rx) for value, c in cfg.status.items() for rx in c.patterns]
        # Context-bound status words: "closed tickets", "tickets that are closed", "status: closed".
        self._bound_words = PhraseLexicon(
            ((w, value, f"status.{value}.with_noun") for value, c in cfg.status.items() for w in c.with_noun),
            unless=[u for c in cfg.status.values() for u in c.unless])
        nouns = [p for c in cfg.doc_type.values() for p in c.phrases] + list(cfg.document_nouns)
        self._nouns = PhraseLexicon(((n, "noun", "noun") for n in nouns), plurals=True,
                                    unless=[u for c in cfg.doc_type.values() for u in c.unless])
        self._status_words = PhraseLexicon((w, "status", "status") for w in cfg.status_words)
        self._quant = PhraseLexicon(((p, "true", "quantitative") for p in cfg.quantitative.phrases),
                                    unless=cfg.quantitative.unless)
        self._quant_patterns = cfg.quantitative.patterns

    def doc_types(self, text: str) -> list[FilterHit]:
        """Document-type cues, in text order."""
        hits = [FilterHit("doc_type", h.value, h.start, h.end, h.text, h.rule) for h in self._doc.finditer(text)]
        hits += [FilterHit("doc_type", v, m.start(), m.end(), m.group(0), f"doc_type.{v}.pattern")
                 for v, rx in self._doc_patterns for m in rx.finditer(text)]
        return sorted(hits, key=lambda h: h.start)

    def statuses(self, text: str) -> list[FilterHit]:
        """Status cues, in text order (context-bound words only next to a document noun)."""
        hits = [FilterHit("status", h.value, h.start, h.end, h.text, h.rule) for h in self._status.finditer(text)]
        hits += [FilterHit("status", v, m.start(), m.end(), m.group(0), f"status.{v}.pattern")
                 for v, rx in self._status_patterns for m in rx.finditer(text)]
        taken = [(h.start, h.end) for h in hits]
        words = [w for w in self._bound_words.finditer(text) if not any(w.start < e and s < w.end for s, e in taken)]
        if words:
            _spans, tokens = tokenize(text)
            noun_starts = {m.first for m in self._nouns.finditer(text)}
            noun_ends = {m.last for m in self._nouns.finditer(text)}
            label_ends = {m.last for m in self._status_words.finditer(text)}
            bound_starts: set[int] = set()
            for w in reversed(words):   # right to left, so "closed and open tickets" binds both
                joined = w.last + 1 < len(tokens) and tokens[w.last] in _CONJUNCTIONS and w.last + 1 in bound_starts
                if joined or self._bound(w, tokens, noun_starts, noun_ends, label_ends):
                    bound_starts.add(w.first)
                    hits.append(FilterHit("status", w.value, w.start, w.end, w.text, w.rule))
        return sorted(hits, key=lambda h: h.start)

    @staticmethod
    def _bound(word, tokens, noun_starts, noun_ends, label_ends) -> bool:
        """True when a context-bound status word stands next to a document noun or status label.

        Accepted: "closed tickets", "closed support tickets" (one word between), "tickets that
        are still open", "status: closed", "状态为已关闭".
        """
        if word.last in noun_starts or word.last + 1 in noun_starts:
            return True
        for k in range(word.first, max(-1, word.first - 3), -1):
            if k in label_ends and all(t in _LINKS for t in tokens[k:word.first]):
                return True
        for k in range(word.first, max(-1, word.first - 6), -1):
            between = tokens[k:word.first]
            if k in noun_ends and all(t in _RELATIVE for t in between) and _COPULA & set(between):
                return True
        return False

    def quantitative(self, text: str) -> list[FilterHit]:
        """Cues of a quantitative question (how many, rate, 多少 ...), in text order."""
        hits = [FilterHit("quantitative", "true", h.start, h.end, h.text, "quantitative")
                for h in self._quant.finditer(text)]
        hits += [FilterHit("quantitative", "true", m.start(), m.end(), m.group(0), "quantitative.pattern")
                 for rx in self._quant_patterns for m in rx.finditer(text)]
        return sorted(hits, key=lambda h: h.start)


def distinct_values(hits: list[FilterHit]) -> list[str]:
    """The hits' values, first appearance first, without repeats."""
    return list(dict.fromkeys(h.value for h in hits))
