"""Action classification: compare, explain, how_to, list, summarize or lookup (the default)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from perception.config import CueSet, PerceptionConfig
from perception.lexicon import Match, PhraseLexicon, phrase_regex
from perception.types import Entity

_NUMBER_AFTER = re.compile(r"\s+(?:about\s+|around\s+|over\s+|nearly\s+|almost\s+)?[\d$£€]", re.IGNORECASE)
_THRESHOLD = re.compile(r"\s+than" + _NUMBER_AFTER.pattern, re.IGNORECASE)
_JOIN = re.compile(r"[\s\-]*")


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
        self._comparatives = _lexicon("compare", cfg.comparatives)
        alt = cfg.alternatives
        self._which = PhraseLexicon((w, "which", "which") for w in alt.which)
        self._or_gap = _gap_regex(alt.or_words)
        self._and_gap = _gap_regex(alt.and_words)

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
        distinct = {key for key, _s, _e in mentions(text, [e for e in entities if e.label != "QUOTED"])}
        if len(distinct) >= self._cfg.implicit_compare_min_entities:
            hits: Sequence[Match | Cue] = self._implicit.findall(text) or [
                h for h in _pattern_hits("compare", self._cfg.implicit_compare, text, "action.compare.implicit")]
            hits = [h for h in hits if not _threshold(text, h.start, h.end)]
            if hits:
                h = hits[0]
                return "compare", [{"rule": "action.compare.implicit", "span": [h.start, h.end], "text": h.text,
                                    "produced": {"action": "compare"},
                                    "entities": sorted(distinct)}]
        note = self._alternatives(text, entities) or self._comparative(text, entities)
        if note is not None:
            return "compare", [note]
        return self._cfg.default_action, [{"rule": "action.default", "span": None, "text": "",
                                           "produced": {"action": self._cfg.default_action}}]

    def _comparative(self, text: str, entities: list[Entity]) -> dict | None:
        """A comparative word ("less", "more", "fewer", "更", "比") standing between two distinct
        comparable mentions (codes, products, organisations): "Does the A320neo burn less fuel
        than the 737 MAX 8?". A word followed by "than" and a number ("more than 100") is a
        threshold, and a word inside an entity ("Best Buy") does not count."""
        named = mentions(text, [e for e in entities if e.label in self._cfg.comparable_labels])
        if len({key for key, _s, _e in named}) < self._cfg.implicit_compare_min_entities:
            return None
        for h in self._comparatives.finditer(text):
            if _threshold(text, h.start, h.end) or any(e.span[0] <= h.start < e.span[1] for e in entities):
                continue
            before = {key for key, _s, end in named if end <= h.start}
            after = {key for key, start, _e in named if start >= h.end}
            if before and after and len(before | after) >= self._cfg.implicit_compare_min_entities:
                return {"rule": "action.compare.comparative", "span": [h.start, h.end], "text": h.text,
                        "produced": {"action": "compare"}, "entities": sorted(before | after)}
        return None

    def _alternatives(self, text: str, entities: list[Entity]) -> dict | None:
        """A which-question offering two named alternatives: "Which ..., X or Y?", "X 还是 Y",
        "X 和 Y 哪个...", "which of X and Y"."""
        which = self._which.findall(text)
        if not which:
            return None
        named = mentions(text, [e for e in entities if e.label != "QUOTED"])
        window = self._cfg.alternatives.and_which_window
        for (k1, s1, e1), (k2, s2, e2) in pairwise(named):
            if k1 == k2:
                continue
            gap = text[e1:s2]
            joined = self._or_gap is not None and self._or_gap.match(gap) is not None
            if not joined and self._and_gap is not None and self._and_gap.match(gap):
                joined = any(_which_follows(text, e2, w.start, window) or _which_precedes(text, w.end, s1)
                             for w in which)
            if joined:
                return {"rule": "action.compare.alternatives", "span": [s1, e2], "text": text[s1:e2],
                        "produced": {"action": "compare"}, "entities": [k1, k2]}
        return None


def _threshold(text: str, start: int, end: int) -> bool:
    """True for a comparative used as a threshold: "more than 100", "than $5", "less than 10%"."""
    if text[start:end].lower() == "than":
        return bool(_NUMBER_AFTER.match(text, end))
    return bool(_THRESHOLD.match(text, end))


_PUNCT = re.compile(r"[,.;:!?，。；：！？]")
_WHICH_OF = re.compile(r"\s+(?:of|between|among)\s+(?:the\s+)?$", re.IGNORECASE)


def _which_follows(text: str, end: int, which_start: int, window: int) -> bool:
    """"A 和 B 哪个...": the which word comes soon after B, with no punctuation in between
    ("Alameda and FTX, who is ..." is a relative clause, not a question about the two)."""
    return end <= which_start <= end + window and not _PUNCT.search(text, end, which_start)


def _which_precedes(text: str, which_end: int, start: int) -> bool:
    """"which of A and B": the which word, then of / between / among, then A."""
    return which_end <= start and bool(_WHICH_OF.match(text[which_end:start]))


def _gap_regex(words) -> re.Pattern | None:
    """What may stand between two alternatives: a comma, one of `words`, an article."""
    words = [w for w in words if w.strip()]
    if not words:
        return None
    alt = "|".join(phrase_regex(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"\s*,?\s*(?:{alt})\s*(?:(?:the|a|an)\s+)?$", re.IGNORECASE)


def mentions(text: str, entities: list[Entity]) -> list[tuple[str, int, int]]:
    """Entities grouped into mentions: entities written next to each other (only spaces or a
    hyphen between them, "Boeing 737 MAX 8", "Apple iPhone 15") are one mention, keyed by the
    normalised form of its last entity (lower case).

    Returns:
        (key, start, end) per mention, in text order.
    """
    out: list[tuple[str, int, int]] = []
    for e in sorted(entities, key=lambda e: e.span):
        if out and e.span[0] >= out[-1][2] and _JOIN.fullmatch(text[out[-1][2]:e.span[0]]):
            out[-1] = (e.normalized.lower(), out[-1][1], e.span[1])
        elif out and e.span[0] < out[-1][2]:
            continue
        else:
            out.append((e.normalized.lower(), e.span[0], e.span[1]))
    return out
