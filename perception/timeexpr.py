"""Time expressions in English and Chinese, resolved against `now` into one inclusive window.

Conventions (docs/PERCEPTION.md says them to users):
- "last week" / "最近一周" = the 7 days before `now` plus `now`: [now - 7 days, now].
- "last/past N units", "最近N天" = [now - N units, now]. "last month" / "上个月" = the previous
  calendar month; "this year" / "今年" = 1 January to `now`.
- A date without a year takes the year of the nearest date in the query that has one, else the
  most recent such period that has started by `now` ("in October" on 2025-07-10 = October 2024).
- "before X" ends the day before X starts; "after X" starts the day after X ends; "since X"
  starts when X starts; "until X" ends when X ends.
- Several phrases combine into the smallest window covering all of them (an open side wins),
  except that "after X ... before Y" alone intersects.
- A phrase no rule understood leaves the window open and is reported, never raised.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from core.text import has_han
from perception.config import PerceptionConfig, RelativeRule
from perception.lexicon import PhraseLexicon, phrase_regex, tokenize
from perception.types import TimeWindow

_CN_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_CN_NUM = "[零〇一二两三四五六七八九十百]+"
_QUARTER_TOKENS = frozenset({"q1", "q2", "q3", "q4", "1q", "2q", "3q", "4q", "quarter", "quarters"})
_HALF_TOKENS = frozenset({"h1", "h2", "half"})
_ROLLING_TOKENS = frozenset({"last", "past", "previous", "prior", "recent"})
_NOT_YEAR_AFTER = (r"\s*(?:%|percent|per cent|dollars?|usd|euros?|yuan|people|employees|units|"
                   r"km|kg|miles|times|words|pages|items|元|人|个|件|次|%)")


@dataclass(frozen=True)
class TimePhrase:
    """One understood time phrase.

    Args:
        start, end: character span in the query.
        text: the phrase.
        lo, hi: the inclusive bounds it means (None = open).
        rule: the rule that read it ("time.month_day_year", "time.relative", ...).
    """

    start: int
    end: int
    text: str
    lo: date | None
    hi: date | None
    rule: str


@dataclass(frozen=True)
class TimeResult:
    """What the time rules found in a query.

    Args:
        window: the combined window, or None when no phrase was understood.
        phrases: the understood phrases in query order.
        not_understood: (start, end, text) of time-looking phrases no rule could read.
    """

    window: TimeWindow | None
    phrases: tuple[TimePhrase, ...]
    not_understood: tuple[tuple[int, int, str], ...]


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


# --- calendar arithmetic ------------------------------------------------------------------------

def add_months(day: date, months: int) -> date:
    """`day` shifted by whole months, the day of month clamped (31 March - 1 month = 28/29 Feb)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def month_end(year: int, month: int) -> date:
    """The last day of a month."""
    return date(year, month, calendar.monthrange(year, month)[1])


