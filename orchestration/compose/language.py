"""Language of evidence sentences and the glue text the composer writes itself.

Promises: `sentence_language` is a pure function of the text; every glue phrase exists in
English and Chinese, and `glue(language, key, ...)` falls back to English for any other
language code, so a composer never writes a phrase in a language the query did not use
unless it has no template for it.
"""

from __future__ import annotations

import re

from core.text import HAN

_LATIN = re.compile(r"[A-Za-z]")

# Glue templates: {a}/{b} are side names, {va}/{vb} rendered values with their [n] markers,
# {sa}/{sb} source names, {rel} a relation word from RELATION_WORDS.
_GLUE: dict[str, dict[str, str]] = {
    "en": {
        "no_answer": "The knowledge base does not say anything that answers this question.",
        "value_relation": "The {a} figure ({va}, {sa}) is {rel} the {b} figure ({vb}, {sb}).",
        "date_relation": "The {a} date ({va}, {sa}) is {rel} the {b} date ({vb}, {sb}).",
        "missing_side": "The evidence found says nothing about {a}.",
        "no_value": "The evidence gives no {kind} for {a}, so {a} and {b} cannot be compared.",
        "units_differ": ("The evidence gives {a} in {ua} and {b} in {ub}; these units differ, so "
                         "{a} and {b} cannot be compared."),
        "no_common": "The evidence does not give comparable figures for {a} and {b}.",
        "verdict_yes": "Yes.",
        "verdict_no": "No.",
        "side_variant": "{side} ({variant})",
    },
    "zh": {
        "no_answer": "知识库中没有找到能回答这个问题的内容。",
        "value_relation": "{a} 的数值（{va}，{sa}）{rel} {b} 的数值（{vb}，{sb}）。",
        "date_relation": "{a} 的日期（{va}，{sa}）{rel} {b} 的日期（{vb}，{sb}）。",
        "missing_side": "检索到的资料中没有关于 {a} 的内容。",
        "no_value": "资料中没有 {a} 的{kind}，因此无法比较 {a} 和 {b}。",
        "units_differ": "资料中 {a} 的单位是 {ua}，{b} 的单位是 {ub}，单位不同，因此无法比较 {a} 和 {b}。",
        "no_common": "资料中没有可以直接比较的 {a} 和 {b} 的数据。",
        "verdict_yes": "是。",
        "verdict_no": "否。",
        "side_variant": "{side}（{variant}）",
    },
}

RELATION_WORDS: dict[str, dict[str, str]] = {
    "en": {"lower": "lower than", "higher": "higher than", "same": "the same as",
           "earlier": "earlier than", "later": "later than", "figure": "figure", "date": "date"},
    "zh": {"lower": "低于", "higher": "高于", "same": "等于",
           "earlier": "早于", "later": "晚于", "figure": "数值", "date": "日期"},
}


def sentence_language(text: str) -> str:
    """"zh" when Chinese characters make up at least 30% of the letters (and there are 4+), else "en"."""
    cjk = len(HAN.findall(text))
    latin = len(_LATIN.findall(text))
    return "zh" if cjk >= 4 and cjk >= 0.3 * (cjk + latin) else "en"



def glue(language: str, key: str, **fields: str) -> str:
    """A glue sentence in the query's language ("en" for anything but "zh"), fields filled in."""
    table = _GLUE.get(language, _GLUE["en"])
    return table[key].format(**fields)


def relation_word(language: str, relation: str) -> str:
    """The phrase for a relation ("lower" -> "lower than" / "低于") in the query's language."""
    return RELATION_WORDS.get(language, RELATION_WORDS["en"])[relation]
