"""Publication names (KB `source` metadata) and their aliases, found in text."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from perception.lexicon import PhraseLexicon, fold, tokenize

_ARTICLES = ("the ",)


@dataclass(frozen=True)
class SourceHit:
    """A source mention.

    Args:
        start, end: character span.
        text: the matched text.
        sources: the source names it stands for (more than one for an ambiguous alias such
            as "The Independent" when a KB has several "The Independent - ..." sources).
        rule: "source.name" for a full name, "source.alias" for an alias.
    """

    start: int
    end: int
    text: str
    sources: tuple[str, ...]
    rule: str


def derive_aliases(name: str, separators: Iterable[str], min_length: int) -> list[str]:
    """Shorter names people use for a source.

    "Cnbc | World Business News Leader" -> ["Cnbc"]; "The Verge" -> ["Verge"];
    "The Independent - Sports" -> ["The Independent", "Independent"]. Aliases shorter than
    `min_length` characters (not counting a leading "The ") are dropped.

    Args:
        name: the source name as in KB metadata.
        separators: strings that separate a name from its tagline (" | ", " - ", ": ").
        min_length: the shortest alias kept.

    Returns:
        The aliases, without the name itself.
    """
    heads = [name]
    for sep in separators:
        if sep in name:
            head = name.split(sep, 1)[0].strip()
            if head:
                heads.append(head)
    out = []
    for head in heads:
        core = head[4:] if head.lower().startswith(_ARTICLES) else head
        for alias in (head, core):
            if alias != name and len(alias.strip()) >= min_length and alias not in out:
                out.append(alias)
    return out


class SourceMatcher:
    """Finds source names and aliases; capitalised words must be capitalised in the text,
    so "a fortune" or "the age of AI" are not read as Fortune or The Age."""

    def __init__(self, names: Iterable[str], aliases: Mapping[str, Iterable[str]] | None = None,
                 derive: bool = True, separators: Iterable[str] = (" | ", " - ", ": "),
                 min_alias_length: int = 4) -> None:
        """Index the names.

        Args:
            names: source names exactly as in KB metadata.
            aliases: alias -> source names, from config (always used).
            derive: also derive aliases from the names (see `derive_aliases`).
            separators: tagline separators used when deriving.
            min_alias_length: the shortest derived alias used.
        """
        self.names = tuple(dict.fromkeys(n.strip() for n in names if n and n.strip()))
        exact: dict[str, list[str]] = {}
        derived: dict[str, list[str]] = {}
        forms: dict[str, str] = {}
        for name in self.names:
            exact.setdefault(fold(name), []).append(name)
            forms.setdefault(fold(name), name)
            if derive:
                for alias in derive_aliases(name, separators, min_alias_length):
                    derived.setdefault(fold(alias), []).append(name)
                    forms.setdefault(fold(alias), alias)
        for alias, targets in (aliases or {}).items():
            derived.setdefault(fold(alias), []).extend(targets)
            forms.setdefault(fold(alias), alias)
        self._targets: dict[str, tuple[str, tuple[str, ...]]] = {}
        for key in forms:
            if key in exact:   # a real name beats an alias spelled the same way
                self._targets[key] = ("source.name", tuple(dict.fromkeys(exact[key])))
            else:
                self._targets[key] = ("source.alias", tuple(dict.fromkeys(derived[key])))
        self._lexicon = PhraseLexicon((form, key, "source") for key, form in forms.items())

    def __bool__(self) -> bool:
        """True when at least one name is known."""
        return len(self._lexicon) > 0

    @staticmethod
    def _case_ok(form: str, found: str) -> bool:
        """Every capitalised word of the known form (a leading "The" aside) is capitalised in
        the found text."""
        want, got = _words(form), _words(found)
        if len(want) != len(got):
            return True
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if i == 0 and w.lower() == "the":
                continue
            if w[:1].isupper() and not g[:1].isupper():
                return False
        return True

    def find(self, text: str) -> list[SourceHit]:
        """All source mentions in `text`, left to right, longest first, never overlapping."""
        hits = []
        for m in self._lexicon.finditer(text):
            if not self._case_ok(m.phrase, m.text):
                continue
            rule, targets = self._targets[m.value]
            hits.append(SourceHit(m.start, m.end, m.text, targets, rule))
        return hits


def _words(text: str) -> list[str]:
    """The token texts of `text` (original case)."""
    spans, _ = tokenize(text)
    return [text[s:e] for s, e in spans]
