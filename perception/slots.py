"""The asked-for slot: what kind of fact would answer the query (core.vocab.SLOTS).

Validation checks that a cited sentence fills this slot (validation/checks/answerability.py);
the composer prefers sentences that fill it. Promises: deterministic, English and Chinese;
the first rule that matches wins, in this order:

| slot        | read from                                                                  |
|-------------|----------------------------------------------------------------------------|
| relation    | action compare                                                             |
| procedure   | action how_to, or "how do/can/to/should", "steps", "procedure", 如何/怎么/步骤/流程 |
| list        | action list                                                                |
| duration    | "how long", "for how many days/years", "what is the ... period/timeout/retention", 多久/多长时间 |
| amount      | "how much", "what does it cost", "what is the price/fee/...", 多少钱/金额是多少 |
| number      | "how many", "what percentage/rate/number", quantitative constraint, 多少/几  |
| date        | "when", "what year/date/day", "since when", 何时/什么时候/哪一年/哪天/日期       |
| actor       | "who", "whom", "which company/team/person/...", 谁/哪家/哪个部门/由谁          |
| place       | "where", "which country/city", 哪里/在哪                                    |
| yes_no      | a question opening with is/are/was/does/can/has/should/will..., 是否/吗     |
| definition  | "what is/are X" (not "the default/current/maximum X": a value), "define", "meaning of", 什么是/是什么 |
| fact        | anything else (a lookup whose shape is open)                               |
"""

from __future__ import annotations

import re

from core.segment import default_tokenizer
from core.text import HAN_RUN, has_han

_EN = re.IGNORECASE
_PROCEDURE_EN = re.compile(r"\bhow\s+(?:do|does|did|can|could|should|would|to|must)\b|"
                           r"\b(?:steps?|procedure|process|instructions?|workflow)\b", _EN)
_DURATION_EN = re.compile(r"\bhow\s+long\b|\bhow\s+often\b|\bfor\s+how\s+many\s+(?:days|weeks|months|years|hours)\b|"
                          r"\b(?:what|which)\s+(?:duration|period|length\s+of\s+time)\b|"
                          r"\bwhat\s+(?:is|was|are|were)\s+(?:the\s+)?(?:[\w'-]+\s+){0,3}"
                          r"(?:duration|period|timeout|interval|lifetime|retention|term|notice)s?\s*\??\s*$", _EN)
_AMOUNT_EN = re.compile(r"\bhow\s+much\b|\bwhat\s+(?:does|did|do|will)\b.{0,40}\bcost\b|"
                        r"\bwhat\s+(?:is|was|are|were)\s+(?:the\s+)?(?:[\w']+\s+){0,3}"
                        r"(?:price|fee|cost|salary|budget|reimbursement|allowance|stipend|revenue|profit|income|"
                        r"earning|turnover|valuation)s?\b", _EN)
_NUMBER_EN = re.compile(r"\bhow\s+many\b|\bwhat\s+(?:is|was|are|were)?\s*(?:the\s+)?"
                        r"(?:percentage|rate|number|share|ratio|amount|total|maximum|minimum|limit|size|count)\b|"
                        r"\b(?:maximum|minimum)\b|"
                        r"\b(?:which|what)\s+(?:[\w.-]+\s+)?(?:version|release)\b", _EN)  # a version number
_DATE_EN = re.compile(r"^\s*when\b|\bwhen\s+(?:was|were|did|does|do|is|will)\b|"
                      r"\b(?:what|which)\s+(?:year|date|day|month|time)\b|\bsince\s+when\b|"
                      r"\bwhat\s+(?:is|was|are|were)\s+(?:the\s+)?(?:[\w'-]+\s+){0,2}date\b", _EN)
_ACTOR_EN = re.compile(r"^\s*(?:who|whom|whose)\b|\b(?:who|whom)\s+(?:is|was|were|are|did|does|has|had|will|"
                       r"wrote|won|owns|founded|acquired|leads|handles|approves|decides)\b|"
                       r"\b(?:which|what)\s+(?:company|companies|firm|organi[sz]ation|team|department|person|"
                       r"people|group|player|author|agency|country's\s+leader|authority|body)\b", _EN)
