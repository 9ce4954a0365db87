"""Numbers written in digits, Chinese numerals or the config's English number words.

Promises: `cn_number` reads digits and Chinese numerals up to the hundreds (十二 -> 12,
二十三 -> 23, 两百 -> 200) and digit-by-digit years (二〇二三 -> 2023), and returns None for
anything else, never raising; `CN_NUMERAL` is the regex fragment that finds such numerals.
"""

from __future__ import annotations

_CN_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}

CN_NUMERAL = "[零〇一二两三四五六七八九十百]+"


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


def count(word: str, number_words: dict[str, int]) -> int | None:
    """A count from digits, an English number word of the config (`number_words`, folded keys)
    or Chinese numerals; None when it is none of them."""
    key = " ".join(word.lower().split())
    if key in number_words:
        return number_words[key]
    return cn_number(key)
