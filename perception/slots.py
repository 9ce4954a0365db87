"""The asked-for slot: what kind of fact would answer the query (core.vocab.SLOTS), and its head.

The slot is decided by the question-kind table of config/perception.yaml (`questions.kinds`,
read by perception/question.py): the first row that matches wins. The rows, in order:

| slot        | kinds (rows)                       | read from                                      |
|-------------|------------------------------------|------------------------------------------------|
| relation    | compare                            | action compare                                 |
| procedure   | how_to, procedure                  | action how_to, "how do/can/to", "steps", 如何/步骤 |
| list        | list                               | action list                                    |
| fact        | summary                            | action summarize                               |
| duration    | how_often, duration                | "how often", "how long", "what is the ... period", 多久 |
| amount      | cost, how_much                     | "what does it cost", "the price/fee", "how much <noun>", 多少钱 |
| number      | how_many, number                   | "how many", "what percentage/rate/number", 多少/几 |
| date        | date                               | "when", "what year/date", 何时/什么时候            |
| actor       | actor                              | "who", "which company/team", 谁/哪家            |
| place       | place                              | "where", "which country/city", 哪里/在哪         |
| yes_no      | yes_no                             | is/are/does/can... first, 是否/吗               |
| definition  | meaning                            | "what does X mean", "define", "meaning of"     |
| number      | quantity                           | the quantitative constraint                     |
| definition  | what_is                            | "what is/are X" (not "the default X"), 什么是/是什么 |
| fact        | (none)                             | anything else (a lookup whose shape is open)    |
"""

from __future__ import annotations

import re

from core.segment import default_tokenizer
from core.text import HAN_RUN, has_han

from .question import question_kind, shipped_config

_EN = re.IGNORECASE


def asked_slot(query: str, action: str, quantitative: bool = False) -> tuple[str, str]:
    """The slot the query asks for, and the rule that decided it (for the trace), by the shipped table.

    Args:
        query: the query text.
        action: Perception's action (compare, explain, how_to, list, summarize, lookup).
        quantitative: Perception's quantitative flag (the query asks for a number).

    Returns:
        (slot, rule): slot one of core.vocab.SLOTS; rule e.g. "action=compare" or "pattern:date".
    """
    row = question_kind(shipped_config().question_kinds, query, action, quantitative)
    return (row.slot, row.rule) if row else ("fact", "default")


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
# Words a fact never attaches to: the particle or preposition a word-order reading can land on
# ("How much dust falls over the basin?", "the total make up of"): no head rather than that one
_PARTICLES = frozenset({"over", "up", "out", "off", "down", "into", "onto", "through", "across", "per", "during",
                        "around", "away", "back", "along", "upon", "within", "without", "between", "among"})
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


# Verbs that only restate a slot, as _SLOT_NOUNS do: "Where is X located?" asks for X's place, and
# "/etc/app/config.toml" or "in Chengdu" answers it without saying "located".
_SLOT_VERBS = {"place": frozenset({"located", "situated", "based", "stored"})}


def slot_head(query: str, slot: str) -> str:
    """`_slot_head` without a verb that only restates the slot ("located" for a place)."""
    head = _slot_head(query, slot)
    return "" if head in _SLOT_VERBS.get(slot, ()) or head in _PARTICLES else head


def _slot_head(query: str, slot: str) -> str:
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
