"""Status, document type and quantitative intent: lexicon-driven, normalised to KB metadata values.

Ambiguous words count only in context, both ways: a `with_noun` status word ("draft",
"effective") only before or after a document noun, a `with_status` document noun ("policy")
only with a status qualifying it. Between a status and its noun may stand up to
MAX_MODIFIERS modifier words ("the effective data retention regulation", "superseded travel
policies"), never a function word or punctuation ("draft a policy" binds nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.text import has_han
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
MAX_MODIFIERS = 3  # words between a status and the document noun it qualifies ("effective data retention regulation")
MAX_RELATIVE = 4   # words between a document noun and a status after it ("policies that are still superseded")


class FilterRules:
    """Finds status values, document types and quantitative intent in a query."""

    def __init__(self, cfg: PerceptionConfig) -> None:
        """Compile the `status`, `doc_type` and `quantitative` sections."""
        self._doc = PhraseLexicon(
            ((p, value, f"doc_type.{value}") for value, c in cfg.doc_type.items() for p in c.phrases),
            plurals=True, unless=[u for c in cfg.doc_type.values() for u in c.unless])
        self._doc_patterns = [(value, rx) for value, c in cfg.doc_type.items() for rx in c.patterns]
        # Context-bound document nouns: "the draft invoice policy", not "monetary policy".
        self._doc_bound = PhraseLexicon(
            ((n, value, f"doc_type.{value}.with_status") for value, c in cfg.doc_type.items() for n in c.with_status),
            plurals=True, unless=[u for c in cfg.doc_type.values() for u in c.unless])
        self._function_words = cfg.function_words
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

    def doc_types(self, text: str, statuses: list[FilterHit] | None = None) -> list[FilterHit]:
        """Document-type cues, in text order.

        Args:
            text: the query.
            statuses: the status cues that may qualify a context-bound noun ("policy"); default
                `self.statuses(text)`. A caller that drops some (inside a source name) passes the rest.
        """
        hits = [FilterHit("doc_type", h.value, h.start, h.end, h.text, h.rule) for h in self._doc.finditer(text)]
        hits += [FilterHit("doc_type", v, m.start(), m.end(), m.group(0), f"doc_type.{v}.pattern")
                 for v, rx in self._doc_patterns for m in rx.finditer(text)]
        taken = [(h.start, h.end) for h in hits]
        nouns = [n for n in self._doc_bound.finditer(text) if not any(n.start < e and s < n.end for s, e in taken)]
        if nouns:
            spans, tokens = tokenize(text)
            qualifiers = [_token_range(spans, h.start, h.end)
                          for h in (self.statuses(text) if statuses is None else statuses)]
            hits += [FilterHit("doc_type", n.value, n.start, n.end, n.text, n.rule) for n in nouns
                     if any(self._qualifies(first, last, n.first, n.last, tokens) for first, last in qualifiers)]
        return sorted(hits, key=lambda h: h.start)

    def _modifiers(self, tokens: tuple[str, ...], start: int, end: int) -> bool:
        """True when tokens[start:end] may all stand inside one noun phrase: at most MAX_MODIFIERS
        Latin words or numbers, none a function word (an empty range is true)."""
        between = tokens[start:end]
        return len(between) <= MAX_MODIFIERS and all(
            t.isalnum() and not has_han(t) and t not in self._function_words for t in between)

    def _qualifies(self, first: int, last: int, noun_first: int, noun_last: int, tokens: tuple[str, ...]) -> bool:
        """True when the status at tokens[first:last] qualifies the noun at tokens[noun_first:noun_last]:
        before it across modifier words ("draft invoice policy"), or after it across relative
        words ("policies that are superseded", "policy currently in force")."""
        if last <= noun_first:
            return self._modifiers(tokens, last, noun_first)
        between = tokens[noun_last:first]
        return noun_last <= first and len(between) <= MAX_RELATIVE and all(t in _RELATIVE for t in between)

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

    def _bound(self, word, tokens, noun_starts, noun_ends, label_ends) -> bool:
        """True when a context-bound status word stands next to a document noun or status label.

        Accepted: "closed tickets", "closed support tickets", "the effective data retention
        regulation" (up to MAX_MODIFIERS modifier words between), "tickets that are still open",
        "status: closed", "状态为已关闭". Not across a function word: "draft a policy".
        """
        for start in noun_starts:
            if start >= word.last and self._modifiers(tokens, word.last, start):
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


def _token_range(spans: tuple[tuple[int, int], ...], start: int, end: int) -> tuple[int, int]:
    """(first, last) token indices (last exclusive) of the characters start:end, for hits that
    may come from a regex and so need not fall on token boundaries."""
    first = next((i for i, (_s, e) in enumerate(spans) if e > start), len(spans))
    last = next((i for i, (s, _e) in enumerate(spans) if s >= end), len(spans))
    return first, max(first, last)


def distinct_values(hits: list[FilterHit]) -> list[str]:
    """The hits' values, first appearance first, without repeats."""
    return list(dict.fromkeys(h.value for h in hits))
