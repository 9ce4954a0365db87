"""What a question is about and what would answer it, as the composer and validation both read it.

Everything about the question comes from Perception's reading of it (`perception.question`,
perception/question.py): nothing here matches the question text (tests/test_architecture.py).

- `Focus.of(perception)`: the question's focus terms: its content tokens without question and
  comparison words and without the publications it names (those match metadata, not text),
  split into *names* (tokens of the named things it asks about: Perception's entities, and
  capitalised words or codes inside the question) and *predicate* terms (what it asks about
  them: "acquired", "reimbursement", "length").
- `fills_slot(slot, text, language, asked)`: whether a sentence states a fact of the asked-for
  kind (a number, a date, a duration, an amount, a name, a place, a definition, a procedure step;
  the Question's slot and unit decide which).
- `Focus.coverage(tokens)`: the share of predicate weight a sentence's tokens carry.

Pure and deterministic; tokens are the retrieval tokeniser's (stemmed English, jieba words).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any

from core.reading.dates import YEAR
from core.reading.identifiers import IDENTIFIER
from core.reading.quantities import NUMBER_RUN
from core.reading.units import measure_after
from core.text import CALENDAR_WORD, MONTH_NAME, has_han, is_question
from core.vocab import SUBJECT_LABELS
from orchestration.kb.metadata import document_date
from orchestration.retrieval.same_terms import EQUIVALENT
from orchestration.retrieval.tokenize import STOPWORDS_EN, is_code, tokenize
from perception.question import Question
from perception.types import Perception, TimeWindow

# Question and comparison words (as tokens): they say what is asked, not what to find. The
# composer's scoring weighs them low; the focus leaves them out, with the filler words below.
CUE_TERMS = frozenset({"compar", "versus", "vs", "differ", "differenc", "which", "less", "more",
                       "higher", "lower", "better", "wors", "对比", "比较", "哪个", "多少", "什么",
                       "哪些", "区别", "差异", "怎么", "如何", "是否"})
QUESTION_TERMS = CUE_TERMS | frozenset({
    "what", "who", "whom", "whose", "when", "where", "why", "how", "much", "mani", "long", "doe",
    "did", "do", "tell", "say", "accord", "articl", "report", "mention", "describ", "consid", "inform",
    "base", "provid", "detail", "discuss", "publish", "highlight", "note", "suggest", "indic", "regard",
    "per", "each", "also", "ever", "still", "exact", "actual", "current",
    "can", "could", "would", "should", "may", "might", "must", "go",  # modals and "going to"
    # the asker and the one asked ("How do I ...?", "Can we ...?", "your key"): documents write
    # instructions without them ("Run poetry completions zsh"), so no answer has to say them
    "i", "me", "my", "we", "us", "our", "you", "your",
    "谁", "哪里", "何时", "吗", "呢", "请问", "应该", "可以", "需要", "处理",
})
# What the tokenizer leaves of an English clitic ("Poetry's" -> "poetri", "s"; "don't" -> "don",
# "t"): no word of the question, so no term an answer must carry.
CLITICS = frozenset({"s", "t", "d", "ll", "re", "ve", "m"})
NUMBER_WORD = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
                r"forty|fifty|sixty|hundred|thousand|million|billion|half|dozen)")
_CN_NUMBER = r"[0-9０-９一二两三四五六七八九十百千万亿]"
UNIT_OF_TIME_EN = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centur(?:y|ies))"

_SLOT_EN: dict[str, re.Pattern] = {
    "number": re.compile(rf"\d|\b{NUMBER_WORD}\b", re.I),
    "amount": re.compile(rf"[$€£¥]\s?\d|\d[\d,.]*\s?(?:%|percent|usd|eur|gbp|cny|rmb|dollars?|euros?|pounds?|"
                         rf"yuan|cents?|k\b|m\b|bn\b)|\b(?:usd|eur|gbp|cny|rmb)\s?\d|\b{NUMBER_WORD}\s+"
                         rf"(?:dollars?|euros?|pounds?|percent)\b", re.I),
    "duration": re.compile(rf"(?:\d+|\b{NUMBER_WORD})[\s-]*(?:{UNIT_OF_TIME_EN}|[a-z]{{2,}})\b|"
                           rf"\b(?:permanent(?:ly)?|indefinite(?:ly)?|forever|until)\b", re.I),
    "date": re.compile(rf"\b(?:1[6-9]|20)\d\d\b|\b{MONTH_NAME}\b\.?\s*\d|\b\d{{1,2}}\s+{MONTH_NAME}\b|\d{{4}}-\d{{2}}|"
                       rf"\b(?:yesterday|today|last|next)\s+(?:week|month|year)\b", re.I),
    "actor": re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:[ -][A-Z][\w'-]+)*|\b[A-Z]{2,}\b|"
                        r"\b(?:team|department|office|director|manager|committee|council|board|owner|officer|"
                        r"controller|engineer|author|founder|company|group|steering|maintainers?|core devs?|"
                        r"developers?|delegate|bdfl|president|ceo|chair)\b"),
    "place": re.compile(r"(?<!^)\b[A-Z][a-z]+(?:[ ,-]+[A-Z][a-z]+)*|\b(?:city|country|state|province|stadium|"
                        r"headquarter\w*|located|based in)\b"),
    "definition": re.compile(r"\b(?:is|are|was|were)\s+(?:an?|the|one)\b|\brefers?\s+to\b|\bmeans?\b|"
                             r"\bdefined\s+as\b|\bis\s+(?:used(?!\s+(?:in\s+place|instead)\s+of\b)|called|known)\b|"
                             r":\s", re.I),
    "procedure": re.compile(r"\b(?:first|then|next|after|before|finally|step|must|should|need to|run|use|call|"
                            r"set|add|create|install|import|open|select|click|reset|press|submit|send|contact|"
                            r"replace|remove|check|ensure|write|define|pass)\b|^\s*(?:\d+[.)]|[-*])\s", re.I),
}
_SLOT_ZH: dict[str, re.Pattern] = {
    "number": re.compile(rf"{_CN_NUMBER}"),
    "amount": re.compile(rf"{_CN_NUMBER}+\s*(?:元|美元|万元|亿元|块|%|％|百分之)|[$￥¥]\s?\d|百分之"),
    "duration": re.compile(rf"{_CN_NUMBER}+\s*(?:个)?(?:秒|分钟|小时|天|日|周|星期|个月|月|年)|永久|长期"),
    "date": re.compile(rf"\d{{4}}\s*年|{_CN_NUMBER}+\s*月\s*{_CN_NUMBER}*\s*日?|\d{{4}}-\d{{2}}"),
    "actor": re.compile(r"部|组|委员会|总监|经理|会计|负责|工程师|主管|办公室|中心|公司|团队|[A-Z][a-z]+"),
    "place": re.compile(r"省|市|县|国|州|城|区|位于|举办|[A-Z][a-z]+"),
    "definition": re.compile(r"是|指|即|称为|定义"),
    "procedure": re.compile(r"先|然后|随后|之后|完成后|须|应|需|步骤|提交|联系|检查|更换|重置|按"),
}
# A day named relative to the text's own date ("Lantern 1.0 ships today"): it states a date when
# the document carries its publication date, which the citation shows next to it.
_DEICTIC_DATE = {
    "en": re.compile(r"\b(?:today|yesterday|tomorrow|tonight|this\s+(?:morning|afternoon|evening|week))\b", re.I),
    "zh": re.compile(r"今天|今日|昨天|昨日|明天|本周|日前|近日"),
}
CONTEXT_CREDIT = 0.5
# A header field stated as a line ("Status: Active.", "PEP 8 – Created: 05-Jul-2001."): its colon
# introduces a value, not a definition.
FIELD_LINE = re.compile(r"^(?:[^:.]{0,40}\s[–-]\s)?(?P<label>[A-Z][\w-]{0,30}):\s")
# Slots any sentence on the focus can fill (the answer is the statement itself).
OPEN_SLOTS = frozenset({"fact", "yes_no", "list", "relation"})


# "How often" (the question's kind how_often) asks for a recurrence, which a sentence states with these words.
_RECURRENCE = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+|few\s+|\d+\s+|{NUMBER_WORD}\s+)?(?:{UNIT_OF_TIME_EN}|quarters?|{MONTH_NAME})\b|"
    r"\b(?:once|twice|\w+\s+times)\s+(?:a|per|each)\b|\bper\s+(?:day|week|month|quarter|year)\b|"
    r"\b(?:hourly|daily|weekly|fortnightly|monthly|quarterly|annual(?:ly)?|yearly|biennial(?:ly)?|"
    r"semi-?annual(?:ly)?|periodically)\b", re.I)

# A count question (the question `counts`) is not answered by a percentage.
_PERCENTAGE = re.compile(r"\d[\d,.]*(?:\s*(?:-|–|to)\s*\d[\d,.]*)?\s*(?:%|percent\b|per\s*cent\b)", re.I)
_COUNT = re.compile(rf"{NUMBER_RUN.pattern}|\b{NUMBER_WORD}\b", re.I)
_COUNTS_WHAT_WAS_NAMED = re.compile(r"\s+of\s+(?:them|these|those)\b", re.I)
# "... is 12." / "PEPs written by Guido: 25.": the number is what the clause states
_STATED_COUNT = re.compile(r"(?:\b(?:is|are|was|were|totals?|totalled)|:)\s*$", re.I)
_CLAUSE_END = re.compile(r"\s*(?:[.;!?]|$)")
COUNT_WINDOW = 3  # words either side of a number that may name what it counts ("45 votes", "votes: 45")


def counts_noun(text: str, noun: str, measured: bool = True) -> bool:
    """True when a number in `text` counts `noun`: the noun (a form of it, or a word that says the
    same) stands within COUNT_WINDOW words of it, or the number counts what was just named ("12 of
    them") or is what the clause states ("... is 12.", "written by Guido: 25."). "two authors of
    this PEP" counts no PEPs, nor does "a special number, like 666 or 3141)" count authors; a
    number written with a unit of measure measures it ("25 minutes"), unless that is the noun;
    `measured=False` (a count: "how many talks") leaves such numbers out, while "how much dust"
    is answered by "182 million tons of dust"."""
    wanted = tokenize(noun)
    for match in _COUNT.finditer(text):
        unit = "" if measured else measure_after(text, match.end())
        if unit and not any(present(term, set(tokenize(unit))) for term in wanted):
            continue  # "Talks are 25 minutes long": 25 measures minutes; it counts no talks
        if _COUNTS_WHAT_WAS_NAMED.match(text, match.end()) or (
                _CLAUSE_END.match(text, match.end()) and _STATED_COUNT.search(text[:match.start()])):
            return True
        near = set(tokenize(" ".join(text[:match.start()].split()[-COUNT_WINDOW:] +
                                     text[match.end():].split()[:COUNT_WINDOW])))
        if any(present(term, near) for term in wanted):
            return True
    return False


# Code written inside a sentence: an operator between operands ("int | str", "x := 5", "a -> b"),
# a subscript or a call with arguments ("Union[int, str]", "print(x, sep='')"), a dotted call.
_CODE_OPERATION = re.compile(r"(?P<left>[\w\])]+)\s*(?:\||->|:=|==|!=|\*\*|//|<<|>>)\s*(?P<right>[\w\[(]+)")
_CODE_ACCESS = re.compile(r"\b[A-Za-z_]\w*\[[^\]\s][^\]]*\]|\b[A-Za-z_][\w.]*\((?:[^()]*\w[^()]*)\)")


def writes_code(text: str) -> bool:
    """True when a sentence (or a code block) writes code, as an answer to "what is the syntax
    for ..." must: "With this new operator, it is possible to write int | str instead of
    Union[int, str]." does; "The new union syntax should be accepted for annotations." and
    "typing.Union and | syntax" (an operator named between English words) do not."""
    if _CODE_ACCESS.search(text):
        return True
    return any(m.group("left").lower() not in STOPWORDS_EN and m.group("right").lower() not in STOPWORDS_EN
               for m in _CODE_OPERATION.finditer(text))


def fills_slot(slot: str, text: str, language: str = "en", asked: Question | None = None, lenient: bool = False,
               published: bool = False) -> bool:
    """True when `text` states a fact of the kind `slot` asks for (always for OPEN_SLOTS).

    `asked` is the question as Perception read it (perception/question.py); nothing here reads its
    text. An amount of time or of a noun ("How much leave ...?", its `unit`) is filled by a
    duration or by a number counting the noun, not only by money.
    Numbers the question itself writes (`asked.numbers`: "PEP 8", "in 2019") are not an answer: they are
    blanked out of `text` before a number, amount, duration or date is looked for; so are its
    words before an English name or place is looked for (the answer names someone new). `lenient`
    (validation's reading) accepts any Chinese sentence for a name or place: Chinese names carry
    no mark a pattern can see, so only the composer's ranking uses the pattern there.
    `published`: the sentence's document carries its publication date, so "today" or "yesterday"
    in it names a date."""
    if slot in OPEN_SLOTS:
        return True
    if slot == "date" and published and _DEICTIC_DATE["zh" if language == "zh" else "en"].search(text):
        return True
    if asked is not None and slot == "amount" and (asked.unit == "time" or asked.unit == "quantity" and asked.counted):
        # "How much leave do I earn?": days of leave answer it, no sum of money is asked for; "how
        # much memory": a number counting memory. "How much faster" (no noun) keeps the amount
        # pattern: a share or a figure with its unit.
        if asked.unit == "quantity" and language != "zh" and not counts_noun(text, asked.counted):
            return False
        slot = "duration" if asked.unit == "time" else "number"
    if asked is not None and slot in ("number", "amount", "duration", "date"):
        for number in asked.numbers:
            text = re.sub(rf"(?<![\d.,]){re.escape(number)}(?![\d]|[.,]\d)", " ", text)
    if asked is not None and asked.words and slot in ("actor", "place") and language != "zh":
        text = _blank_asked_words(text, frozenset(asked.words))
    if slot == "duration" and language != "zh" and asked is not None and asked.kind == "how_often":
        return bool(_RECURRENCE.search(text))  # "every twelve months", "annually"; not "seven months are spent"
    if slot == "number":
        text = IDENTIFIER.sub(" ", text)  # "PEP 8", "Python 3.12" name things; they count nothing
        if language != "zh" and asked is not None and asked.counts and not asked.share:
            text = _PERCENTAGE.sub(" ", text)  # "how many threads": "15-20% more memory" counts none
            if asked.counted and not counts_noun(text, asked.counted, measured=False):
                return False
    field = FIELD_LINE.match(text) if slot == "definition" else None
    if field and (asked is None or not asked.mentions(field.group("label"))):
        text = text[field.end():]  # "PEP 1 – Status: Active." defines nothing; "Wheel: a format" may
    table = _SLOT_ZH if language == "zh" else _SLOT_EN
    pattern = table.get(slot)
    if pattern is None:
        return True
    if slot in ("actor", "place"):
        if language == "zh":
            return lenient or bool(pattern.search(text))
        # a capitalised word that only opens the sentence is a name unless it is a common word
        # ("The", "After"): "Facebook acquired WhatsApp" names Facebook
        opener = re.match(r"[A-Z][a-z]+\b", text)
        if opener and opener.group(0).lower() not in STOPWORDS_EN and not CALENDAR_WORD.fullmatch(opener.group(0)) \
                and not _discourse_opener(text, opener):
            return True
        return bool(pattern.search(text[1:] if text[:1].isupper() else text))
    return bool(pattern.search(text))


def _discourse_opener(text: str, opener: re.Match[str]) -> bool:
    """The sentence opens with a function word set off by a comma ("However, ...", "Otherwise,
    ..."): a connective, no name."""
    return text[opener.end():opener.end() + 1] == "," and opener.group(0).lower() in _function_words()


@functools.cache
def _function_words() -> frozenset[str]:
    """spaCy's English stop list (function words and sentence adverbs: "however", "otherwise",
    "meanwhile"), read on first use: spaCy loads with Perception anyway."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@functools.lru_cache(maxsize=8192)
def _years(text: str) -> frozenset[str]:
    """The four-digit years a text writes (1600-2099)."""
    return frozenset(YEAR.findall(text))


def _blank_asked_words(text: str, words: frozenset[str]) -> str:
    """`text` with the words the question itself writes (`Question.words`) blanked out (case
    ignored): "Who is the director of Avatar?" is not answered by "The director of Avatar ..."
    naming nobody new."""
    return re.sub(r"[A-Za-z][\w'’-]*", lambda m: "_" if _bare(m.group(0)) in words else m.group(0), text)


def _bare(word: str) -> str:
    """A word in lower case without a possessive ending ("Vanguard's" -> "vanguard")."""
    return re.sub(r"['’]s$", "", word.lower())


@dataclass(frozen=True)
class Focus:
    """A question's focus terms.

    Attributes:
        names: tokens of the named things asked about (people, organisations, products, codes).
        predicate: the other content tokens, each with its weight (codes and rare-looking terms 1.0).
        identifiers: a name with its number as the question writes it ("PEP 604", "Python 3.16",
            "Season 17"): the one thing asked about, which a source must name as such.
        periods: numbered names that are the question's time phrase ("Q1 2021"): an undated
            source must name them, a dated one is the freshness check's.
        slot: the asked-for slot (core.vocab.SLOTS).
        language: the question's language.
        question: the question (or sub-question) the focus was read from, as Perception read it.
        head: the token of the word the slot attaches to ("won" in "Who won X?"; Perception's
            `slot_head`), "" when the question has none: a sentence answers only if it carries it.
        operators: operator symbols the question writes on their own ("|>", ":=", "**"): like an
            identifier, the one thing asked about, which a source must write (`names_operator`).
        options: command-line options and setting keys the question writes ("--retry-lock"):
            the same, written whole (`names_option`).
        dated_terms: the words of the question's time phrase ("march", "2024"): a source dated
            inside the query's window says them by its date (`said_by_date`).
        window: the query's time window (None without one).
    """

    names: tuple[str, ...]
    predicate: dict[str, float]
    slot: str
    language: str
    identifiers: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()
    head: str = ""
    question: Question = field(default_factory=lambda: Question(""))
    operators: tuple[str, ...] = ()
    dated_terms: frozenset[str] = frozenset()
    options: tuple[str, ...] = ()
    window: TimeWindow | None = None

    @classmethod
    def of(cls, perception: Perception, part: Question | None = None) -> Focus:
        """The focus of the perceived query (or of `part`, one of its sub-questions), from what
        Perception read of it (`perception.question`): this never reads the question text."""
        question = perception.question if part is None else part
        skip: set[str] = set()
        names: list[str] = []
        for entity in perception.entities:
            if not question.mentions(entity.text):
                continue
            tokens = tokenize(entity.text)
            if entity.label == "SOURCE":
                skip.update(tokens)
            elif entity.label in SUBJECT_LABELS:
                names += [t for t in tokens if t not in names]
        for word in question.names:  # names the entity rules did not know (WhatsApp)
            names += [t for t in tokenize(word) if t not in names and t not in skip and t not in QUESTION_TERMS]
        window = perception.constraints.time
        said = window.text.lower() if window is not None else ""
        predicate = {t: 1.0 for t in tokenize(question.terms or question.text)
                     if t not in QUESTION_TERMS and t not in skip and t not in names and t not in CLITICS}
        # a numbered name that is the question's time phrase ("Q2 2025") is the freshness check's
        numbered = question.identifiers
        identifiers = tuple(i for i in numbered if i.lower() not in said)
        periods = tuple(i for i in numbered if i.lower() in said)
        # an identifier is matched as a whole (PEP604 has no token "pep"); its tokens are not names
        spelled = {t for i in numbered for t in tokenize(i)}
        names = [n for n in names if n not in spelled]
        head_tokens = tokenize(question.head) if question.head else []
        # the words of the question's time phrase ("in March 2024"): a document dated inside the
        # window says them by its date (validation's term coverage counts them there)
        dated_terms = frozenset(tokenize(said)) if said and question.mentions(said) else frozenset()
        return cls(tuple(names), predicate, question.slot, perception.language, identifiers, periods,
                   head_tokens[0] if head_tokens else "", question, question.operators, dated_terms,
                   question.options, window)

    def said_by_date(self, metadata: Mapping[str, Any]) -> frozenset[str]:
        """The words of the question's time phrase when the document of `metadata` (a chunk's) is
        dated inside the query's window, else none: a post dated March 2024 answers "What did the
        blog announce in March 2024?" without writing "March 2024" (retrieval filtered by the
        window, and the freshness check judges the date)."""
        if not self.dated_terms or self.window is None:
            return frozenset()
        try:
            day = document_date(dict(metadata))
        except (TypeError, ValueError):
            return frozenset()
        return self.dated_terms if day is not None and self.window.contains(day) else frozenset()

    @property
    def wants_code(self) -> bool:
        """The question asks for syntax, configuration or a command (`Question.code`)."""
        return self.language != "zh" and self.question.code

    @property
    def total(self) -> float:
        """The predicate weight (0 when the question has no predicate terms)."""
        return sum(self.predicate.values())

    def coverage(self, tokens: Iterable[str], context: Iterable[str] = ()) -> float:
        """The share of predicate weight present in `tokens` (1.0 for a question without predicate).

        A term found only in `context` (the sentence's chunk) counts CONTEXT_CREDIT of its weight:
        the chunk may state what the sentence leaves implicit ("per block hour" two lines up).
        A code matches a longer code (A320 ~ a320neo); a term matches a token it prefixes by at
        least 5 letters (stems: "reimburs" ~ "reimbursement").
        """
        if not self.predicate:
            return 1.0
        have, around = set(tokens), set(context)
        have_index, around_index = StemIndex(have), StemIndex(around)
        found = 0.0
        for term, weight in self.predicate.items():
            if present(term, have, have_index):
                found += weight
            elif around and present(term, around, around_index):
                found += CONTEXT_CREDIT * weight
        return found / self.total

    def answered_by(self, text: str, tokens: Iterable[str], language: str | None = None, lenient: bool = False,
                    published: bool = False, context: Iterable[str] = ()) -> bool:
        """True when a sentence states the asked-for kind of fact (`fills_slot`, the question's own
        numbers and words not counting) and carries the slot's head (`tokens`: the sentence's, with
        its chunk title's; or `context`, its chunk's: "5 people" in a chunk on council members).
        Never a sentence that is itself a question, nor one that states only years other than the
        one the question asks about. Always True for an open slot."""
        if self.slot in OPEN_SLOTS:
            return True
        if is_question(text) or self._other_year(text):
            return False
        if not (self.carries_head(tokens) or (context and self.carries_head(context))
                or self.author_field(text)):
            return False
        return fills_slot(self.slot, text, language or self.language, self.question, lenient=lenient,
                          published=published)

    def author_field(self, text: str) -> bool:
        """A document's author field ("PEP 8016 – Author: Nathaniel J. Smith, Donald Stufft.")
        answers "who wrote / proposed X" when the document is X: its authors wrote and proposed it."""
        return self.slot == "actor" and asks_author(self.head) and is_author_field(text)

    def _other_year(self, text: str) -> bool:
        """The sentence states years, none of them a year the question asks about: it reports
        another season, edition or quarter ("won the 2019 Open" for "Who won the Open in 2020?")."""
        asked = frozenset(self.question.years)
        if not asked:
            return False
        stated = _years(text)
        return bool(stated) and stated.isdisjoint(asked)

    def head_in(self, token_sets: Iterable[Iterable[str]]) -> Focus:
        """This focus, or the same without its head when none of `token_sets` (the evidence's
        sentences) carries it. The composer ranks with it, so that it still prefers sentences
        filling the slot when the documents never use the question's word; validation does
        not: an answer no evidence states the head of is not an answer."""
        if not self.head or any(self.carries_head(tokens) for tokens in token_sets):
            return self
        return replace(self, head="")

    def defines_subject(self, text: str) -> bool:
        """For a definition question: the sentence names every term of the question before its
        first defining words ("A wheel is a ZIP-format archive", "The term "PEP-Delegate" is used
        for ..."), so what it defines is what was asked, not something it relates the term to
        ("The term "BDFL-Delegate" is a deprecated alias for PEP-Delegate")."""
        if self.slot != "definition" or self.language == "zh":
            return False
        terms = set(self.names) | set(self.predicate)
        cue = _SLOT_EN["definition"].search(text)
        return cue is not None and bool(terms) and terms <= set(tokenize(text[:cue.start()]))

    def carries_head(self, tokens: Iterable[str]) -> bool:
        """True when `tokens` hold the slot's head word, a form of it or a word that says the same
        ("won" ~ "winner", "acquired" ~ "bought"); always True for a question without a head."""
        return not self.head or present(self.head, set(tokens))

    def spellings(self) -> dict[str, str]:
        """Each search term (a stem: "configur") as the question wrote it ("configure"), for a
        reader of the terms or a lookup by word; the first word that yields a term wins."""
        written: dict[str, str] = {}
        for word in self.question.words:
            for term in tokenize(word):
                written.setdefault(term, word)
        return written

    def missing(self, tokens: Iterable[str]) -> list[str]:
        """The predicate terms absent from `tokens`, in question order."""
        have = set(tokens)
        return [t for t in self.predicate if not present(t, have)]


# What a document's author did to it, as a question's slot head says it ("Who proposed X?")
_AUTHOR_WORDS = ("author", "authored", "wrote", "write", "written", "writer", "propose", "proposed", "proposes",
                 "proposer", "draft", "drafted")
AUTHOR_HEADS = frozenset(_AUTHOR_WORDS) | frozenset(t for word in _AUTHOR_WORDS for t in tokenize(word))


def asks_author(head: str) -> bool:
    """True when an actor question's head word (as written, or its token) asks who wrote or
    proposed something."""
    return head.lower() in AUTHOR_HEADS


def is_author_field(text: str) -> bool:
    """True for a header field line giving a document's authors ("PEP 8016 – Author: ...")."""
    field = FIELD_LINE.match(text)
    return field is not None and field.group("label").lower() in ("author", "authors")


def present(term: str, tokens: AbstractSet[str], index: StemIndex | None = None) -> bool:
    """The term, a word that says the same (`orchestration.retrieval.same_terms`) or a token
    related to it (see `_related`) is among `tokens`.

    The term's kind is read once, not once per token, and a stem is looked up by its first five
    letters (`index`, built once per token set), not by scanning every token: this runs for
    every predicate term of every candidate sentence.
    """
    if term in tokens or not tokens.isdisjoint(EQUIVALENT.get(term, ())):
        return True
    kind = _term_kind(term)
    if kind == "code":
        return any(t.startswith(term) for t in tokens)
    if kind == "stem":
        # a 5+ letter token the term starts with ("reimburs" ~ "reimb..."), or one starting with it
        if any(term[:k] in tokens for k in range(5, len(term))):
            return True
        return any(t.startswith(term) for t in (index or StemIndex(tokens)).starting(term[:5]))
    if kind == "han":
        return any(_han_related(term, t) for t in tokens)
    return False


class TermMatches:
    """`present()` for fixed terms over many token sets drawn from one vocabulary.

    The tokens of `vocabulary` related to each term are found once, through prefix indexes, so
    asking whether a term is present in a token set is one set intersection. A token set may
    hold words outside the vocabulary: those are read with `present()` itself. Promise: a term
    given is in `present_in(tokens)` exactly when `present(term, tokens)`. The answer model's
    features ask this for ~20 terms of a question in four sets of each of hundreds of units.
    """

    def __init__(self, terms: Iterable[str], vocabulary: AbstractSet[str]) -> None:
        self.vocabulary = vocabulary
        by_prefix: dict[str, list[str]] = {}  # first five letters (stems, code), first two (Han)
        for token in vocabulary:
            if len(token) >= 5:
                by_prefix.setdefault(token[:5], []).append(token)
            if len(token) >= 2 and has_han(token):
                by_prefix.setdefault(token[:2], []).append(token)
        self.hits = {term: self._related(term, by_prefix) for term in terms}

    def _related(self, term: str, by_prefix: dict[str, list[str]]) -> frozenset[str]:
        vocabulary = self.vocabulary
        hits = {term} & vocabulary | vocabulary & set(EQUIVALENT.get(term, ()))
        kind = _term_kind(term)
        if kind == "code":
            starting = by_prefix.get(term[:5], []) if len(term) >= 5 else vocabulary
            hits.update(t for t in starting if t.startswith(term))
        elif kind == "stem":
            hits.update(term[:k] for k in range(5, len(term)) if term[:k] in vocabulary)
            hits.update(t for t in by_prefix.get(term[:5], []) if t.startswith(term))
        elif kind == "han" and len(term) >= 2:
            hits.update(term[:k] for k in range(2, len(term) + 1) if term[:k] in vocabulary)
            hits.update(t for t in by_prefix.get(term[:2], []) if t.startswith(term))
        return frozenset(hits)

    def present_in(self, tokens: AbstractSet[str]) -> set[str]:
        """The terms given to the constructor that `present(term, tokens)` finds in `tokens`."""
        outside = tokens - self.vocabulary
        return {term for term, hits in self.hits.items()
                if not hits.isdisjoint(tokens) or (outside and present(term, outside))}


class StemIndex:
    """The 5+ letter tokens of a set by their first five letters, built on first use."""

    def __init__(self, tokens: AbstractSet[str]) -> None:
        self.tokens = tokens
        self.by_prefix: dict[str, list[str]] | None = None

    def starting(self, prefix: str) -> list[str]:
        """The tokens of 5+ letters whose first five letters are `prefix`."""
        if self.by_prefix is None:
            self.by_prefix = {}
            for token in self.tokens:
                if len(token) >= 5:
                    self.by_prefix.setdefault(token[:5], []).append(token)
        return self.by_prefix.get(prefix, [])


@functools.lru_cache(maxsize=65536)
def _term_kind(term: str) -> str:
    """"code", "han", "stem" (a 5+ letter word) or "short" (related to nothing but itself)."""
    if is_code(term):
        return "code"
    if has_han(term):
        return "han"
    return "stem" if len(term) >= 5 else "short"


def _han_related(term: str, token: str) -> bool:
    """Two Chinese words one of which (2+ characters) starts the other."""
    shorter, longer = sorted((term, token), key=len)
    return len(shorter) >= 2 and longer.startswith(shorter)


def _related(term: str, token: str) -> bool:
    """A code and its longer form, two stems sharing a 5+ letter prefix, or two Chinese words one
    of which (2+ characters) starts the other (举办 ~ 举办地)."""
    if is_code(term):
        return token.startswith(term)
    if has_han(term):
        return _han_related(term, token)
    return len(term) >= 5 and len(token) >= 5 and (token.startswith(term) or term.startswith(token))
