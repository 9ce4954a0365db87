"""The names a question writes, each with its shape, and a corpus's pool of names a swap draws from.

A name's shape is its kind as far as its form tells, so a swap replaces a name by one of the same
kind: a command-line option ("--no-cache"), a kebab-case setting ("opt-level"), a dotted key
("tool.poetry"), an environment variable ("SSL_CERT_FILE"), a snake_case setting ("max_age"), a
code ("HTTP2", "A320"), an acronym ("CORS"), a run of n capitalised words ("Kelly Rowland":
"name2"; with its role where the question writes it: "name1:place" in "rocks in Antarctica"), a
product (the documented project's own name: "starlette"), and in Chinese jieba's tags
of a person, a place or an organisation standing alone ("zh:nr", "zh:ns", "zh:nt"; not "中国" in
"中国建筑工程总公司"). English names are read from Perception's reading of the question
(`Question.names`, `Question.options`); Chinese ones from jieba's part-of-speech tags.

Pure and deterministic: a pool lists its names in the order they were added.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.reading.identifiers import is_code
from perception.question import Question

ZH_TAGS = {"nr": "zh:nr", "ns": "zh:ns", "nt": "zh:nt"}  # jieba: person, place, organisation
PRODUCT = "product"
# A run of capitalised words or codes ("Kelly Rowland", "Destiny", "HTTP2"), possessive left out.
_RUN = re.compile(r"(?<![\w'’.-])[A-Z][\w-]*(?:[ ]+[A-Z][\w-]*)*")
# A setting written as one identifier: snake_case or UPPER_SNAKE ("max_age", "SSL_CERT_FILE").
_SETTING = re.compile(r"(?<![\w.-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w-])")
_MAX_NAME_WORDS = 4


def shape(name: str) -> str:
    """The kind of name its form tells: option, kebab, key, env, snake, code, acronym or name<n words>."""
    if name.startswith("--"):
        return "option"
    if "." in name:
        return "key"
    if "-" in name and name.islower() and " " not in name:
        return "kebab"
    if "_" in name:
        return "env" if name.isupper() else "snake"
    if is_code(name):
        return "code"
    if name.isupper() and len(name) > 1:
        return "acronym"
    return f"name{len(name.split())}"


@functools.cache
def _function_words() -> frozenset[str]:
    """spaCy's English stop list ("what", "during", "the"): the words a question may open with."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


# The role a name plays where the question writes it: a place after a locative preposition
# ("rocks in Antarctica"), an agent as the subject of an active verb or before a possessive ("did
# Flinders write", "Beyonce's"; not after "was": a passive subject is a thing as often); a name is
# swapped only for one seen in the same role.
_PLACE_BEFORE = re.compile(r"\b(?:in|at|from|to|near|across|into|through|throughout|within|outside|inside|"
                           r"around)\s+(?:the\s+)?$", re.I)
_AGENT_BEFORE = re.compile(r"\b(?:did|does|do|has|have|had|can|could|will|would)\s+(?:the\s+)?$", re.I)
_AGENT_AFTER = re.compile(r"^['’]s\b")
ROLE_OF_SLOT = {"place": "place", "actor": "agent"}  # an answer's role: the slot its question asks


def _role(text: str, start: int, end: int) -> str:
    """"place", "agent" or "" for the name written at text[start:end] (see _PLACE_BEFORE)."""
    if _PLACE_BEFORE.search(text[:start]):
        return "place"
    if _AGENT_BEFORE.search(text[:start]) or _AGENT_AFTER.match(text[end:]):
        return "agent"
    return ""


def _named(name: str, role: str) -> tuple[str, str]:
    """(name, shape with the role: "name1:place")."""
    return name, f"{shape(name)}:{role}" if role else shape(name)


