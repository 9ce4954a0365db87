"""Language of a query: Chinese ("zh") or English ("en")."""

from __future__ import annotations

import re

from core.text import HAN

_LATIN_WORD = re.compile(r"[A-Za-z]+")


def detect_language(text: str, han_per_latin_word: float = 1.0) -> str:
    """"zh" when the text has Han characters and at least `han_per_latin_word` of them per
    Latin word, else "en" (the default for empty or symbol-only text).

    Args:
        text: the query.
        han_per_latin_word: the threshold from config (language.zh_han_per_latin_word).

    Returns:
        "zh" or "en".
    """
    han = len(HAN.findall(text))
    if han == 0:
        return "en"
    latin = len(_LATIN_WORD.findall(text))
    return "zh" if han >= han_per_latin_word * latin else "en"