def period_bounds(day: date, unit: str) -> tuple[date, date]:
    """The calendar period (day, Monday-Sunday week, month, quarter, year) containing `day`."""
    if unit == "day":
        return day, day
    if unit == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=6)
    if unit == "month":
        return day.replace(day=1), month_end(day.year, day.month)
    if unit == "quarter":
        first = 3 * ((day.month - 1) // 3) + 1
        return date(day.year, first, 1), month_end(day.year, first + 2)
    return date(day.year, 1, 1), date(day.year, 12, 31)


def shift(day: date, unit: str, amount: int) -> date:
    """`day` moved by `amount` units (negative = back)."""
    if unit == "day":
        return day + timedelta(days=amount)
    if unit == "week":
        return day + timedelta(days=7 * amount)
    return add_months(day, amount * {"month": 1, "quarter": 3, "year": 12}[unit])


def resolve_relative(rule: RelativeRule, now: date) -> tuple[date, date]:
    """The window a fixed relative phrase means for `now` (see the module conventions)."""
    if rule.kind == "rolling":
        return shift(now, rule.unit, -rule.amount), now
    if rule.kind == "to_date":
        return period_bounds(now, rule.unit)[0], now
    return period_bounds(shift(now, rule.unit, rule.offset), rule.unit)


def cn_number(text: str) -> int | None:
    """A number written with digits or Chinese numerals (十二 -> 12, 二〇二三 -> 2023)."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if not text:
        return None
    if "十" not in text and "百" not in text:
        value = 0
        for ch in text:
            d = _CN_DIGITS.get(ch)
            if d is None:
                return None
            value = value * 10 + d
        return value
    total, current = 0, 0
    for ch in text:
        if ch in _CN_DIGITS:
            current = _CN_DIGITS[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
        else:
            return None
    return total + current


# --- the recogniser ---------------------------------------------------------------------------

def _alt(words) -> str:
    """A regex alternation of literal words, longest first."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


class TimeRules:
    """Time-expression rules compiled from the config; `find(text, now)` does the work."""

    def __init__(self, cfg: PerceptionConfig) -> None:
        """Compile every pattern once from the config vocabulary."""
        tc = cfg.time
        self._cfg = tc
        mon = _alt(tc.months)
        ords = _alt(tc.ordinals)
        nums = _alt(tc.number_words)
        en_units = [w for w in tc.units if w.isascii()]
        zh_units = [w for w in tc.units if not w.isascii()]
        year = r"(?P<y>(?:19|20)\d{2})"
        flags = re.IGNORECASE
        p = []  # (rule, gate, regex): a pattern only runs when its gate opens (see _gates)
        p.append(("time.iso_date", "sep_digit", r"(?<![\d.])(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
                  r"(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\d.])"))
        p.append(("time.ymd", "sep_digit", r"(?<![\d.])(?P<y>\d{4})[/.](?P<m>\d{1,2})[/.](?P<d>\d{1,2})(?![\d.])"))
        p.append(("time.numeric_date", "sep_digit", r"(?<![\d/.])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<y>\d{4})(?![\d/])"))
        p.append(("time.month_day_year", "month", rf"\b(?P<mon>{mon})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b"
                  rf"(?:,?\s+(?P<y>\d{{4}})\b)?(?!\s*(?:%|:|\d))"))
        p.append(("time.day_month_year", "month", rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{mon})\b\.?"
                  rf"(?:,?\s+(?P<y>\d{{4}})\b)?"))
        p.append(("time.month_year", "month", rf"\b(?P<mon>{mon})\.?,?\s+(?:of\s+)?{year}\b"))
        p.append(("time.year_month", "sep_digit", r"(?<![\d\-./])(?P<y>\d{4})-(?P<m>\d{2})(?![\d\-./])"))
        p.append(("time.quarter", "quarter", rf"\b(?:Q(?P<q>[1-4])|(?P<q2>[1-4])Q)"
                  rf"(?:\s*(?:of\s+)?(?:FY\s*)?{year})?\b"))
        p.append(("time.quarter", "quarter", rf"\b{year}\s*-?\s*Q(?P<q>[1-4])\b"))
        p.append(("time.quarter", "quarter", rf"\b(?:the\s+)?(?P<qord>{ords})\s+quarter\b"
                  rf"(?:\s+(?:of\s+)?(?:FY\s*)?{year}\b)?"))
        p.append(("time.half", "half", rf"\b(?:H(?P<h>[12])|(?:the\s+)?(?P<hord>first|second|1st|2nd)\s+half)"
                  rf"(?:\s+(?:of\s+)?{year})?\b"))
        p.append(("time.decade", "decade", r"\b(?:the\s+)?(?P<dec>(?:19|20)\d)0s\b"))
        p.append(("time.year", "year4", rf"(?<![A-Za-z0-9_$#£€.,/]){year}(?![\d%]|,\d|\.\d|{_NOT_YEAR_AFTER})"))
        p.append(("time.month", "month", rf"\b(?:in|during|since|until|till|before|after|from|between|by|through|"
                  rf"to|and|early|mid|late|of|or)\s+(?:early\s+|mid-?\s*|late\s+)?(?P<body>(?P<mon>{mon}))\b"
                  rf"(?!\s*\d)(?!\.\d)"))
        p.append(("time.rolling", "rolling", rf"\b(?:(?:in|over|within|during)\s+)?(?:the\s+)?"
                  rf"(?:last|past|previous|prior|recent)\s+(?P<n>\d{{1,3}}|{nums})\s+(?P<unit>{_alt(en_units)})\b"))
        p.append(("time.ago", "ago", rf"\b(?P<n>\d{{1,3}}|{nums})\s+(?P<unit>{_alt(en_units)})\s+ago\b"))
        # Chinese
        cy = r"(?P<y>\d{4}|[〇零一二三四五六七八九]{4})\s*年"
        cm = r"(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九])"
        cd = r"(?P<d>\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
        p.append(("time.zh_date", "han", rf"{cy}\s*{cm}\s*月\s*{cd}\s*[日号]"))
        p.append(("time.zh_month", "han", rf"{cy}\s*{cm}\s*月(?:份)?"))
        p.append(("time.zh_quarter", "han", rf"{cy}\s*(?:度\s*)?(?:的\s*)?(?:第\s*)?(?P<q>[1-4一二三四])\s*季度"))
        p.append(("time.zh_quarter", "han", r"(?P<y>\d{4})\s*年?\s*(?:度\s*)?Q(?P<q>[1-4])"))
        p.append(("time.zh_half", "han", rf"{cy}\s*(?:度\s*)?(?:的\s*)?(?P<h>[上下])半年"))
        p.append(("time.zh_year", "han", rf"{cy}(?:度)?"))
        p.append(("time.zh_quarter", "han", r"(?<![个这上本当])(?:第\s*)?(?P<q>[1-4一二三四])\s*季度"))
        p.append(("time.zh_half", "han", r"(?<![今去前明])(?P<h>[上下])半年"))
        p.append(("time.zh_date", "han", rf"{cm}\s*月\s*{cd}\s*[日号]"))
        p.append(("time.zh_month", "han", r"(?<![\d个上本这当一二三四五六七八九十两])"
                  r"(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月份?(?!\s*[\d一二三四五六七八九十]+\s*[日号])"))
        p.append(("time.rolling", "han", rf"(?:最近|过去|近|前)\s*(?P<n>\d{{1,3}}|{_CN_NUM})"
                  rf"\s*(?P<unit>{_alt(zh_units)})(?:来|以来|内|之内)?"))
        p.append(("time.ago", "han", rf"(?<!\d)(?P<n>\d{{1,3}}|{_CN_NUM})\s*(?P<unit>{_alt(zh_units)})"
                  rf"\s*(?:前|之前|以前)"))
        self._patterns = [(rule, gate, re.compile(rx, flags)) for rule, gate, rx in p]
        self._month_words = frozenset(tc.months)
        self._sep_digit = re.compile(r"\d[-/.]\d")
        self._relative_rules = tc.relative
        self._relative = PhraseLexicon(
            (phrase, str(i), "time.relative") for i, r in enumerate(tc.relative) for phrase in r.phrases)
        self._cues = PhraseLexicon(
            [(c, "cue", "time.cue") for c in tc.cues]
            + [(m, "cue", "time.cue") for m in tc.months if len(m) >= 4 and m not in ("may", "march")]
            + [(u, "cue", "time.cue") for u in en_units]
            + [(u, "cue", "time.cue") for u in zh_units if len(u) >= 2])
        mods = tc.modifiers
        self._prefix = re.compile(
            r"(?:^|(?<![A-Za-z]))(?P<mod>" + "|".join(
                f"(?P<{kind}>{'|'.join(phrase_regex(w) for w in sorted(mods.get(kind, ()), key=len, reverse=True))})"
                for kind in ("before", "after", "since", "until") if mods.get(kind))
            + r")\s*(?:(?:on|in|the|of|at)\s+){0,2}$", flags) if any(
                mods.get(k) for k in ("before", "after", "since", "until")) else None
        post = {k[:-5]: mods.get(k, ()) for k in ("before_post", "after_post", "since_post")}
        self._postfix = re.compile(
            r"\s*(?:" + "|".join(f"(?P<{kind}>{_alt(words)})" for kind, words in post.items() if words)
            + ")", flags) if any(post.values()) else None
        parts = tc.parts
        self._part_prefix = re.compile(
            r"(?:^|(?<![A-Za-z]))(?:" + "|".join(
                f"(?P<{kind}>{'|'.join(phrase_regex(w) for w in words if w.isascii())})"
                for kind, words in parts.items() if any(w.isascii() for w in words))
            + r")[\s\-]*(?:of\s+|in\s+)?$", flags) if parts else None
        zh_parts = {kind: [w for w in words if not w.isascii()] for kind, words in parts.items()}
        self._part_postfix = re.compile(
            "(?:" + "|".join(f"(?P<{kind}>{_alt(words)})" for kind, words in zh_parts.items() if words)
            + ")") if any(zh_parts.values()) else None
        self._range_en = re.compile(r"^\s*(?:-|–|—|to|through|thru|until|till|and)\s*$", flags)
        self._range_zh = re.compile(r"^\s*(?:至|到|-|~|～|—|–)\s*$")
        self._between = re.compile(r"(?:between|from|从|自)\s*$", flags)

    # --- finding atoms ---------------------------------------------------------------------

    def _number(self, word: str) -> int | None:
        """A count from digits, an English number word or Chinese numerals."""
        key = " ".join(word.lower().split())
        if key in self._cfg.number_words:
            return self._cfg.number_words[key]
        return cn_number(key)

    def _atom(self, rule: str, m: re.Match, now: date) -> _Atom | None:
        """Turn one regex match into an atom (None when the numbers make no date)."""
        g = m.groupdict()
        start = m.start("body") if g.get("body") is not None else m.start()
        kw: dict = {}
        if g.get("y"):
            kw["year"] = cn_number(g["y"]) if not g["y"].isdigit() else int(g["y"])
        if rule in ("time.rolling", "time.ago"):
            n = self._number(g["n"])
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
                lo, hi = _part(lo, hi, kind)
                start, rule = m.start(kind), f"+{kind}"
        if self._part_postfix is not None:
            m = self._part_postfix.match(text, end)
            if m:
                kind = next(k for k, v in m.groupdict().items() if v)
                lo, hi = _part(lo, hi, kind)
                end, rule = m.end(), f"+{kind}"
        out_lo: date | None = lo
        out_hi: date | None = hi
        if self._prefix is not None:
            m = self._prefix.search(text, max(0, start - 30), start)
            if m:
                kind = next(k for k in ("before", "after", "since", "until") if m.group(k))
                out_lo, out_hi = _bound(kind, lo, hi)
                return m.start("mod"), end, out_lo, out_hi, rule + f"+{kind}"
        if self._postfix is not None:
            m = self._postfix.match(text, end)
            if m:
                kind = next(k for k, v in m.groupdict().items() if v)
                out_lo, out_hi = _bound(kind, lo, hi)
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


def _part(lo: date, hi: date, kind: str) -> tuple[date, date]:
    """The first, middle or last third of [lo, hi]."""
    total = (hi - lo).days + 1
    b1, b2 = total // 3, 2 * total // 3
    if total < 3:
        return lo, hi
    if kind == "early":
        return lo, lo + timedelta(days=b1 - 1)
    if kind == "mid":
        return lo + timedelta(days=b1), lo + timedelta(days=b2 - 1)
    return lo + timedelta(days=b2), hi


def _bound(kind: str, lo: date, hi: date) -> tuple[date | None, date | None]:
    """Open one side of [lo, hi] for before / after / since / until."""
    if kind == "before":
        return None, lo - timedelta(days=1)
    if kind == "after":
        return hi + timedelta(days=1), None
    if kind == "since":
        return lo, None
    return None, hi


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