_PLACE_EN = re.compile(r"^\s*where\b|\bwhere\s+(?:is|was|are|were|did|does|do|will)\b|"
                       r"\b(?:which|what)\s+(?:country|city|state|place|location|venue|region)\b|\blocation\b", _EN)
_YES_NO_EN = re.compile(r"^\s*(?:is|are|was|were|does|do|did|can|could|has|have|had|should|will|would|must|may)\b",
                        _EN)
# "What is the default port?" asks for a setting's value, not for what a port is.
_DEFINITION_EN = re.compile(r"^\s*what\s+(?:is|are)\s+(?!(?:(?:an?|the)\s+)?(?:default|current|usual|maximum|"
                            r"minimum|recommended|standard)\b)(?:an?\s+|the\s+)?[\w\-\"]+(?:\s+[\w\-\"]+){0,2}"
                            r"\s*\??\s*$|"
                            r"\bdefine\b|"
                            r"\b(?:meaning|definition)\s+of\b|\bwhat\s+does\s+.{1,40}\bmean\b", _EN)

_PROCEDURE_ZH = re.compile(r"如何|怎么|怎样|步骤|流程|操作方法|处理方式")
_DURATION_ZH = re.compile(r"多久|多长时间|多少天|几天|(?:期限|时长)是?(?:多少|多长|几)")
_AMOUNT_ZH = re.compile(r"多少钱|(?:金额|费用|价格|补贴|预算|标准)是?多少")
_NUMBER_ZH = re.compile(r"多少|几[个种次块位名项件人天辆架艘部枚场]|比例|百分比|比率|数量|上限|下限|"
                        r"(?:量|额|率|人数|票房|规模|增速)\s*[？?]?\s*$")  # a measure noun ends the question
_DATE_ZH = re.compile(r"何时|什么时候|哪一年|哪年|哪天|哪一天|几月|几号|(?:日期|时间)是?(?:什么|哪)")
_ACTOR_ZH = re.compile(r"谁|哪家|哪个部门|哪个团队|由哪|哪位|哪个公司|负责人|审批人")
_PLACE_ZH = re.compile(r"哪里|在哪|哪个国家|哪个城市|地点")
_YES_NO_ZH = re.compile(r"是否|吗[？?]?\s*$|能否|可否|有没有")
_DEFINITION_ZH = re.compile(r"什么是|是什么|指什么|定义|含义")

# (slot, English rule, Chinese rule) in precedence order, after the action-decided slots.
_RULES: tuple[tuple[str, re.Pattern, re.Pattern], ...] = (
    ("procedure", _PROCEDURE_EN, _PROCEDURE_ZH),
    ("duration", _DURATION_EN, _DURATION_ZH),
    ("amount", _AMOUNT_EN, _AMOUNT_ZH),
    ("number", _NUMBER_EN, _NUMBER_ZH),
    ("date", _DATE_EN, _DATE_ZH),
    ("actor", _ACTOR_EN, _ACTOR_ZH),
    ("place", _PLACE_EN, _PLACE_ZH),
    ("yes_no", _YES_NO_EN, _YES_NO_ZH),
)


def asked_slot(query: str, action: str, quantitative: bool = False) -> tuple[str, str]:
    """The slot the query asks for, and the rule that decided it (for the trace).

    Args:
        query: the query text.
        action: Perception's action (compare, explain, how_to, list, summarize, lookup).
        quantitative: Perception's quantitative flag (the query asks for a number).

    Returns:
        (slot, rule): slot one of core.vocab.SLOTS; rule e.g. "action=compare" or "pattern:date".
    """
    if action == "compare":
        return "relation", "action=compare"
    if action == "how_to":
        return "procedure", "action=how_to"
    if action == "list":
        return "list", "action=list"
    if action == "summarize":
        return "fact", "action=summarize"
    for slot, english, chinese in _RULES:
        if english.search(query) or chinese.search(query):
            return slot, f"pattern:{slot}"
    if quantitative:
        return "number", "constraint=quantitative"
    if _DEFINITION_EN.search(query) or _DEFINITION_ZH.search(query):
        return "definition", "pattern:definition"
    return "fact", "default"


