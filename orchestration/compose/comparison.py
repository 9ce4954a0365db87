"""Comparisons: the sides being compared, the sentences about each, and the relation between them.

Promises: a relation (higher, lower, same, earlier, later) is derived only from two values
stated in evidence sentences, one about each side, with the same full unit (see
`core.reading.measures.read_measure`) or both calendar dates; otherwise the finding is a notice saying why
no comparison can be made (a side with no evidence, no value, or different units). Sides are
matched case-insensitively on word starts ("A320" matches "A320neo"; a code such as "B737"
also matches its number "737" when that number is not a quantity). Everything is
deterministic: ties break by evidence rank and sentence position.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.reading.measures import Measure, sentence_measures
from core.reading.mentions import mention_start, mentions, number_alias
from core.reading.periods import UNIT, figure_dating
from core.reading.quantities import same_quantity
from core.reading.variants import named_variant
from orchestration.retrieval.tokenize import tokenize
from perception.comparison import INFERRED
from perception.comparison import comparison_sides as perceived_sides
from perception.question import Question
from perception.types import Perception, TimeWindow

from .language import glue
from .scoring import QueryTerms, ScoreSettings, rank, score
from .sentences import Candidate

_CLAUSE_SPLIT = re.compile(r"[,，;；:：]\s*(?!\d{3})")
_COMPARE_CUES = frozenset({"compar", "versus", "vs", "differ", "differenc", "which", "less", "more",
                           "higher", "lower", "better", "wors", "对比", "比较", "哪个", "区别", "差异"})


@dataclass(frozen=True)
class Side:
    """One thing being compared.

    Attributes:
        name: as written in the query ("A320", "737 MAX 8").
        variants: lower-case spellings that count as a mention.
        number_alias: for letter+number codes ("B737"), the bare number ("737").
        inferred: True when read from the query text because perception found no entity.
    """

    name: str
    variants: tuple[str, ...]
    number_alias: str | None = None
    inferred: bool = False
    source: str | None = None  # a publication side: matched by the chunk's `source` metadata, not its text

    @functools.cached_property
    def tokens(self) -> frozenset[str]:
        """BM25 terms of the side's spellings (removed from measure terms), read once."""
        return frozenset(t for v in self.variants + ((self.number_alias,) if self.number_alias else ())
                         for t in tokenize(v))

    def about(self, candidate: Candidate) -> bool:
        """True when the sentence belongs to this side: from its publication, or naming it."""
        if self.source is not None:
            return str(candidate.chunk.metadata.get("source", "")).lower() == self.source.lower()
        return self.mentioned_in(candidate.text)

    def mentioned_in(self, text: str) -> bool:
        """True when the text names this side (core/reading/mentions.py: the shared rule)."""
        return any(mentions(variant, text) for variant in self.variants)

    def mention_at(self, text: str) -> int | None:
        """Where the text first names this side, or None."""
        starts = [s for s in (mention_start(v, text) for v in self.variants) if s is not None]
        return min(starts) if starts else None


def make_side(name: str, normalized: str | None = None, inferred: bool = False, source: bool = False) -> Side:
    """A Side (a comparison side or any name the query gives) with its spellings and (for letter+number
    codes) its number alias.

    `source=True` makes a publication side ("TechCrunch vs The Verge"): an article rarely
    names its own outlet, so such a side is matched by the chunk's `source` metadata.
    """
    variants = tuple(dict.fromkeys(v.lower().strip() for v in (name, normalized or name) if v and v.strip()))
    return Side(name.strip(), variants, number_alias(name), inferred,
                (normalized or name).strip() if source else None)


def comparison_sides(perception: Perception) -> list[Side]:
    """The sides of a comparison as the composer matches them: Perception's sides (the one
    reading of what is compared, perception/comparison.py) with their spellings."""
    return [make_side(e.text, e.normalized, inferred=e.origin == INFERRED, source=e.label == "SOURCE")
            for e in perceived_sides(perception)]


@dataclass
class Point:
    """One side's value for the relation: the sentence, the measure or date, as written, and the
    variant of the side the sentence gives it for ("737 MAX 8" for side "B737"; None when the
    sentence names the side plainly)."""

    side: Side
    candidate: Candidate
    value: float | str
    unit: str
    text: str
    variant: str | None = None

    @classmethod
    def at(cls, side: Side, candidate: Candidate, value: float | str, unit: str, text: str, offset: int) -> Point:
        """The point whose value is written at `offset` of the candidate's text, with its variant."""
        return cls(side, candidate, value, unit, text, named_variant(side.variants, candidate.text, offset))

    def label(self, language: str) -> str:
        """How a relation names this side: its name, with the variant its value is of when the
        evidence names one ("B737 (737 MAX 8)")."""
        if self.variant is None:
            return self.side.name
        return glue(language, "side_variant", side=self.side.name, variant=self.variant)


