"""The Question: what a query asks, read once, here (DESIGN.md section 3).

One table of question kinds (config/perception.yaml `questions.kinds`, English and Chinese
cues) decides the kind and the asked slot; the extractors below read what the later layers
need from the question text: the noun an amount or a count is of, the subject a definition
question asks about, the polarity of a yes/no question, the numbered names and operators it
writes, the sub-questions. The composer, the router and validation read these fields; no module
outside perception/ matches the question text (tests/test_architecture.py holds them to it).

Promises: deterministic; `read_question` never raises on any text; a query asking one thing
has no parts, a query asking several has one Question per part (each read with the same table).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from core.reading.dates import YEAR
from core.reading.identifiers import IDENTIFIER, OPERATOR_CHAR, names_option, names_title, options_in
from core.reading.quantities import NUMBER_RUN
from core.reading.units import is_measure
from core.text import CALENDAR_WORD

from .config import PerceptionConfig, QuestionKind, load_config

# --- the extractors' patterns: read on the question text only -----------------------------------

# "How many PEPs has ...", "the number of threads ...", "how much leave ...": the phrase naming
# what is counted or measured
_COUNTED = re.compile(r"\b(?:how\s+many|number\s+of)\s+(?P<phrase>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})", re.I)
_MEASURED = re.compile(r"\bhow\s+much\s+(?P<phrase>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})", re.I)
_AUXILIARY = frozenset({"has", "have", "had", "did", "does", "do", "were", "was", "is", "are", "can", "could",
                        "will", "would", "should", "may", "might", "must"})
# the function words a counted phrase ends at (the retrieval tokeniser's English stopwords)
_FUNCTION_WORDS = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their "
                            "then there these they this to was will with".split())
# a question asking how many of something there are, not what share or rate
_COUNT_QUESTION = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b", re.I)
_ASKS_SHARE = re.compile(r"\b(?:percent(?:age)?|per\s*cent|share|proportion|fraction|ratio|rate)\b|%", re.I)
# "What arguments does the print() function take?": the signature of something written as code
_ASKS_FOR_SIGNATURE = re.compile(r"\b(?:arguments?|parameters?|signature|keywords?)\b.*\b[A-Za-z_][\w.]*\(\)|"
                                 r"\b[A-Za-z_][\w.]*\(\).*\b(?:arguments?|parameters?|signature)\b", re.I)
_CALLABLE = re.compile(r"\b([A-Za-z_][\w.]*)\(\)")
_ASKS_FOR_CODE = re.compile(r"\b(?:config(?:ure|ured|uring|uration)?|settings?|ya?ml|toml|snippet|syntax|command|"
                            r"cli|flags?|example\s+(?:of|for)|how\s+(?:do\s+i|to)\s+(?:write|declare|set|enable|"
                            r"disable|install|build|run))\b|配置|示例|命令|写法", re.I)
# the phrase a "What is/are ...?" or "What does X mean?" question asks to define, article included
_ASKED_SUBJECT = re.compile(r"\s*what\s+(?:is|are)\s+(?P<subject>(?:(?:an?|the)\s+)?[^?]{1,60}?)\s*\??\s*$", re.I)
_MEANT_SUBJECT = re.compile(r"\s*what\s+does\s+(?P<subject>.{1,40}?)\s+mean\b", re.I)
_QUOTES = re.compile(r"[\"'`“”‘’]")
# a negative yes/no question: "Isn't X ...?", "Does X not ...?", "难道 ..."
_NEGATED = re.compile(r"^\s*\w+n['’]t\b|^\s*\w+\s+(?:\S+\s+){0,3}?(?:not|never)\b|^\s*难道", re.I)
# A capitalised word or a code inside the question (not its first word): the name of a thing.
_NAME_WORD = re.compile(r"(?<=[\s(\"'])(?:[A-Z][\w-]*[A-Z0-9][\w-]*|[A-Z][a-z][\w-]*)")
# An operator symbol standing alone ("What does the |> operator do?", "`:=`"): two or three
# symbols, or one in quotes or backticks (a lone "|" or "-" separates words in prose).
_OPERATOR = re.compile(rf"(?:(?<=\s)|^)(?P<op>{OPERATOR_CHAR}{{2,3}})(?=$|\s|[,?])"
                       rf"|(?<=[\"'`])(?P<quoted>{OPERATOR_CHAR}{{1,3}})(?=[\"'`])")
_NOT_OPERATORS = frozenset({"--", "---"})  # dashes in prose
# Words that only frame a comparison ("How is X different from Y?"): no sentence has to say them.
_COMPARISON_FRAME = re.compile(r"\b(?:differ(?:s|ent|ence)?|distinct|apart)\s+from\b|\bcompared?\s+(?:to|with)\b|"
                               r"\bas\s+opposed\s+to\b", re.I)
# A comparison asked over dates ("which was effective earlier?"), not over figures.
_TEMPORAL = re.compile(r"\b(earlier|later|earliest|latest|before|after|first|when|date|dated|published|"
                       r"issued|effective|older|newer)\b|早|晚|先|什么时候|何时|日期|发布|生效", re.I)
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_POSSESSIVE = re.compile(r"['’]s$")

# Sub-questions: clause breaks; " and " / " or " only when a question word follows.
_CLAUSE = re.compile(r"[，,；;？?。！!]+|\s+(?:and|or|also)\s+(?=(?:who|what|which|when|where|why|how)\b)", re.I)
_MARKED = re.compile(r"[?？]")
_QUESTION_EN = re.compile(r"\b(who|whom|whose|what|which|when|where|why|how)\b", re.I)
_QUESTION_ZH = re.compile(r"(谁|什么|哪个|哪些|哪里|哪|如何|怎么|怎样|多少|几|何时|吗|是否|为何|为什么)")

OPEN_KIND = "open"  # no row of the table matched: a lookup whose shape is open (slot "fact")


@dataclass(frozen=True)
class Question:
    """What one query (or one part of it) asks.

    Args:
        text: the question as read (a part: its ask with the query's context clauses before it).
        kind: the row of the question-kind table that read it ("how_many", "meaning", ...;
            "open" when none did).
        slot: the kind of fact that answers it (core.vocab.SLOTS).
        unit: what an asked amount is measured in: "money", "time" or "quantity" (a count of
            the `counted` noun); "" when the slot is no amount.
        counted: the noun a count or an amount is of ("PEPs" in "How many PEPs ...?", "leave"
            in "How much leave ...?"), "" when none.
        counts: it asks how many of something there are (not a share or a rate).
        share: it asks for a share, a rate or a percentage.
        subject: what a definition question asks to define, unquoted, lower case ("a wheel",
            "sla"), "" otherwise.
        polarity: "positive" or "negative" for a yes/no question ("Isn't X ...?"), a yes/no
            comparison included ("Does A burn less fuel than B?"), else "".
        direction: for a comparison, the relation its comparative asks of the first side
            ("less" -> "lower", "before" -> "earlier"; questions.directions), else "";
            `comparative` the word it was read from.
        head: the word the slot attaches to ("won" in "Who won X?"; perception/slots.py).
        identifiers: numbered names as written ("PEP 604", "Python 3.16", "Q2 2025").
        names: capitalised words and codes inside the question (not its first word).
        operators: operator symbols written on their own ("|>", ":=").
        options: command-line options and dotted setting keys it writes ("--retry-lock",
            "installer.max-workers"): like an identifier, a source that answers must write them.
        numbers: the numbers it writes ("8" in "PEP 8"); an answer must state another.
        words: its English words, lower case, without a possessive "'s".
        years: the four-digit years it writes.
        signature: the callable whose arguments it asks for ("print"), "" when none.
        code: it asks for configuration, a command or code.
        temporal: a comparison it asks is over dates ("which was effective earlier?").
        terms: the text its search terms are read from (the words framing a comparison,
            "different from", left out).
        ask: the asking clause alone (a part), or the text.
        parts: the sub-questions, one per asking clause, when it asks more than one thing.
    """

    text: str
    kind: str = OPEN_KIND
    slot: str = "fact"
    unit: str = ""
    counted: str = ""
    counts: bool = False
    share: bool = False
    subject: str = ""
    polarity: str = ""
    direction: str = ""
    comparative: str = ""
    head: str = ""
    identifiers: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    years: tuple[str, ...] = ()
    signature: str = ""
    code: bool = False
    temporal: bool = False
    terms: str = ""
    ask: str = ""
    parts: tuple[Question, ...] = field(default_factory=tuple)

    @property
    def length(self) -> int:
        """Its length in words (spaces between)."""
        return len(self.text.split())

    def mentions(self, phrase: str) -> bool:
        """True when the question writes `phrase` (any case): an entity, a keyword, a field label."""
        return phrase.lower() in self.text.lower()

    def writes_name(self, name: str) -> bool:
        """True when the question writes `name` as a whole word, any case ("CACHE_DIR", not the
        "version" in "versions"): a documented name, a setting."""
        return names_option(name, self.text)

    def names_title(self, title: str) -> bool:
        """True when the question names the document of that title (every numbered name it writes
        is in the title, or it writes the title's name part: core.reading.identifiers.names_title)."""
        return names_title(self.text, title)

    def without_phrase(self, phrase: str) -> str:
        """The question's text without `phrase` and the preposition before it ("What did the
        blog announce in March 2024?" without "March 2024": "What did the blog announce?"); the
        text as written when the phrase is empty, absent, or all the question says. The reader
        reads a unit of a document dated inside the query's window with this, since the date
        says the time phrase (orchestration/compose/ranker.py)."""
        if not phrase or not self.mentions(phrase):
            return self.text
        pattern = re.compile(rf"[,\s]*\b(?:(?:in|during|on|from|for|of|since|by|at|between)\s+)?(?:the\s+)?"
                             rf"{re.escape(phrase)}", re.IGNORECASE)
        stripped = " ".join(pattern.sub(" ", self.text, count=1).split())
        stripped = re.sub(r"\s+([?.!,])", r"\1", stripped).lstrip(" ,;:")
        return stripped[:1].upper() + stripped[1:] if stripped.strip(" ?.!,") else self.text

    def to_dict(self) -> dict:
        """The question as JSON-ready data (parts nested)."""
        return {"text": self.text, "kind": self.kind, "slot": self.slot, "unit": self.unit, "counted": self.counted,
                "counts": self.counts, "share": self.share, "subject": self.subject, "polarity": self.polarity,
                "direction": self.direction, "comparative": self.comparative,
                "head": self.head, "identifiers": list(self.identifiers), "names": list(self.names),
                "operators": list(self.operators), "options": list(self.options), "numbers": list(self.numbers),
                "words": list(self.words),
                "years": list(self.years), "signature": self.signature, "code": self.code,
                "temporal": self.temporal, "terms": self.terms, "ask": self.ask,
                "parts": [p.to_dict() for p in self.parts]}

    @classmethod
    def from_dict(cls, data: dict) -> Question:
        """Rebuild a question from `to_dict()` output."""
        tuples = ("identifiers", "names", "operators", "options", "numbers", "words", "years")
        values = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "parts"}
        values.update({k: tuple(data.get(k) or ()) for k in tuples})
        return cls(**values, parts=tuple(cls.from_dict(p) for p in data.get("parts") or ()))


# --- reading ----------------------------------------------------------------------------------

# "If I add a source, does ...?", "When you upgrade, how long ...?": a clause opening with a
# conjunction and its own subject (no inverted auxiliary: "When was ..." is the question) only sets
# the scene; the main clause after its comma says what is asked.
_SCENE_CLAUSE = re.compile(
    r"^\s*(?:if|when|whenever|once|after|before|while|although|unless)\s+"
    r"(?!(?:is|are|was|were|does|do|did|can|could|has|have|had|should|will|would|must|may|shall|"
    r"how|what|which|who|whom|whose|when|where|why)\b)"
    r"[^,?]{3,}?,\s*(?=\S)", re.I)


def main_clause(text: str) -> str:
    """The question without a leading scene-setting clause ("If I add a source, "), or the text."""
    return _SCENE_CLAUSE.sub("", text, count=1)


def question_kind(kinds: tuple[QuestionKind, ...], text: str, action: str, quantitative: bool) -> QuestionKind | None:
    """The first row of the table that reads the text's main clause, or None (an open question)."""
    main = main_clause(text)
    return next((row for row in kinds if row.matches(main, action, quantitative)), None)


def read_question(config: PerceptionConfig, text: str, action: str = "lookup", quantitative: bool = False,
                  head: str = "", ask: str = "") -> Question:
    """The Question one text asks (its parts not split: see `read_query`).

    Args:
        config: the perception config (its question-kind table and unit nouns).
        text: the question (or a part with its context).
        action: Perception's action (rows may match on it).
        quantitative: Perception's quantitative flag (a row may match on it).
        head: the slot's head word (perception/slots.py), read by the caller.
        ask: the asking clause alone, for a part.
    """
    row = question_kind(config.question_kinds, text, action, quantitative)
    slot = row.slot if row else "fact"
    counted = _counted(text)
    unit = _unit(row.unit, text, config) if row and row.unit else ""
    if unit and unit != "money":
        measured = _measured(text)
        # "How much slower ...?" asks for a difference (a share or a figure), not an amount of
        # "slower" (a comparative of actions.implicit_compare.comparatives)
        counted = "" if measured.lower() in config.comparatives.phrases else measured or counted
    counts = bool(_COUNT_QUESTION.search(text))
    return Question(
        text=text, kind=row.kind if row else OPEN_KIND, slot=slot, unit=unit, counted=counted, counts=counts,
        share=bool(_ASKS_SHARE.search(text)), subject=_subject(text) if slot == "definition" else "",
        polarity=_polarity(text) if slot == "yes_no" or _yes_no_comparison(config, text, slot) else "",
        direction=(comparative := _comparative(config, text) if slot == "relation" else ("", ""))[0],
        comparative=comparative[1], head=head,
        identifiers=tuple(dict.fromkeys(m.group(0) for m in IDENTIFIER.finditer(text))),
        names=tuple(w for w in _NAME_WORD.findall(text[1:]) if not CALENDAR_WORD.fullmatch(w)),
        operators=tuple(dict.fromkeys(op for m in _OPERATOR.finditer(text)
                                      if (op := m.group("op") or m.group("quoted")) not in _NOT_OPERATORS)),
        options=options_in(text),
        numbers=tuple(dict.fromkeys(NUMBER_RUN.findall(text))),
        words=tuple(dict.fromkeys(_POSSESSIVE.sub("", w.lower()) for w in _WORD.findall(text))),
        years=tuple(dict.fromkeys(YEAR.findall(text))), signature=_signature(text),
        code=bool(_ASKS_FOR_CODE.search(text) or _ASKS_FOR_SIGNATURE.search(text)),
        temporal=bool(_TEMPORAL.search(text)), terms=_frame_free(text, row), ask=ask or text)


def _frame_free(text: str, row: QuestionKind | None) -> str:
    """The question without the words that only frame it: a comparison's ("different from") and
    its kind's (`frame` in the table: "mean" in "What does X mean?"); no answer has to say them."""
    text = _COMPARISON_FRAME.sub(" ", text)
    for pattern in row.frame if row else ():
        text = pattern.sub(" ", text)
    return text


def read_query(config: PerceptionConfig, text: str, action: str, quantitative: bool, head: str = "") -> Question:
    """The query's Question with its sub-questions (`split_questions`) as parts, each read with
    the same table (as a lookup: the query's action speaks for the whole) and without a head."""
    whole = read_question(config, text, action, quantitative, head)
    split = split_questions(text)
    if len(split) < 2:
        return whole
    parts = tuple(read_question(config, part, "lookup", False, ask=ask) for part, ask in split)
    return Question(**{**{k: getattr(whole, k) for k in Question.__dataclass_fields__}, "parts": parts})


@functools.lru_cache(maxsize=1)
def shipped_config() -> PerceptionConfig:
    """config/perception.yaml (or $SIGHTLINE_CONFIG_DIR's), loaded once: for callers without an agent."""
    return load_config()


def question_of(text: str, action: str = "lookup", quantitative: bool = False) -> Question:
    """The Question a text asks, read with the shipped table (tests and tools; the agent reads
    with its own config and adds the slot's head)."""
    return read_query(shipped_config(), text, action, quantitative)


def split_questions(query: str) -> list[tuple[str, str]]:
    """The query's asking clauses, each as (searchable text, ask): the clauses that ask nothing
    ("发票金额与合同不一致") are context, put before every ask; [(query, query)] when fewer than
    two clauses ask."""
    clauses: list[tuple[str, bool]] = []  # (clause, asks something)
    start = 0
    for match in list(_CLAUSE.finditer(query)) + [None]:
        end = match.start() if match else len(query)
        clause = query[start:end].strip()
        if clause:
            marked = bool(match and _MARKED.search(match.group()))
            clauses.append((clause, marked or bool(_QUESTION_EN.search(clause) or _QUESTION_ZH.search(clause))))
        start = match.end() if match else end
    asking = [c for c, asks in clauses if asks]
    if len(asking) < 2:
        return [(query, query)]
    context = " ".join(c for c, asks in clauses if not asks)
    return [(f"{context} {ask}".strip(), ask) for ask in asking]


def _phrase_noun(match: re.Match | None) -> str:
    """The last noun of a counted phrase: it ends at a function word, an auxiliary or a verb
    form ("How many core developers voted?" -> "developers")."""
    if match is None:
        return ""
    words: list[str] = []
    for word in match.group("phrase").split():
        low = word.lower()
        if low in _FUNCTION_WORDS or low in _AUXILIARY or (words and low.endswith("ed")):
            break
        words.append(word)
    return words[-1] if words else ""


def _counted(text: str) -> str:
    """The noun a count question counts ("PEPs" in "How many PEPs has Guido written?"), or "";
    a unit of measure in the phrase is what is counted ("miles" in "How many miles south of
    San Jose ...?")."""
    match = _COUNTED.search(text)
    measure = next((w for w in match.group("phrase").split() if is_measure(w)), None) if match else None
    return measure or _phrase_noun(match)


def _measured(text: str) -> str:
    """The noun "how much" asks an amount of ("leave" in "How much leave do I earn?"), or ""."""
    return _phrase_noun(_MEASURED.search(text))


def _unit(row_unit: str, text: str, config: PerceptionConfig) -> str:
    """The unit of an asked amount: the row's, or for "noun" the noun after the cue's: money for
    none ("How much does it cost?") or a money word, time for a time word, else quantity."""
    if row_unit != "noun":
        return row_unit
    noun = _measured(text).lower()
    if not noun:
        return "money"
    for unit in ("money", "time"):
        if noun in config.question_units.get(unit, ()):
            return unit
    return "quantity"


def _subject(text: str) -> str:
    """The phrase a definition question asks about, unquoted, lower case ("a wheel", "sla")."""
    asked = _ASKED_SUBJECT.match(text) or _MEANT_SUBJECT.match(text)
    return _QUOTES.sub("", asked.group("subject")).lower() if asked else ""


def _yes_no_comparison(config: PerceptionConfig, text: str, slot: str) -> bool:
    """A comparison asked as a yes/no question ("Does A burn less fuel than B?", "A 比 B 低吗？"):
    the table's yes/no row reads its main clause."""
    if slot != "relation":
        return False
    row = next((r for r in config.question_kinds if r.slot == "yes_no"), None)
    return row is not None and row.matches(main_clause(text), "lookup", False)


def _comparative(config: PerceptionConfig, text: str) -> tuple[str, str]:
    """(the relation the comparison's first comparative asks of its first side, the word as
    written): ("lower", "less"), ("lower", "低"); questions.directions. ("", "") when none."""
    low = text.lower()
    after_bi = low[low.index("比") + 1:] if "比" in low else ""  # Chinese: "A 比 B 低", the word after 比
    found = [(m.start(), name, m.group(0)) for name, words in config.question_directions.items() for word in words
             for m in (re.finditer(rf"(?<![a-z]){re.escape(word)}(?![a-z])", low) if word.isascii()
                       else re.finditer(re.escape(word), after_bi))]
    return min(found)[1:] if found else ("", "")


def _polarity(text: str) -> str:
    """"negative" for a question asking the negative ("Isn't X ...?"), else "positive"."""
    return "negative" if _NEGATED.search(text) else "positive"


def _signature(text: str) -> str:
    """The callable whose arguments the question asks for ("print" in "What arguments does the
    print() function take?"), or ""."""
    match = _ASKS_FOR_SIGNATURE.search(text)
    if match is None:
        return ""
    name = _CALLABLE.search(match.group(0))
    return name.group(1) if name else ""