# --- the slot's head: the word the asked-for fact attaches to ---------------------------------
# "Who won the 2021 Tour de France?" asks for the one who *won*; a sentence naming a stage
# winner's team mate fills an actor slot but not this one. Read only from a short one-clause
# English question, where word order says it reliably; a long or multi-part question has none.

_HEAD_SLOTS = frozenset({"actor", "date", "place", "number", "amount", "duration"})
# A short question, in words: its word order says which word the slot attaches to (and
# validation asks a short yes/no or definition question to be answered on every term).
SHORT_QUESTION_WORDS = 14
_WORD = re.compile(r"[A-Za-z][\w'’-]*|\d[\d.,]*")
_MULTI_CLAUSE = re.compile(r"(?<!\d),|,(?!\d)|[;:]|\b(?:and|while|whereas|but|or|if|after|before|because)\b", _EN)
_WH = frozenset({"who", "whom", "whose", "what", "when", "where", "which", "how"})
_AUX = frozenset({"is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "will", "can",
                  "could", "should", "would", "shall", "may", "might", "must", "be", "been", "being"})
_FILLERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "new", "current", "first", "last",
                      "latest", "most", "recent", "its", "their", "his", "her", "maximum", "minimum", "average",
                      "default", "typical", "usual", "monthly", "annual", "yearly", "weekly", "daily", "exact"})
_PREPOSITIONS = frozenset({"of", "in", "for", "at", "on", "to", "by", "from", "with", "about", "as", "under"})
# Nouns that only restate the slot ("the date of", "the name of", "which year"): no head.
_SLOT_NOUNS = frozenset({"date", "year", "day", "month", "time", "name", "names", "number", "amount", "kind",
                         "type", "much", "many", "long", "often", "far", "old", "version", "place", "location",
                         "country", "city", "person", "people", "company", "value", "figure", "total"})
_STOP_COMPOUND = _AUX | _FILLERS | _PREPOSITIONS | _SLOT_NOUNS
# A verb form that ends a compound ("who was awarded the prize"), unlike "release" in "the
# release manager", which a noun follows.
_IRREGULAR_PARTICIPLES = "held|won|born|built|made|sold|led|kept|paid|sent|spent|done|begun"
_PARTICIPLE = re.compile(rf"(?:ed|en)$|^(?:{_IRREGULAR_PARTICIPLES})$")
# A clause-final verb after "when/where was X ...": "When was Splatoon 2 released?"
_FINAL_VERB = re.compile(rf"(?:ed|en)$|^(?:{_IRREGULAR_PARTICIPLES}|set|put|run|premiere|release|launch|start|"
                         rf"end|begin|open|close|happen|occur|arrive|ship)$")


# Chinese: the words a question ends with to ask (是谁, 叫什么, 是多少) and nouns that only restate
# the slot (人数, 时间): the head is the last word before them.
_ASK_TAIL_ZH = re.compile(r"(?:是|为|叫|有|在|的)?"
                          r"(?:谁|什么|多少|几[个种次块位名项件人天年辆架艘部枚场]?|哪些|哪个|哪部电影|哪部|哪里|何时|什么时候)?"
                          r"[？?。!！\s]*$")
_SLOT_NOUNS_ZH = frozenset({"人数", "数量", "多少", "时间", "日期", "名字", "名称", "地点", "数字", "情况", "具体"})


def _slot_head_zh(query: str) -> str:
    """The last content word of a Chinese question before its asking tail ("导演" in
    "电影《四海》的导演是谁", "吞吐量" in "2021年北京大兴机场年旅客吞吐量"), "" when none."""
    words = default_tokenizer().lcut(_ASK_TAIL_ZH.sub("", query.strip()))
    for word in reversed(words):
        if len(word) >= 2 and HAN_RUN.fullmatch(word) and word not in _SLOT_NOUNS_ZH:
            return word
    return ""