@dataclass
class Finding:
    """What the comparison found.

    Attributes:
        per_side: side name -> its best sentences (best first; relation sentences first).
        relation: "lower", "higher", "same", "earlier", "later", or None.
        points: the two values compared, when there is a relation.
        kind: "figure" or "date": what was compared (or would have been).
        notices: (glue key, fields) for each thing the evidence did not allow.
    """

    per_side: dict[str, list[Candidate]] = field(default_factory=dict)
    relation: str | None = None
    points: tuple[Point, Point] | None = None
    kind: str = "figure"
    notices: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    bridge: Candidate | None = None  # a sentence relating the sides to each other, when no values compare


class Comparator:
    """Finds, for two or more sides, the sentences about each and the relation between the first two."""

    def __init__(self, settings: ScoreSettings, max_per_entity: int = 2) -> None:
        """Store settings.

        Args:
            settings: sentence scoring weights.
            max_per_entity: sentences kept per side.
        """
        self.settings = settings
        self.max_per_entity = max_per_entity

    def side_candidates(self, side: Side, others: Sequence[Side], candidates: Sequence[Candidate],
                        terms: QueryTerms) -> list[Candidate]:
        """Sentences about `side` only, ranked: naming it (or its chunk title names it) and no other side."""
        own_terms = QueryTerms({t: w for t, w in terms.weights.items()
                                if not any(t in o.tokens for o in others)}, terms.language, terms.quantitative,
                               terms.asks_author, terms.question)
        about: list[Candidate] = []
        for c in candidates:
            if any(o.about(c) for o in others):
                continue
            if side.about(c) or (side.source is None and side.mentioned_in(c.chunk.title or "")
                                             and not any(o.mentioned_in(c.chunk.title or "") for o in others)):
                about.append(c)
        ranked = rank(about, lambda c: score(c, own_terms, self.settings))
        return [c for c in ranked if c.score > 0]

    def measure_terms(self, sides: Sequence[Side], terms: QueryTerms) -> set[str]:
        """Query terms that say what is measured: not side names, comparison cues or numbers."""
        side_tokens = set().union(*(s.tokens for s in sides)) if sides else set()
        return {t for t in terms.weights if t not in side_tokens and t not in _COMPARE_CUES
                and not t.replace(".", "").isdigit()}

    def compare(self, question: Question, sides: Sequence[Side], candidates: Sequence[Candidate],
                terms: QueryTerms, window: TimeWindow | None = None) -> Finding:
        """Sentences per side and the relation (or why there is none) between the first two sides;
        with a time `window`, figures are paired by how well their dates fit it (`_period_rank`)."""
        finding = Finding()
        ranked: dict[str, list[Candidate]] = {}
        for side in sides:
            others = [o for o in sides if o is not side]
            ranked[side.name] = self.side_candidates(side, others, candidates, terms)
        for side in sides:
            if not ranked[side.name]:
                finding.notices.append(("missing_side", {"a": side.name}))
        if len(sides) >= 2 and ranked[sides[0].name] and ranked[sides[1].name]:
            measures = self.measure_terms(sides, terms)
            temporal = question.temporal  # a comparison over dates (perception/question.py)
            finding.kind = "date" if temporal else "figure"
            if temporal:
                self._date_pair(sides[0], sides[1], ranked, finding)
            else:
                self._measure_pair(sides[0], sides[1], ranked, measures, terms, window, finding)
        for side in sides:
            finding.per_side[side.name] = ranked[side.name]
        if len(sides) >= 2 and finding.relation is None:
            finding.bridge = self.bridge(sides, candidates, terms)
        return finding

    def bridge(self, sides: Sequence[Side], candidates: Sequence[Candidate], terms: QueryTerms) -> Candidate | None:
        """The best sentence that relates the sides to each other: it names one of them and the
        others are named by it or by its document's title ("It replaces PEP 622, which is hereby
        split in three parts" in PEP 634, for "How is PEP 622 different from PEP 634?"). Never
        for publication sides (an article is one outlet's)."""
        if any(s.source is not None for s in sides):
            return None
        bridging = [c for c in candidates
                    if any(s.mentioned_in(c.text) for s in sides)
                    and all(s.mentioned_in(c.text) or s.mentioned_in(c.chunk.title or "") for s in sides)]
        ranked = [c for c in rank(bridging, lambda c: score(c, terms, self.settings)) if c.score > 0]
        return ranked[0] if ranked else None

    # --- pairing ---------------------------------------------------------------------------

    def _relevant(self, candidate: Candidate, measures: set[str]) -> bool:
        """True when the sentence is about the asked measure (or no measure was asked)."""
        return not measures or bool(measures & candidate.tokens)

    def _measure_pair(self, a: Side, b: Side, ranked: dict[str, list[Candidate]], measures: set[str],
                      terms: QueryTerms, window: TimeWindow | None, finding: Finding) -> None:
        """The best same-unit pair of figures, or a notice saying why there is none: pairs whose
        figures fit the time window better come first (the worse-fitting figure decides, then
        both: `_period_rank`), then by sentence scores and similarity."""
        found = {s.name: [(c, m) for c in ranked[s.name] if self._relevant(c, measures)
                          for m in sentence_measures(c.text) if _clause_mentions(c.text, m, measures)]
                 for s in (a, b)}
        fit = {s.name: [_period_rank(c, m, window) for c, m in found[s.name]] for s in (a, b)}
        best: tuple[float, tuple, tuple[Candidate, Measure], tuple[Candidate, Measure]] | None = None
        for i, (ca, ma) in enumerate(found[a.name]):
            for j, (cb, mb) in enumerate(found[b.name]):
                if ma.unit != mb.unit:
                    continue
                value = ca.score + cb.score + _similarity(ca, cb, a, b)
                ra, rb = fit[a.name][i], fit[b.name][j]
                order = (max(ra, rb), ra + rb, -value, i, j)
                if best is None or order < best[1]:
                    best = (value, order, (ca, ma), (cb, mb))
        if best is None:
            self._no_pair(a, b, found, terms, finding)
            return
        (ca, ma), (cb, mb) = best[2], best[3]
        if same_quantity(ma.quantity, mb.quantity) or ma.value == mb.value:
            relation = "same"
        else:
            relation = "lower" if ma.value < mb.value else "higher"
        finding.relation = relation
        finding.points = (Point.at(a, ca, ma.value, ma.unit or "", ma.text, ma.quantity.span[0]),
                          Point.at(b, cb, mb.value, mb.unit or "", mb.text, mb.quantity.span[0]))

    def _no_pair(self, a: Side, b: Side, found: dict, terms: QueryTerms, finding: Finding) -> None:
        """Record why no figures could be compared (only when a figure was asked for or given)."""
        if not found[a.name] and not found[b.name] and not terms.quantitative:
            return
        for side, other in ((a, b), (b, a)):
            if not found[side.name]:
                finding.notices.append(("no_value", {"a": side.name, "b": other.name}))
                return
        finding.notices.append(("units_differ", {"a": a.name, "b": b.name,
                                                 "ua": found[a.name][0][1].unit or "",
                                                 "ub": found[b.name][0][1].unit or ""}))

    def _date_pair(self, a: Side, b: Side, ranked: dict[str, list[Candidate]], finding: Finding) -> None:
        """The first stated date of each side's best dated sentence, compared."""
        points: list[Point] = []
        days: list[str] = []  # ISO dates: their string order is their date order
        for side in (a, b):
            dated = [c for c in ranked[side.name] if c.dates]
            if not dated:
                other = b if side is a else a
                finding.notices.append(("no_value", {"a": side.name, "b": other.name}))
                return
            c = dated[0]
            days.append(c.dates[0].value.isoformat())
            points.append(Point.at(side, c, days[-1], "date", c.dates[0].text, c.dates[0].span[0]))
        pa, pb = points
        da, db = days
        finding.relation = "same" if da == db else ("earlier" if da < db else "later")
        finding.points = (pa, pb)


