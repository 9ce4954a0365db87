"""Recognising time phrases in a query and combining them into one window.

`TimeRules(cfg).find(text, now)` finds every date-like phrase (patterns.py) and fixed relative
phrase, infers missing years, applies part-of and bound words ("early 2024", "before May"),
joins ranges ("March to May 2024"), and combines the phrases into one window as the package
conventions say (perception/timeexpr/__init__.py). Time-looking words no rule understood are
reported in `not_understood`; `find` never raises on any input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from core.text import has_han
from perception.config import PerceptionConfig
from perception.lexicon import PhraseLexicon, tokenize
from perception.timeexpr.calendar import month_end, open_side, part_of, period_bounds, resolve_relative, shift
from perception.timeexpr.numerals import cn_number, count
from perception.timeexpr.patterns import build_patterns
from perception.timeexpr.types import TimePhrase, TimeResult
from perception.types import TimeWindow

# the tokens that open the gates of pattern families (see TimeRules._gates)
_QUARTER_TOKENS = frozenset({"q1", "q2", "q3", "q4", "1q", "2q", "3q", "4q", "quarter", "quarters"})
_HALF_TOKENS = frozenset({"h1", "h2", "half"})
_ROLLING_TOKENS = frozenset({"last", "past", "previous", "prior", "recent"})


@dataclass(frozen=True)
class _Atom:
    """A date-like phrase before year inference: the parts it states, or a fixed window."""

    start: int
    end: int
    rule: str
    year: int | None = None
    month: int | None = None
    day: int | None = None
    quarter: int | None = None
    half: int | None = None
    decade: int | None = None
    window: tuple[date, date] | None = None


# --- the recogniser ---------------------------------------------------------------------------

class TimeRules:
    """Time-expression rules compiled from the config; `find(text, now)` does the work."""

    def __init__(self, cfg: PerceptionConfig) -> None:
        """Compile every pattern and phrase list once from the config vocabulary."""
        tc = cfg.time
        self._cfg = tc
        patterns = build_patterns(tc)
        self._patterns = patterns.dates
        self._sep_digit = patterns.sep_digit
        self._prefix = patterns.prefix
        self._postfix = patterns.postfix
        self._part_prefix = patterns.part_prefix
        self._part_postfix = patterns.part_postfix
        self._range_en = patterns.range_en
        self._range_zh = patterns.range_zh
        self._between = patterns.between
        self._month_words = frozenset(tc.months)
        self._relative_rules = tc.relative
        self._relative = PhraseLexicon(
            (phrase, str(i), "time.relative") for i, r in enumerate(tc.relative) for phrase in r.phrases)
        self._cues = PhraseLexicon(
            [(c, "cue", "time.cue") for c in tc.cues]
            + [(m, "cue", "time.cue") for m in tc.months if len(m) >= 4 and m not in ("may", "march")]
            + [(u, "cue", "time.cue") for u in tc.units if u.isascii()]
            + [(u, "cue", "time.cue") for u in tc.units if not u.isascii() and len(u) >= 2])

    # --- finding atoms ---------------------------------------------------------------------

    def _atom(self, rule: str, m: re.Match, now: date) -> _Atom | None:
        """Turn one regex match into an atom (None when the numbers make no date)."""
        g = m.groupdict()
        start = m.start("body") if g.get("body") is not None else m.start()
        kw: dict = {}
        if g.get("y"):
            kw["year"] = cn_number(g["y"]) if not g["y"].isdigit() else int(g["y"])
        if rule in ("time.rolling", "time.ago"):
            n = count(g["n"], self._cfg.number_words)
            unit = self._cfg.units.get(g["unit"].lower())
            if n is None or unit is None:
                return None
            if rule == "time.rolling":
                return _Atom(start, m.end(), rule, window=(shift(now, unit, -n), now))
            return _Atom(start, m.end(), rule, window=period_bounds(shift(now, unit, -n), unit))
        if g.get("mon"):
            kw["month"] = self._cfg.months.get(g["mon"].lower().rstrip("."))
        if g.get("m"):
            kw["month"] = cn_number(g["m"])
        if g.get("d"):
            kw["day"] = cn_number(g["d"])
        if g.get("a"):
            a, b = int(g["a"]), int(g["b"])
            kw["month"], kw["day"] = (a, b) if self._cfg.numeric_date_order == "mdy" else (b, a)
        q = g.get("q") or g.get("q2")
        if q:
            kw["quarter"] = cn_number(q)
        if g.get("qord"):
            kw["quarter"] = self._cfg.ordinals.get(g["qord"].lower())
            if kw["quarter"] not in (1, 2, 3, 4):
                return None
        if g.get("h"):
            kw["half"] = {"上": 1, "下": 2}.get(g["h"], None) or int(g["h"])
        if g.get("hord"):
            kw["half"] = 1 if g["hord"].lower() in ("first", "1st") else 2
        if g.get("dec"):
            kw["decade"] = int(g["dec"]) * 10
        return _Atom(start, m.end(), rule, **kw)

    def _gates(self, text: str) -> tuple[set[str], list[tuple[int, int]]]:
        """Which pattern families can match at all, and the windows around month names.

        Cheap token checks spare most regexes on most queries (the time pass must stay in the
        tens of microseconds); month patterns only run near a month name.
        """
        spans, tokens = tokenize(text)
        present = set(tokens)
        gates = set()
        months = [spans[i] for i, t in enumerate(tokens) if t in self._month_words]
        if months:
            gates.add("month")
        if self._sep_digit.search(text):
            gates.add("sep_digit")
        if present & _QUARTER_TOKENS:
            gates.add("quarter")
        if present & _HALF_TOKENS:
            gates.add("half")
        if "0s" in text:
            gates.add("decade")
        if any(len(t) == 4 and t[:2] in ("19", "20") and t.isdigit() for t in tokens):
            gates.add("year4")
        if present & _ROLLING_TOKENS:
            gates.add("rolling")
        if "ago" in present:
            gates.add("ago")
        if has_han(text):
            gates.add("han")
        n = len(text)
        windows = _merge_windows([(max(0, s - 25), min(n, e + 40)) for s, e in months])
        return gates, windows

    def _atoms(self, text: str, now: date) -> list[_Atom]:
        """All non-overlapping atoms in `text`, longest first at each place, in text order."""
        found: list[_Atom] = []
        gates, windows = self._gates(text)
        for rule, gate, regex in self._patterns:
            if gate not in gates:
                continue
            ranges = windows if gate == "month" else [(0, len(text))]
            seen = set()
            for lo, hi in ranges:
                for m in regex.finditer(text, lo, hi):
                    if m.span() in seen:
                        continue
                    seen.add(m.span())
                    atom = self._atom(rule, m, now)
                    if atom is not None and atom.end > atom.start:
                        found.append(atom)
        for hit in self._relative.finditer(text):
            r = self._relative_rules[int(hit.value)]
            found.append(_Atom(hit.start, hit.end, "time.relative", window=resolve_relative(r, now)))
        found.sort(key=lambda a: (-(a.end - a.start), a.start))
        chosen: list[_Atom] = []
        for atom in found:
            if all(atom.end <= c.start or atom.start >= c.end for c in chosen):
                chosen.append(atom)
        return sorted(chosen, key=lambda a: a.start)

    # --- resolving -----------------------------------------------------------------------

    @staticmethod
    def _bounds(atom: _Atom, year: int) -> tuple[date, date] | None:
        """The inclusive window an atom means in `year` (None if it names no real date)."""
        try:
            if atom.decade is not None:
                return date(atom.decade, 1, 1), date(atom.decade + 9, 12, 31)
            if atom.quarter is not None:
                first = 3 * atom.quarter - 2
                return date(year, first, 1), month_end(year, first + 2)
            if atom.half is not None:
                if atom.half == 1:
                    return date(year, 1, 1), date(year, 6, 30)
                return date(year, 7, 1), date(year, 12, 31)
            if atom.month is not None and atom.day is not None:
                d = date(year, atom.month, atom.day)
                return d, d
            if atom.month is not None:
                return date(year, atom.month, 1), month_end(year, atom.month)
            return date(year, 1, 1), date(year, 12, 31)
        except (ValueError, TypeError, OverflowError):
            return None

    def _needs_year(self, atom: _Atom) -> bool:
        """True for an atom that states no year (and is not a decade or fixed window)."""
        return atom.window is None and atom.decade is None and atom.year is None

    def _resolve(self, atoms: list[_Atom], now: date) -> list[tuple[_Atom, tuple[date, date] | None]]:
        """Bounds for every atom, inferring missing years from neighbours or from `now`."""
        out: list[tuple[_Atom, tuple[date, date] | None]] = []
        for i, atom in enumerate(atoms):
            if atom.window is not None:
                out.append((atom, atom.window))
                continue
            if not self._needs_year(atom):
                out.append((atom, self._bounds(atom, atom.year or 0)))
                continue
            donors = sorted((abs(j - i), j, a.year) for j, a in enumerate(atoms)
                            if a.year is not None and a.window is None)
            if donors:
                _distance, j, year = donors[0]
                donor = atoms[j]
                bounds = self._bounds(atom, year)
                if bounds and j > i and atom.month and donor.month and atom.month > donor.month:
                    bounds = self._bounds(atom, year - 1)   # "November to February 2024"
            else:
                bounds = self._bounds(atom, now.year)
                if bounds and bounds[0] > now:
                    bounds = self._bounds(atom, now.year - 1)
            out.append((atom, bounds))
        return out

    def _modify(self, text: str, start: int, end: int, lo: date,
                hi: date) -> tuple[int, int, date | None, date | None, str]:
        """Apply part-of ("early 2024", "2023年底") and bound ("before", "之后") words around a phrase."""
        rule = ""
        if self._part_prefix is not None:
            base = max(0, start - 20)
            m = self._part_prefix.search(text, base, start)
            if m:
                kind = next(k for k, v in m.groupdict().items() if v)
                lo, hi = part_of(lo, hi, kind)
                start, rule = m.start(kind), f"+{kind}"
        if self._part_postfix is not None:
            m = self._part_postfix.match(text, end)
            if m:
                kind = next(k for k, v in m.groupdict().items() if v)
                lo, hi = part_of(lo, hi, kind)
                end, rule = m.end(), f"+{kind}"
        out_lo: date | None = lo
        out_hi: date | None = hi
        if self._prefix is not None:
            m = self._prefix.search(text, max(0, start - 30), start)
            if m:
                kind = next(k for k in ("before", "after", "since", "until") if m.group(k))
                out_lo, out_hi = open_side(kind, lo, hi)
                return m.start("mod"), end, out_lo, out_hi, rule + f"+{kind}"
        if self._postfix is not None:
            m = self._postfix.match(text, end)
            if m:
                kind = next(k for k, v in m.groupdict().items() if v)
                out_lo, out_hi = open_side(kind, lo, hi)
                return start, m.end(), out_lo, out_hi, rule + f"+{kind}"
        return start, end, out_lo, out_hi, rule

    def find(self, text: str, now: date, extra_cues: tuple[tuple[int, int], ...] = (),
             protected: tuple[tuple[int, int], ...] = ()) -> TimeResult:
        """Every time phrase in `text`, resolved against `now`, and the combined window.

        Args:
            text: the query.
            now: the reference date for relative phrases and missing years.
            extra_cues: more spans that look like time (e.g. NER DATE entities) to report
                when no rule understood them.
            protected: spans that are not time even if they look like it (source names such
                as "Business Today", glossary terms).

        Returns:
            A TimeResult; never raises on any input.
        """
        atoms = [a for a in self._atoms(text, now)
                 if not any(a.start < e and s < a.end for s, e in protected)]
        resolved = self._resolve(atoms, now)
        phrases: list[TimePhrase] = []
        bad: list[tuple[int, int, str]] = []
        i = 0
        while i < len(resolved):
            atom, bounds = resolved[i]
            if bounds is None:
                bad.append((atom.start, atom.end, text[atom.start:atom.end]))
                i += 1
                continue
            # ranges: "between March and May 2024", "2023年3月至5月", "from 2021 to 2023"
            nxt, nb = resolved[i + 1] if i + 1 < len(resolved) else (atom, None)
            if nb is not None and self._is_range(text, atom, nxt):
                first, last = min(bounds[0], nb[0]), max(bounds[1], nb[1])
                m = self._between.search(text, max(0, atom.start - 12), atom.start)
                start = m.start() if m else atom.start
                phrases.append(TimePhrase(start, nxt.end, text[start:nxt.end], first, last, "time.range"))
                i += 2
                continue
            start, end, lo, hi, extra = self._modify(text, atom.start, atom.end, *bounds)
            phrases.append(TimePhrase(start, end, text[start:end], lo, hi, atom.rule + extra))
            i += 1
        covered = [(p.start, p.end) for p in phrases] + [(s, e) for s, e, _ in bad] + list(protected)
        for hit in list(self._cues.finditer(text)) + [_Span(s, e) for s, e in extra_cues]:
            if any(hit.start < e and s < hit.end for s, e in covered):
                continue
            s = _widen_left(text, hit.start)
            bad.append((s, hit.end, text[s:hit.end]))
            covered.append((s, hit.end))
        bad.sort()
        return TimeResult(_combine(phrases), tuple(phrases), tuple(bad))

    def _is_range(self, text: str, a: _Atom, b: _Atom) -> bool:
        """True when the text between two atoms joins them as a range."""
        gap = text[a.end:b.start]
        if len(gap) > 12:
            return False
        if self._range_zh.match(gap):
            return True
        if not self._range_en.match(gap):
            return False
        if gap.strip().lower() == "and":
            return self._between.search(text, max(0, a.start - 12), a.start) is not None
        return True


def _merge_windows(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping (start, end) windows merged, in order."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(windows):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


@dataclass(frozen=True)
class _Span:
    """A bare span, shaped like a lexicon Match for the cue loop."""

    start: int
    end: int


def _widen_left(text: str, start: int) -> int:
    """Move a cue's start back over up to two preceding Latin words ("the same date")."""
    m = re.search(r"(?:[A-Za-z]+[ \-]){1,2}$", text[max(0, start - 30):start])
    return start - len(m.group(0)) if m else start


def _combine(phrases: list[TimePhrase]) -> TimeWindow | None:
    """One window for all phrases: the hull (an open side wins), or the intersection when the
    query only states open-ended bounds on both sides ("after X and before Y")."""
    if not phrases:
        return None
    text = "; ".join(p.text for p in phrases)
    closed = [p for p in phrases if p.lo is not None and p.hi is not None]
    lows = [p.lo for p in phrases if p.lo is not None and p.hi is None]
    highs = [p.hi for p in phrases if p.lo is None and p.hi is not None]
    if not closed and lows and highs:
        after, before = max(lows), min(highs)
        if after <= before:
            return TimeWindow(after, before, text)
    starts = [p.lo for p in phrases if p.lo is not None]
    ends = [p.hi for p in phrases if p.hi is not None]
    lo = min(starts) if len(starts) == len(phrases) else None   # an open side wins
    hi = max(ends) if len(ends) == len(phrases) else None
    return TimeWindow(lo, hi, text)

