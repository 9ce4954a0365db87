"""Numbered names and operators as a text writes them: "PEP 604", "Python 3.12.0", "|>".

A question, a title and a sentence are read with the same rules, so the composer's choice of
sentence and validation's check that the cited sources name what was asked agree.
"""

from __future__ import annotations

import functools
import re

from core.text import MONTH_NAME

_HAS_DIGIT = re.compile(r"\d")
_HAS_ALPHA = re.compile(r"[^\W\d_]")
# A capitalised word or code followed by a number: "PEP 604", "Python 3.16", "Q1 2021", "Season 17"
# (not a date: "November 9"; not a rank: "No 1").
# (not a sentence opening on an amount either: "About 40% of users", "Over 200 people")
_APPROXIMATELY = (r"about|around|approximately|roughly|nearly|almost|over|under|only|just|some|more|fewer|less|"
                  r"up|at|by|to|from|all|another|exactly|precisely|barely|still")
IDENTIFIER = re.compile(rf"\b(?!(?i:{MONTH_NAME}|no|nr|number|top|rank|{_APPROXIMATELY})\b)"
                        rf"(?:[A-Z][A-Za-z]*|[A-Za-z]+\d+)\s+\d+(?:\.\d+)*\b(?![.,]\d)")
# One character of an operator symbol ("|>", ":=", "**").
OPERATOR_CHAR = r"[|&^~<>=!:*/%+@-]"
# A command-line option ("--retry-lock", "--keep-daily") or a dotted setting key
# ("installer.max-workers", "tool.poetry", "config.toml", lower case: "CBSSports.com" names a
# publication): in a question, the exact thing asked about, which the source that answers must write.
OPTION = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*[A-Za-z0-9]"
                    r"|(?<![\w.@/-])[a-z_][\w-]*(?:\.[a-z_][\w-]*)+(?![\w-]|\.\w)")
_NOT_OPTIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "a.m", "p.m", "u.s", "no"})
# "PEP 563 – ", "RFC 9110: ": a numbered prefix before a document's name
_TITLE_PREFIX = re.compile(r"^[^–:-]{0,30}\d\s*[–:-]\s*")


def is_code(word: str) -> bool:
    """True when a word mixes letters and digits (A320, E4027, LEAP-1A, GPT-4): kept whole."""
    return bool(_HAS_DIGIT.search(word)) and bool(_HAS_ALPHA.search(word))


@functools.lru_cache(maxsize=8192)
def names_title(query: str, title: str) -> bool:
    """True when the query names the document of that title: every numbered name it writes ("PEP
    563") is in the title, or it writes the title's name part ("postponed evaluation of
    annotations" for "PEP 563 – Postponed Evaluation of Annotations", three words at least)."""
    if not title:
        return False
    numbered = [m.group(0) for m in IDENTIFIER.finditer(query)]
    if numbered:
        return all(names_identifier(n, title) for n in numbered)
    name = _TITLE_PREFIX.sub("", title).strip().lower()
    return len(name.split()) >= 3 and name in " ".join(query.lower().split())


def names_operator(operator: str, text: str) -> bool:
    """True when `text` writes the operator as one symbol: "|>" in "x |> f", not in "(==|!=|<|>)"."""
    return re.search(rf"(?<!{OPERATOR_CHAR}){re.escape(operator)}(?!{OPERATOR_CHAR})", text) is not None


def names_identifier(identifier: str, text: str) -> bool:
    """True when `text` writes the identifier's words in order (any case, space, hyphen or none
    between them: "PEP 604", "pep-604", "PEP604"), not as part of a longer number (PEP 6040).

    A dotted version ("Python 3.12.0") is specific enough alone: "3.12.0 final: 2023-10-02"
    under a title naming Python names it. A year may stand up to three words before or after
    the word ("the 2021 US Open" names "Open 2021"), unless the word is a code (Q1 2021)."""
    word, number = identifier.rsplit(None, 1)
    pattern = rf"(?<![\w.]){re.escape(word)}[\s\-_]*{re.escape(number)}(?![\d]|\.\d)"
    if re.search(pattern, text, re.I):
        return True
    if re.fullmatch(r"(?:1[6-9]|20)\d\d", number) and not is_code(word):  # "the 2021 US Open" names "Open 2021"
        name, gap = re.escape(word), r"(?:\W+\w+){0,3}?\W+"
        return re.search(rf"\b{number}\b{gap}{name}\b|\b{name}\b{gap}{number}\b", text, re.I) is not None
    return "." in number and re.search(rf"(?<![\w.]){re.escape(number)}(?![\d]|\.\d)", text) is not None \
        and re.search(rf"\b{re.escape(word)}\b", text, re.I) is not None


def options_in(text: str) -> tuple[str, ...]:
    """The options and setting keys a text writes, in order, each once ("--retry-lock",
    "installer.max-workers"); abbreviations ("e.g.") are none."""
    return tuple(dict.fromkeys(m.group(0) for m in OPTION.finditer(text) if m.group(0).lower() not in _NOT_OPTIONS))


def names_option(option: str, text: str) -> bool:
    """True when `text` writes the option or key whole, any case: "--max-unused" in
    "--max-unused=5%" and in "``--max-unused``", not in "--max-unused-size"; "tool.poetry" not
    in "tool.poetry-dynamic"."""
    return re.search(rf"(?<![\w.-]){re.escape(option)}(?![\w-]|\.\w)", text, re.I) is not None