def _period_rank(candidate: Candidate, measure: Measure, window: TimeWindow | None) -> int:
    """How well a figure's date fits the asked window, best first: 0 its unit writes a year in
    the window, 1 a heading above it does, 2 it is undated, 3 it is dated outside the window
    (`core.reading.periods`); 0 for every figure when no window is asked."""
    if window is None:
        return 0
    dating = figure_dating(candidate.text, measure.quantity.span, candidate.path)
    inside = dating.within(window.start, window.end)
    if inside is None:
        return 2
    if not inside:
        return 3
    return 0 if dating.where == UNIT else 1


def _clause_mentions(text: str, measure: Measure, measures: set[str]) -> bool:
    """True when the clause holding the figure names the asked measure (or none was asked).

    "… per seat is 12.7 kg per seat per hour, based on 180 seats": for "fuel burn", 12.7 kg
    qualifies and 180 seats does not.
    """
    if not measures:
        return True
    start = measure.quantity.span[0]
    left = max((m.end() for m in _CLAUSE_SPLIT.finditer(text, 0, start)), default=0)
    right = next((m.start() for m in _CLAUSE_SPLIT.finditer(text, measure.quantity.span[1])), len(text))
    return bool(measures & set(tokenize(text[left:right])))


def _similarity(ca: Candidate, cb: Candidate, a: Side, b: Side) -> float:
    """Term overlap (Jaccard) of two sentences, side names and numbers left out."""
    drop = a.tokens | b.tokens
    ta = {t for t in ca.tokens if t not in drop and not t.replace(".", "").isdigit()}
    tb = {t for t in cb.tokens if t not in drop and not t.replace(".", "").isdigit()}
    return len(ta & tb) / len(ta | tb) if ta | tb else 0.0
