"""Phrase lexicons matched on tokens: longest match wins, Chinese characters are tokens of their own.

A text is split once into tokens: runs of letters and digits ("A320", "TechCrunch"), single
Han characters, and single punctuation marks. A phrase is a sequence of tokens, so Latin
phrases only match whole words ("open" never matches inside "OpenAI") while Chinese phrases
match anywhere ("发票" inside "发票金额"), and spacing does not matter ("2025 年" = "2025年").
Matching is a dictionary lookup per token, so hundreds of phrases cost almost nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from core.text import HAN_RANGES, has_han

_TOKEN = re.compile(f"[{HAN_RANGES}]|[^\\W_{HAN_RANGES}]+|\\S")


def fold(text: str) -> str:
    """The lookup key of a phrase or a match: lower case, runs of whitespace as one space."""
    return " ".join(text.lower().split())


@functools.lru_cache(maxsize=256)
def tokenize(text: str) -> tuple[tuple[tuple[int, int], ...], tuple[str, ...]]:
    """Token spans and lower-cased token texts of `text` (cached: every lexicon shares them).

    Returns:
        (spans, lowered): spans[i] = (start, end) of token i, lowered[i] its lower-case text.
    """
    spans, lowered = [], []
    for m in _TOKEN.finditer(text):
        spans.append((m.start(), m.end()))
        lowered.append(m.group(0).lower())
    return tuple(spans), tuple(lowered)


def phrase_tokens(phrase: str) -> tuple[str, ...]:
    """The lower-case token sequence of a phrase."""
    return tokenize(phrase)[1]


def plural_variants(phrase: str) -> list[str]:
    """English plural forms of a phrase's last word (ticket -> tickets, policy -> policies).

    Args:
        phrase: a Latin-script phrase.

    Returns:
        The extra variants (possibly none); the phrase itself is not included.
    """
    if has_han(phrase) or not phrase[-1:].isalpha() or phrase.endswith("s"):
        return []
    if phrase.endswith("y") and len(phrase) > 2 and phrase[-2] not in "aeiou":
        return [phrase[:-1] + "ies"]
    if phrase.endswith(("x", "ch", "sh")):
        return [phrase + "es"]
    return [phrase + "s"]


def phrase_regex(phrase: str) -> str:
    """Regex source for one phrase: escaped, spaces as \\s+, word boundaries on Latin ends.

    Used by the few rules that need a phrase inside a larger regular expression.
    """
    body = r"\s+".join(re.escape(part) for part in phrase.split())
    if phrase[:1].isalnum() and not has_han(phrase[:1]):
        body = r"(?<![A-Za-z0-9_])" + body
    if phrase[-1:].isalnum() and not has_han(phrase[-1:]):
        body = body + r"(?![A-Za-z0-9_])"
    return body


@dataclass(frozen=True)
class Match:
    """One lexicon hit.

    Args:
        start: character offset of the first character.
        end: offset one past the last character.
        text: the matched text.
        value: what the lexicon maps the phrase to (a normalised value or term).
        rule: the lexicon entry that matched, for the trace ("status.closed" ...).
        first, last: token indices of the match (last exclusive).
        phrase: the phrase as written in the lexicon.
    """

    start: int
    end: int
    text: str
    value: str
    rule: str
    first: int = 0
    last: int = 0
    phrase: str = ""


class PhraseLexicon:
    """Many phrases, each mapped to a value, matched left to right on tokens.

    At each token the longest phrase wins and matches never overlap, so
    "Music Business Worldwide" is found whole and "Business World" is not found inside it.
    """

    def __init__(self, entries: Iterable[tuple[str, str, str]], plurals: bool = False,
                 unless: Iterable[str] = ()) -> None:
        """Index the lexicon.

        Args:
            entries: (phrase, value, rule) triples; a phrase listed twice keeps its first value.
            plurals: also match English plural forms of each phrase.
            unless: phrases that cancel any match lying inside one of them ("open source").
        """
        self._table: dict[tuple[str, ...], tuple[str, str, str]] = {}
        self._lengths: dict[str, tuple[int, ...]] = {}
        for phrase, value, rule in entries:
            phrase = " ".join(str(phrase).split())
            forms = [phrase] + (plural_variants(phrase) if plurals else [])
            for form in forms:
                key = phrase_tokens(form)
                if key:
                    self._table.setdefault(key, (value, rule, phrase))
        lengths: dict[str, set[int]] = {}
        for key in self._table:
            lengths.setdefault(key[0], set()).add(len(key))
        self._lengths = {first: tuple(sorted(ls, reverse=True)) for first, ls in lengths.items()}
        unless = [u for u in unless if str(u).strip()]
        self._unless = PhraseLexicon((u, "", "unless") for u in unless) if unless else None

    def __len__(self) -> int:
        """Number of phrase forms (plurals included)."""
        return len(self._table)

    def finditer(self, text: str) -> Iterator[Match]:
        """Yield non-overlapping matches left to right.

        Args:
            text: the text to scan.

        Returns:
            An iterator of Match, in order of position.
        """
        if not self._table or not text:
            return
        spans, lowered = tokenize(text)
        blocked = ([(m.first, m.last) for m in self._unless.finditer(text)]
                   if self._unless is not None else [])
        table, lengths, n = self._table, self._lengths, len(lowered)
        i = 0
        while i < n:
            options = lengths.get(lowered[i])
            if options:
                for size in options:
                    if i + size <= n:
                        hit = table.get(lowered[i:i + size])
                        if hit is not None and not any(b <= i and i + size <= e for b, e in blocked):
                            start, end = spans[i][0], spans[i + size - 1][1]
                            yield Match(start, end, text[start:end], hit[0], hit[1], i, i + size, hit[2])
                            i += size
                            break
                else:
                    i += 1
                continue
            i += 1

    def findall(self, text: str) -> list[Match]:
        """All matches of `finditer` as a list."""
        return list(self.finditer(text))