def slot_head(query: str, slot: str) -> str:
    """The word of a short English question the asked-for slot attaches to, or "" when none is read.

    "Who won X?" -> "won"; "Who is the director of X?" -> "director"; "When was X released?" ->
    "released"; "What was Tesla's revenue in Q1 2021?" -> "revenue"; "How many ballots were cast?"
    -> "ballots". Names (capitalised words), numbers and nouns that only restate the slot ("the
    date of", "the name of") are never the head. A short one-clause Chinese question's head is
    its last content word before the asking tail (`_slot_head_zh`). Deterministic.
    """
    if slot not in _HEAD_SLOTS:
        return ""
    if has_han(query):
        return _slot_head_zh(query) if len(query) <= 30 and not re.search(r"[，,；;和与及]", query) else ""
    if _MULTI_CLAUSE.search(query):
        return ""
    words = _WORD.findall(query)
    if len(words) > 1 and words[0].lower() in _PREPOSITIONS and words[1].lower() in _WH:
        words = words[1:]  # "In which version was X removed?"
    low = [w.lower() for w in words]
    if not low or len(low) > SHORT_QUESTION_WORDS or low[0] not in _WH:
        return ""
    i = 1
    if low[0] in ("which", "what", "whose") and i < len(low) and low[i] not in _AUX:
        i += 1  # "which city hosted", "what movie won": the noun restates the slot
    if low[0] == "how" and i < len(low) and low[i] in _SLOT_NOUNS:
        i += 1  # "how many ballots"
    if i < len(low) and low[i] in _AUX:
        if i + 1 < len(low) and low[i + 1] not in _FILLERS and low[i + 1] not in _AUX and not _is_name(words[i + 1]) \
                and _FINAL_VERB.search(low[i + 1]):
            return low[i + 1]  # "who was awarded X"
        # "when was X released (in Japan)", "how long must logs be kept": the verb after the subject
        verb = _last_verb(words, i + 2) if low[0] in ("when", "where", "how") or i > 1 else ""
        if verb:
            return verb
        i += 1
    verb_position = i  # "Who approves X": a word straight after the question words is its verb
    while i < len(low) and (low[i] in _AUX or low[i] in _FILLERS):
        i += 1
    while i < len(words) and (_is_name(words[i]) or low[i] in _FILLERS or low[i] in _SLOT_NOUNS):
        i += 1
    if i >= len(low):
        return ""
    if low[i] in _AUX:  # "how many PEPs has Guido written": the verb after the subject
        return _last_verb(words, i + 1)
    if low[i] in _PREPOSITIONS and i > 0 and low[i - 1] in _SLOT_NOUNS:  # "the number of threads"
        i += 1
        while i < len(words) and (_is_name(words[i]) or low[i] in _FILLERS):
            i += 1
        if i >= len(low) or low[i] in _STOP_COMPOUND:
            return ""
        verb_position = -1
    elif low[i] in _PREPOSITIONS:  # "Who is the CEO of X": the noun before "of" (a name-like role)
        before = low[i - 1] if i > 0 else ""
        return "" if before in _WH or before in _AUX or before in _FILLERS or before in _SLOT_NOUNS \
            or before.isdigit() else before
    # a compound's last word is its head: "the monthly internet reimbursement", "the lead actress"
    while i > verb_position and i + 1 < len(low) and not _is_name(words[i + 1]) \
            and low[i + 1] not in _STOP_COMPOUND and not _PARTICIPLE.search(low[i]):
        i += 1
    return low[i]


def _last_verb(words: list[str], start: int) -> str:
    """The last clause-final verb form among `words[start:]` that is no name, lower case; "" when none."""
    verbs = [w.lower() for w in words[start:] if not _is_name(w) and _FINAL_VERB.search(w.lower())]
    return verbs[-1] if verbs else ""


def _is_name(word: str) -> bool:
    """A capitalised word, a code or a number: part of a name, never the head."""
    return word[:1].isupper() or word[:1].isdigit() or word.lower().endswith(("'s", "’s"))
