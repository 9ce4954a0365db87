"""Action classification: compare, explain, how_to, list, summarize or lookup (the default)."""

from __future__ import annotations

from dataclasses import dataclass

from perception.config import CueSet, PerceptionConfig
from perception.lexicon import PhraseLexicon
from perception.types import Entity


@dataclass(frozen=True)
class Cue:
    """One cue found in the query: which action it signals, where, and which rule."""

    action: str
    start: int
    end: int
    text: str
    rule: str


def _lexicon(name: str, cues: CueSet) -> PhraseLexicon:
    """A phrase lexicon for one cue set, every phrase mapping to `name`."""
    return PhraseLexicon(((p, name, f"action.{name}") for p in cues.phrases), unless=cues.unless)


def _pattern_hits(name: str, cues: CueSet, text: str, rule: str) -> list[Cue]:
    """Cues from a cue set's regexes."""
    return [Cue(name, m.start(), m.end(), m.group(0), rule)
            for rx in cues.patterns for m in rx.finditer(text)]


class ActionRules:
    """Picks one action per query from explicit cues, an implicit comparison, or the default."""

    def __init__(self, cfg: PerceptionConfig) -> None:
        """Compile the cue lexicons from the config's `actions` section."""
        self._cfg = cfg
        self._cues = {name: (_lexicon(name, c), c) for name, c in cfg.action_cues.items()}
        self._implicit = _lexicon("compare", cfg.implicit_compare)

    def cues(self, text: str) -> list[Cue]:
        """Every explicit action cue in `text`, in text order."""
        found: list[Cue] = []
        for name, (lexicon, cueset) in self._cues.items():
            found += [Cue(name, h.start, h.end, h.text, h.rule) for h in lexicon.finditer(text)]
            found += _pattern_hits(name, cueset, text, f"action.{name}.pattern")
        return sorted(found, key=lambda c: (c.start, c.end, c.action))

    def classify(self, text: str, entities: list[Entity]) -> tuple[str, list[dict]]:
        """The action for a query and the trace notes explaining it.

        The explicit cue of the highest-precedence action wins (actions.precedence). With no
        explicit cue, a comparative or contrast word plus at least `min_entities` distinct
        entities means compare. Otherwise the default action.

        Args:
            text: the query.
            entities: the entities already extracted (for the implicit comparison).

        Returns:
            (action, notes).
        """
        cues = self.cues(text)
        if cues:
            rank = {name: i for i, name in enumerate(self._cfg.action_precedence)}
            best = min(cues, key=lambda c: (rank.get(c.action, len(rank)), c.start))
            return best.action, [{"rule": best.rule, "span": [best.start, best.end], "text": best.text,
                                  "produced": {"action": best.action},
                                  "also_seen": sorted({c.action for c in cues} - {best.action})}]
        distinct = {e.normalized.lower() for e in entities if e.label != "QUOTED"}
        if len(distinct) >= self._cfg.implicit_compare_min_entities:
            hits = self._implicit.findall(text) or [
                h for h in _pattern_hits("compare", self._cfg.implicit_compare, text, "action.compare.implicit")]
            if hits:
                h = hits[0]
                return "compare", [{"rule": "action.compare.implicit", "span": [h.start, h.end], "text": h.text,
                                    "produced": {"action": "compare"},
                                    "entities": sorted(distinct)}]
        return self._cfg.default_action, [{"rule": "action.default", "span": None, "text": "",
                                           "produced": {"action": self._cfg.default_action}}]
