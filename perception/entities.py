"""Rule-based entities: codes and model names (regex), quoted names, glossary terms and sources (lexicons).

Fast and model-free, so ingest can run it on every chunk; the agent adds statistical NER on top.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from perception.config import PerceptionConfig
from perception.lexicon import PhraseLexicon
from perception.models import ModelNameRules
from perception.sources import SourceHit, SourceMatcher
from perception.types import Entity

# Opening quote -> closing quote. Straight quotes must open after a space or bracket and close
# before one, so apostrophes ("Google's") are not read as quotes.
_QUOTES = re.compile(
    r"“(?P<a>[^”\n]{1,%(n)d})”|‘(?P<b>[^’\n]{1,%(n)d})’|「(?P<c>[^」\n]{1,%(n)d})」|『(?P<d>[^』\n]{1,%(n)d})』"
    r"|《(?P<e>[^》\n]{1,%(n)d})》|(?<![^\s(\[{:,])\"(?P<f>[^\"\n]{1,%(n)d})\"(?![^\s)\]}.,;:?!])"
    r"|(?<![^\s(\[{:,])'(?P<g>[^'\n]{1,%(n)d}?)'(?![^\s)\]}.,;:?!])")

# When rule entities overlap, the longer wins; on equal length, this order decides.
_RANK = {"SOURCE": 0, "ORG": 1, "PLACE": 1, "PERSON": 1, "PRODUCT": 1, "TERM": 2, "CODE": 3,
         "EVENT": 4, "WORK": 4}


class EntityRules:
    """Codes, quoted names, glossary terms and known sources, from the config."""

    def __init__(self, cfg: PerceptionConfig, known_sources: Iterable[str] = ()) -> None:
        """Compile the config's patterns and lexicons.

        Args:
            cfg: the validated config.
            known_sources: source names from the knowledge bases (added to the config's).
        """
        self._cfg = cfg
        self._patterns = cfg.entity_patterns
        self._quotes = re.compile(_QUOTES.pattern % {"n": cfg.max_quoted_length})
        self._models = ModelNameRules(cfg.models)
        entries = []
        self._labels: dict[str, str] = {}
        for group in cfg.term_groups:
            for text, normalized, synonyms in group.entries:
                for phrase in (text, *synonyms):
                    entries.append((phrase, normalized, f"term.{group.label.lower()}"))
                self._labels.setdefault(normalized, group.label)
        self._terms = PhraseLexicon(entries)
        self.set_known_sources(known_sources)

    def set_known_sources(self, names: Iterable[str]) -> None:
        """Replace the KB source names (the config's `sources.names` are always kept)."""
        cfg = self._cfg
        self.known_sources = names if isinstance(names, tuple) else tuple(names)
        self.sources = SourceMatcher(
            list(cfg.source_names) + [str(n) for n in names if n], cfg.source_aliases,
            cfg.derive_source_aliases, cfg.source_separators, cfg.min_alias_length)

    def find_sources(self, text: str) -> list[SourceHit]:
        """Source mentions in `text` (see SourceMatcher.find)."""
        return self.sources.find(text)

    def extract(self, text: str) -> list[Entity]:
        """All rule entities in `text`, ordered by span.

        Sources, glossary terms and codes never overlap each other (longest wins, then
        SOURCE > glossary > CODE); a QUOTED entity may contain them but is dropped when it is
        exactly one of them.

        Args:
            text: any text (a query or a chunk).

        Returns:
            Entities with origin "rule" (lexicons) or "pattern" (regexes).
        """
        found: list[Entity] = []
        for source in self.sources.find(text):
            normalized = source.sources[0] if len(source.sources) == 1 else source.text
            found.append(Entity(source.text, "SOURCE", (source.start, source.end), "rule", normalized))
        for term in self._terms.finditer(text):
            label = self._labels.get(term.value, "TERM")
            found.append(Entity(term.text, label, (term.start, term.end), "rule", term.value))
        for _name, label, regex in self._patterns:
            for m in regex.finditer(text):
                code = m.group(0)
                if code.upper() in self._cfg.not_codes:
                    continue
                found.append(Entity(code, label, (m.start(), m.end()), "pattern", code.upper()))
        for model in self._models.find(text):
            found.append(Entity(model.text, model.label, (model.start, model.end), "pattern", model.normalized))
        chosen = _non_overlapping(found)
        spans = {e.span for e in chosen}
        for m in self._quotes.finditer(text):
            group = next(g for g in "abcdefg" if m.group(g) is not None)
            inner = m.group(group)
            start = m.start(group) + (len(inner) - len(inner.lstrip()))
            inner = inner.strip()
            end = start + len(inner)
            if inner and (start, end) not in spans:
                chosen.append(Entity(inner, "QUOTED", (start, end), "pattern", inner))
        chosen.sort(key=lambda e: (e.span[0], -e.span[1], e.label))
        return chosen


def _non_overlapping(entities: list[Entity]) -> list[Entity]:
    """Keep the longest entity at each place; ties go to the better-ranked label."""
    ordered = sorted(entities, key=lambda e: (-(e.span[1] - e.span[0]), _RANK.get(e.label, 9), e.span[0]))
    kept: list[Entity] = []
    for e in ordered:
        if all(e.span[1] <= k.span[0] or e.span[0] >= k.span[1] for k in kept):
            kept.append(e)
    return kept


def overlaps(span: tuple[int, int], spans: Iterable[tuple[int, int]]) -> bool:
    """True when `span` shares at least one character with any of `spans`."""
    return any(span[0] < e and s < span[1] for s, e in spans)
