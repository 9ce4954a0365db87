"""The regular expressions of the time rules, compiled once from the config's time vocabulary.

`build_patterns(time_config)` returns `TimePatterns`: every date-phrase pattern with the rule
name it reports and the gate (a family of cheap token checks, opened by recognise.py) that must
be open before it runs, plus the context patterns read around a phrase: before/after/since/until
words, early/mid/late words and the words that join two dates into a range. Every pattern with Latin words
ignores case. Nothing here matches a query.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from perception.config import TimeConfig
from perception.lexicon import phrase_regex
from perception.timeexpr.numerals import CN_NUMERAL

# what a four-digit number may not be followed by to be read as a year ("2024 employees")
_NOT_YEAR_AFTER = (r"\s*(?:%|percent|per cent|dollars?|usd|euros?|yuan|people|employees|units|"
                   r"km|kg|miles|times|words|pages|items|元|人|个|件|次|%)")


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of literal words, longest first."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


@dataclass(frozen=True)
class TimePatterns:
    """The compiled time patterns.

    Attributes:
        dates: (rule, gate, regex) of each date-like phrase, in the order they are tried.
        sep_digit: a digit, a separator and a digit (opens the "sep_digit" gate).
        prefix: "before / after / since / until" words ending just before a phrase (None when
            the config has none).
        postfix: the same bounds written after a phrase ("2023年之后").
        part_prefix: "early / mid / late" words just before a phrase (Latin words).
        part_postfix: the same written after a phrase ("2023年底"; Chinese words).
        range_en, range_zh: the whole gap between two dates that makes them one range.
        between: "between" / "from" / "从" just before the first date of a range.
    """

    dates: tuple[tuple[str, str, re.Pattern], ...]
    sep_digit: re.Pattern
    prefix: re.Pattern | None
    postfix: re.Pattern | None
    part_prefix: re.Pattern | None
    part_postfix: re.Pattern | None
    range_en: re.Pattern
    range_zh: re.Pattern
    between: re.Pattern


def build_patterns(tc: TimeConfig) -> TimePatterns:
    """Compile every time pattern from the config vocabulary (months, ordinals, number words,
    units, modifiers, parts)."""
    mon = alternation(tc.months)
    ords = alternation(tc.ordinals)
    nums = alternation(tc.number_words)
    en_units = [w for w in tc.units if w.isascii()]
    zh_units = [w for w in tc.units if not w.isascii()]
    year = r"(?P<y>(?:19|20)\d{2})"
    flags = re.IGNORECASE
    p = []  # (rule, gate, regex): a pattern only runs when its gate opens (recognise.py)
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
              rf"(?:last|past|previous|prior|recent)\s+(?P<n>\d{{1,3}}|{nums})\s+(?P<unit>{alternation(en_units)})\b"))
    p.append(("time.ago", "ago", rf"\b(?P<n>\d{{1,3}}|{nums})\s+(?P<unit>{alternation(en_units)})\s+ago\b"))
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
    p.append(("time.rolling", "han", rf"(?:最近|过去|近|前)\s*(?P<n>\d{{1,3}}|{CN_NUMERAL})"
              rf"\s*(?P<unit>{alternation(zh_units)})(?:来|以来|内|之内)?"))
    p.append(("time.ago", "han", rf"(?<!\d)(?P<n>\d{{1,3}}|{CN_NUMERAL})\s*(?P<unit>{alternation(zh_units)})"
              rf"\s*(?:前|之前|以前)"))
    mods = tc.modifiers
    prefix = re.compile(
        r"(?:^|(?<![A-Za-z]))(?P<mod>" + "|".join(
            f"(?P<{kind}>{'|'.join(phrase_regex(w) for w in sorted(mods.get(kind, ()), key=len, reverse=True))})"
            for kind in ("before", "after", "since", "until") if mods.get(kind))
        + r")\s*(?:(?:on|in|the|of|at)\s+){0,2}$", flags) if any(
            mods.get(k) for k in ("before", "after", "since", "until")) else None
    post = {k[:-5]: mods.get(k, ()) for k in ("before_post", "after_post", "since_post")}
    postfix = re.compile(
        r"\s*(?:" + "|".join(f"(?P<{kind}>{alternation(words)})" for kind, words in post.items() if words)
        + ")", flags) if any(post.values()) else None
    parts = tc.parts
    part_prefix = re.compile(
        r"(?:^|(?<![A-Za-z]))(?:" + "|".join(
            f"(?P<{kind}>{'|'.join(phrase_regex(w) for w in words if w.isascii())})"
            for kind, words in parts.items() if any(w.isascii() for w in words))
        + r")[\s\-]*(?:of\s+|in\s+)?$", flags) if parts else None
    zh_parts = {kind: [w for w in words if not w.isascii()] for kind, words in parts.items()}
    part_postfix = re.compile(
        "(?:" + "|".join(f"(?P<{kind}>{alternation(words)})" for kind, words in zh_parts.items() if words)
        + ")") if any(zh_parts.values()) else None
    return TimePatterns(
        dates=tuple((rule, gate, re.compile(rx, flags)) for rule, gate, rx in p),
        sep_digit=re.compile(r"\d[-/.]\d"),
        prefix=prefix, postfix=postfix, part_prefix=part_prefix, part_postfix=part_postfix,
        range_en=re.compile(r"^\s*(?:-|–|—|to|through|thru|until|till|and)\s*$", flags),
        range_zh=re.compile(r"^\s*(?:至|到|-|~|～|—|–)\s*$"),
        between=re.compile(r"(?:between|from|从|自)\s*$", flags))
