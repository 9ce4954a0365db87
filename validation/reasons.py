"""What a finding says to the user, as data: a reason code and its values, in either language.

A finding the answer text shows (a refusal's reason: `unanswered`, `no_evidence`, a source set
aside for its age or date; a note: `conflicting_sources`, `missing_side`) carries a `Reason`;
the service writes it in the question's language (server/status.py), the English text is the
finding's `detail` (the trace, the logs). One table holds both wordings of each reason, so
they cannot drift apart.

Values are language-neutral: names and terms as the question or the documents wrote them,
shares as fractions, probabilities, quoted units. `text()` quotes and joins them per language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

LANGUAGES = ("en", "zh")

# what the question asks for, by slot (core.vocab.SLOTS), with its article in English
SLOT_NAMES = {
    "number": ("a number", "数字"), "amount": ("an amount", "金额或数量"), "duration": ("a duration", "时长"),
    "date": ("a date", "日期"), "actor": ("a person or organisation", "人物或机构"), "place": ("a place", "地点"),
    "definition": ("a definition", "定义"), "procedure": ("a procedure", "做法或步骤"),
    "yes_no": ("a yes or no", "是或否"), "list": ("a list", "列表"), "fact": ("a fact", "事实"),
    "relation": ("a comparison", "比较"),
}

TEMPLATES: dict[str, tuple[str, str]] = {
    "unknown_source": ("the question asks about {sources}; no knowledge base holds documents from {it}",
                       "问题问到 {sources}，但没有知识库收录来自{it}的文档"),
    "unwritten": ("no document you may read in the knowledge bases searched writes {terms}, which the question "
                  "asks about",
                  "在所检索的知识库中，你可以查看的文档都没有写到问题所问的 {terms}"),
    "unnamed": ("the cited sources never name {names}, the one thing the question asks about",
                "引用的来源从未提到 {names}，而问题问的正是它"),
    "undated_period": ("the question asks about {period}; the cited sources are undated and never mention {period}",
                       "问题问的是 {period}；引用的来源没有日期，也没有提到 {period}"),
    "names_missing": ("the cited sources do not mention {names}, which the question asks about",
                      "引用的来源没有提到问题所问的 {names}"),
    "terms_missing": ("no cited sentence is about {missing} of the question (covers {coverage} of its terms, "
                      "needs {needed}); closest: {closest}",
                      "没有一句引用的句子谈到问题中的 {missing}（覆盖问题词语的 {coverage}，需要 {needed}）；"
                      "最接近的是：{closest}"),
    "off_topic": ("no single cited sentence speaks to the question (each carries under {needed} of its terms); "
                  "closest: {closest}",
                  "没有一句引用的句子针对这个问题（每句都不到问题词语的 {needed}）；最接近的是：{closest}"),
    "slot_unfilled": ("the question asks for {slot}{about} and no cited sentence on its topic states one; "
                      "closest: {closest}",
                      "问题问的是{slot}{about}，但相关的引用句子都没有给出；最接近的是：{closest}"),
    "low_probability": ("the question asks for {slot}; no unit of the evidence answers it with enough confidence "
                        "(best unit p={best}, answered p={answered}, refused below {threshold}){rules}; "
                        "closest: {closest}",
                        "问题问的是{slot}；证据中没有哪个单元能足够有把握地回答它（最佳单元 p={best}，"
                        "回答的概率 {answered}，低于拒答阈值 {threshold}）{rules}；最接近的是：{closest}"),
    "no_evidence": ("retrieval returned no evidence for this query", "检索没有找到与这个问题相关的证据"),
    "subjects_absent": ("the evidence never mentions {names}, which the question is about",
                        "证据中从未提到问题所涉及的 {names}"),
    "outside_window": ("{chunk} is dated {day}, outside the query's window {start} to {end} ({window})",
                       "{chunk} 的日期是 {day}，不在问题的时间范围 {start} 至 {end}（{window}）之内"),
    "too_old": ("{chunk} is dated {day}, {age} days before {now}; knowledge base {kb} allows {limit} days",
                "{chunk} 的日期是 {day}，比 {now} 早 {age} 天；知识库 {kb} 只允许 {limit} 天"),
    "conflicting_sources": ("sources disagree: {mine} says {claim} while {other} says {sentence}; "
                            "prefer {preferred} ({rule})",
                            "来源不一致：{mine} 说 {claim}，而 {other} 说 {sentence}；以 {preferred} 为准（{rule}）"),
    "missing_side": ("the comparison side {side} is not covered by any cited claim; {elsewhere}",
                     "比较的一方 {side} 没有任何引用的陈述覆盖；{elsewhere}"),
    "nothing_cited": ("{found} evidence chunk(s) were found but none is cited by a claim of the answer "
                      "({stated} non-notice claim(s))",
                      "找到了 {found} 个证据片段，但回答中没有任何陈述引用它们"),
}
# the words a few values are written with (the rule that picks a source, what evidence was found)
WORDS = {
    "higher credibility": "可信度更高", "newer": "更新", "ranked first (no rule decides)": "排名第一（没有规则能决定）",
}
# a reason's text up to its "closest: ..." part, as another reason quotes it ("the rules add: ...")
_BRIEF_CUT = {"en": "; closest:", "zh": "；最接近的是："}


@dataclass(frozen=True)
class Reason:
    """A refusal's reason: `code` (a key of TEMPLATES) and the values its wording needs."""

    code: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.code not in TEMPLATES:
            raise ValueError(f"unknown refusal reason {self.code!r}; known: {', '.join(TEMPLATES)}")

    def text(self, language: str = "en") -> str:
        """The reason as a sentence in `language` ("zh", else English)."""
        lang = "zh" if language == "zh" else "en"
        template = TEMPLATES[self.code][LANGUAGES.index(lang)]
        return template.format(**{key: _written(key, value, lang) for key, value in self.values.items()},
                               **_derived(self.values, lang))

    def brief(self, language: str = "en") -> str:
        """The text without its closest-unit part."""
        lang = "zh" if language == "zh" else "en"
        return self.text(lang).split(_BRIEF_CUT[lang])[0]

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "values": {k: _plain(v) for k, v in self.values.items()}}