def _name_runs(text: str, asked: Question) -> list[tuple[str, str]]:
    """(name, shape) of the runs of capitalised words the question writes as names (every word one
    of `asked.names`); a run opening the question loses its first word when that is a function word
    ("The Ming Dynasty") and is left out otherwise ("Deshin Shekpa was ...": its first word is no
    reading's). The shape carries the name's role (`_role`)."""
    names = set(asked.names)
    out = []
    for match in _RUN.finditer(text):
        words, start = match.group(0).split(), match.start()
        if start == 0:
            if words[0].lower() not in _function_words():
                continue
            start = text.index(words[1], len(words[0])) if len(words) > 1 else start
            words = words[1:]
        if words and len(words) <= _MAX_NAME_WORDS and all(w in names for w in words):
            out.append(_named(" ".join(words), _role(text, start, match.end())))
    return out


def english_names(text: str, asked: Question, product: str = "") -> list[tuple[str, str]]:
    """(name, shape) of each name the question writes, in this order: the product (when it writes
    it), options and keys, settings, then runs of capitalised words; each once."""
    written = re.search(rf"(?<![\w./~-]){re.escape(product)}(?![\w-]|\.\w)", text, re.I) if product else None
    found = [(written.group(0), PRODUCT)] if written else []
    found += [(o, shape(o)) for o in asked.options]
    found += [(s, shape(s)) for s in _SETTING.findall(text)]
    found += _name_runs(text, asked)
    return list(dict.fromkeys(found))


@functools.cache
def _pos_tokenizer() -> Any:
    """jieba's part-of-speech tagger over the process-wide tokenizer (core.segment)."""
    import jieba.posseg  # type: ignore[import-untyped]  # jieba ships no types (pyproject names "jieba" only)

    from core.segment import default_tokenizer

    return jieba.posseg.POSTokenizer(default_tokenizer())


def chinese_names(text: str) -> list[tuple[str, str]]:
    """(name, shape) of each person, place or organisation jieba tags in the text (two characters
    at least) standing alone: no noun beside it (not "中国" in "中国建筑工程总公司"), no number after
    it (not "沃夫" in "沃夫424"); in order, each once."""
    pairs = list(_pos_tokenizer().cut(text))
    flags = ["", *(p.flag for p in pairs), ""]
    return list(dict.fromkeys((p.word, ZH_TAGS[p.flag]) for i, p in enumerate(pairs)
                              if p.flag in ZH_TAGS and len(p.word) >= 2
                              and not flags[i].startswith("n") and not flags[i + 2].startswith(("n", "m"))))


def answer_name(answer: str, slot: str) -> tuple[str, str] | None:
    """(answer, shape) when a gold answer is itself an English name (every word capitalised, at
    most four words: "Jay Z", "Kelly Rowland"), its role the slot its question asks ("Where ...?":
    a place); else None."""
    words = answer.split()
    if 0 < len(words) <= _MAX_NAME_WORDS and all(_RUN.fullmatch(w) for w in words):
        return _named(answer, ROLE_OF_SLOT.get(slot, ""))
    return None


@dataclass
class NamePool:
    """The names of a corpus by shape, with the groups (article, page) each was seen in, once per
    sighting; products (the documented projects' names) across corpora."""

    # (corpus, shape) -> name -> the group of each sighting
    names: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)
    products: dict[str, None] = field(default_factory=dict)

    def add(self, corpus: str, group: str, named: Iterable[tuple[str, str]]) -> None:
        """Add (name, shape) pairs found in a question or answer of `corpus`'s `group`."""
        for name, kind in named:
            if kind == PRODUCT:
                self.products[name.lower()] = None
            else:
                self.names.setdefault((corpus, kind), {}).setdefault(name, []).append(group)

    def candidates(self, corpus: str, kind: str, group: str, seen: int = 1) -> list[str]:
        """The names of that shape a swap may draw: a product from the other projects; any other
        from the same corpus, seen at least `seen` times, those of the same group first, each list
        in the order added."""
        if kind == PRODUCT:
            return list(self.products)
        named = {n: groups for n, groups in self.names.get((corpus, kind), {}).items() if len(groups) >= seen}
        return [n for n, groups in named.items() if group in groups] + \
               [n for n, groups in named.items() if group not in groups]


def pick(options: Sequence[str], seed: str) -> str:
    """One of `options`, chosen by a hash of `seed` (a question id and a rule): the same every run."""
    return options[int(hashlib.sha1(seed.encode("utf-8")).hexdigest()[:8], 16) % len(options)]
