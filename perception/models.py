"""Product and model names: "737 MAX 8", "777X", "A350-900", "Model 3", "iPhone 15 Pro", "Pixel 8".

One regular expression built from the config vocabulary (entities.models):

    [manufacturer] base [suffix [variant number]]...

- base: a code ("A320neo", "A350-900", "S24"), a `number` ("737", "737-800"), optionally with an
  attached suffix ("777X"), or a `series` word followed by a number or code ("Model 3",
  "iPhone 15", "Galaxy S24", "Model Y");
- suffix: a model-suffix word (MAX, neo, Pro, Plus, Ultra, XL ...), case-sensitive as listed or
  in capitals, each optionally followed by a small variant number ("MAX 8", "Pro Max");
- manufacturer: optional (Boeing, Airbus, Apple ...); it licenses a bare number ("Boeing 737")
  but is not part of the name (it stays its own ORG entity when the glossary knows it).

A bare number needs a suffix word or a manufacturer ("737 cases" is not a model); a code with
nothing around it is left to the code patterns (it is already a CODE).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perception.config import ModelNames
from perception.lexicon import phrase_tokens, tokenize

_LEFT = r"(?<![A-Za-z0-9_\-$£€])"
_RIGHT = r"(?![A-Za-z0-9_\-])"
_CODE = r"[A-Z][A-Za-z]{0,5}-?\d[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*"
_SERIES_NUMBER = r"\d{1,3}(?:\.\d)?[A-Za-z]?|[A-Z](?![A-Za-z])"
_VARIANT = r"(?:[ \t\-]?\d{1,2}(?![\d.,]?\d))?"


@dataclass(frozen=True)
class ModelHit:
    """One model name: its span (manufacturer excluded), label and normalised form."""

    start: int
    end: int
    text: str
    label: str
    normalized: str


def _alt(words) -> str:
    """A regex alternation of literal words, longest first."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=lambda w: (-len(w), w)))


class ModelNameRules:
    """Finds product / model names with the vocabulary of `entities.models`."""

    def __init__(self, models: ModelNames) -> None:
        """Compile the pattern once.

        Args:
            models: the validated `entities.models` section.
        """
        self._label = models.label
        self._suffix: dict[str, str] = {}
        for form in models.suffixes:            # a listed form wins over another's capitals
            self._suffix.setdefault(form, form)
        for form in models.suffixes:
            self._suffix.setdefault(form.upper(), form)
        suffix = _alt(self._suffix)
        series = _alt(models.series)
        base = [f"(?P<num>{models.number})(?P<att>{suffix})?" if suffix else f"(?P<num>{models.number})",
                f"(?P<code>{_CODE})"]
        if series:
            base.insert(0, rf"(?P<series>{series})\s+(?P<snum>{_SERIES_NUMBER}|{_CODE})")
        tail = rf"(?P<tail>(?:\s+(?:{suffix}){_VARIANT})*)" if suffix else "(?P<tail>)"
        body = rf"(?P<base>{'|'.join(base)}){tail}{_RIGHT}"
        # two patterns: with a manufacturer head (tried only where a manufacturer word starts)
        # and without; each is tried only at token starts that can begin a model name
        self._with_head = re.compile(rf"{_LEFT}(?P<manu>{_alt(models.manufacturers)})\s*{body}") \
            if models.manufacturers else None
        self._plain = re.compile(rf"{_LEFT}{body}")
        self._heads = frozenset(phrase_tokens(w)[0] for w in models.manufacturers if phrase_tokens(w))
        self._series = frozenset(phrase_tokens(w)[0] for w in models.series if phrase_tokens(w))
        self._tail_item = re.compile(rf"(?P<suf>{suffix})(?P<var>{_VARIANT})") if suffix else None

    def _matches(self, text: str):
        """Regex matches tried at the token starts that can begin a model name (a capital, a
        digit, a manufacturer or series word), left to right, without overlap."""
        spans, lowered = tokenize(text)
        last = 0
        for (start, _end), low in zip(spans, lowered, strict=True):
            if start < last:
                continue
            first = text[start]
            m = None
            if low in self._heads and self._with_head is not None:
                m = self._with_head.match(text, start)
            if m is None and (first.isdigit() or first.isupper() or low in self._series):
                m = self._plain.match(text, start)
            if m is not None:
                last = m.end()
                yield m

    def find(self, text: str) -> list[ModelHit]:
        """Model names in `text`, in order (see the module docstring for the rules)."""
        if not text:
            return []
        hits: list[ModelHit] = []
        for m in self._matches(text):
            g = m.groupdict()
            tail = g["tail"] or ""
            if g.get("code") and not tail.strip():
                continue                      # a plain code: the code patterns have it
            if g.get("num") and not (tail.strip() or g.get("att") or "-" in g["num"] or g.get("manu")):
                continue                      # "737 cases": a bare number is not a model
            start, end = m.start("base"), m.end()
            parts: list[str] = []
            if g.get("series"):
                parts += [g["series"], g["snum"].upper() if g["snum"][:1].isalpha() else g["snum"]]
            elif g.get("num"):
                parts.append(g["num"].upper() + (self._suffix[g["att"]] if g.get("att") else ""))
            else:
                parts.append(g["code"].upper())
            if tail.strip() and self._tail_item is not None:
                for t in self._tail_item.finditer(tail):
                    parts.append(self._suffix[t.group("suf")])
                    variant = t.group("var").strip(" \t-")
                    if variant:
                        parts.append(variant)
            surface = text[start:end]
            label = "CODE" if len(parts) == 1 else self._label
            hits.append(ModelHit(start, end, surface, label, " ".join(parts)))
        return hits