def _written(key: str, value: Any, lang: str) -> str:
    """One value as the sentence shows it."""
    if key == "slot":
        return SLOT_NAMES.get(str(value), (f"a {value}", str(value)))[LANGUAGES.index(lang)]
    if key in ("coverage", "needed"):
        return f"{float(value):.0%}"
    if key in ("best", "answered", "threshold"):
        return f"{float(value):.2f}"
    if key == "rules":
        if value is None:
            return ""
        brief = value.brief(lang)
        return f"; the rules add: {brief}" if lang == "en" else f"；规则另外指出：{brief}"
    if key == "closest":
        return _closest(value, lang)
    if key == "head":
        return str(value)
    if key in ("claim", "sentence"):
        return _quoted(str(value), lang)
    if key in ("side", "kb", "window"):
        return f"'{value}'" if lang == "en" else _quoted(str(value), lang)
    if key == "rule":
        return str(value) if lang == "en" else WORDS.get(str(value), str(value))
    if key == "elsewhere":
        return _elsewhere(value, lang)
    if key in ("mine", "other", "preferred"):
        return _source(value, lang)
    if isinstance(value, (list, tuple)):  # names and terms: 'x', 'y' / “x”、“y”
        if lang == "en":
            return ", ".join(repr(str(v)) for v in value)
        return "、".join(_quoted(str(v), lang) for v in value)
    return str(value)


def _derived(values: Mapping[str, Any], lang: str) -> dict[str, str]:
    """Wording that follows from the values: "it"/"them", the slot's head."""
    out = {}
    if "sources" in values:
        many = len(values["sources"]) > 1
        out["it"] = ("them" if many else "it") if lang == "en" else ("它们" if many else "它")
    if "slot" in values:
        head = values.get("head") or ""
        out["about"] = "" if not head else (f" that '{head}' refers to" if lang == "en" else f"（与“{head}”有关）")
    return {k: v for k, v in out.items() if k not in values}


def _source(value: Mapping[str, str], lang: str) -> str:
    """A source as a note names it: its title, then its source name and date."""
    extra = ", ".join(x for x in (value.get("source"), value.get("date")) if x)
    title = f"'{value.get('title', '')}'" if lang == "en" else _quoted(str(value.get("title", "")), lang)
    return title + (f" ({extra})" if extra else "")


def _elsewhere(value: Sequence[str], lang: str) -> str:
    """What evidence mentions a comparison side without being cited (chunk ids; none: nothing does)."""
    ids = ", ".join(value[:3])
    if lang == "en":
        return f"{len(value)} evidence chunk(s) mention it but are not cited ({ids})" if value else \
            "no evidence chunk mentions it"
    return f"有 {len(value)} 个证据片段提到它但没有被引用（{ids}）" if value else "没有证据片段提到它"


def _closest(value: Any, lang: str) -> str:
    """The closest text: one sentence, or units with their probability [(text, p), ...]."""
    if isinstance(value, str):
        return _quoted(value, lang)
    parts = [f"{_quoted(str(text), lang)} (p={float(p):.2f})" for text, p in value]
    return "; ".join(parts) if lang == "en" else "；".join(parts)


def _quoted(text: str, lang: str) -> str:
    return f"\"{text}\"" if lang == "en" else f"“{text}”"


def _plain(value: Any) -> Any:
    """A value as JSON: a nested reason as its dict, tuples as lists."""
    if isinstance(value, Reason):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
