"""Hard negatives by rule (issue 36, item 2): an answerable question rewritten by a template so
that its own evidence no longer answers it.

  swap_entity       a name the question and the evidence write (the product, an option, a key, a
                    setting, a code, a capitalised name in a role: name_pool.py), replaced by one
                    of the same shape from the same corpus that the evidence does not write
                    ("Which flag does pytest use ..." -> "... does tox use ...")
  change_number     a year, version or numbered name the question and the evidence write, replaced
                    by a near one the evidence does not write ("in Python 3.12" -> "in Python
                    3.13"); never a count, a value or a number bounding a range ("slowest 10
                    tests", "=404", "after 1990", "1990年以后")
  negate            a word of the asking clause replaced by its opposite when the evidence writes
                    the word and never the opposite ("Which option enables X?" -> "... disables X?")
  other_slot        a simple past question's clause asked for a date or a count the evidence does
                    not state ("Which artist did Beyonce marry?" -> "When did Beyonce marry Jay Z?")
  neighbour_option  the same property (a default, the allowed values) asked of the nearest setting
                    of the same shape the page names without stating it (page_settings.py)

Each variant carries what must stay true of an evidence for it to be unanswerable there: phrases
the evidence does not write (`absent`), a slot it does not fill (`slot`: orchestration.focus
`fills_slot` with Perception's reading of the variant), a setting whose property it does not
state (`unstated`). `unanswered(negative, evidence)` checks them, on the evidence the rule was
given or on any other (the evidence a training loop retrieves). Texts are compared as
evaluation.docsets `normalise` folds them. Chinese questions get swap_entity and change_number only.
Deterministic: a choice among candidates is seeded by the question id and the rule.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from core.reading.identifiers import names_option
from core.text import has_han
from orchestration.focus import fills_slot
from perception.question import Question, main_clause, question_of

from ..docsets import normalise
from .name_pool import NamePool, chinese_names, english_names, pick, shape
from .page_settings import aliases, settings, states

RULES = ("swap_entity", "change_number", "negate", "other_slot", "neighbour_option")
ZH_RULES = ("swap_entity", "change_number")
NEAREST = 4  # a choice is made among the first few candidates: the nearest numbers, the same group's names
ZH_SEEN = 2  # a Chinese name is drawn only when jieba tagged it so in two questions or answers at least


@dataclass(frozen=True)
class Answered:
    """An answerable question with the evidence that answers it (a paragraph, a documentation page).

    `corpus` is where names for a swap are drawn from, `group` (an article, a page) the part of it
    drawn from first, `product` the documented project's own name ("" when none)."""

    id: str
    text: str
    answers: tuple[str, ...]
    evidence: str
    language: str = "en"
    corpus: str = ""
    group: str = ""
    product: str = ""


@dataclass(frozen=True)
class Negative:
    """An unanswerable variant of an answerable question, against the same evidence.

    `replaced` is what the rule took out of the question and `inserted` what it put in; `absent`,
    `slot` and `unstated` what an evidence must not write, fill or state (`unanswered`)."""

    id: str
    source_id: str
    rule: str
    text: str
    language: str
    replaced: str
    inserted: str
    absent: tuple[str, ...] = ()
    slot: str = ""
    unstated: tuple[str, ...] = ()  # (a setting, the words that would state its property)


# --- the check --------------------------------------------------------------------------------------

_folded = functools.lru_cache(maxsize=4096)(normalise)  # an evidence is read by many checks


def writes(text: str, phrase: str) -> bool:
    """True when `text` writes `phrase`, both folded by `normalise`: a number as a whole number
    ("3.9" is not in "3.95"), Chinese as a substring, anything else as a whole word or name."""
    hay, needle = _folded(text), normalise(phrase)
    if not needle:
        return False
    if re.fullmatch(r"\d+(?:[.,]\d+)*", needle):
        return re.search(rf"(?<![\d.,]){re.escape(needle)}(?!\d|[.,]\d)", hay) is not None
    if has_han(needle):
        return needle in hay
    return names_option(needle, hay)


def _fills(slot: str, evidence: str, negative: Negative) -> bool:
    """Whether the evidence states the kind of fact the variant asks for; a count is stated by any
    number (a count of something else could answer "how many times")."""
    asked = question_of(negative.text)
    if slot == "number":
        asked = replace(asked, counts=False)
    return fills_slot(slot, evidence, negative.language, asked=asked)


def unanswered(negative: Negative, evidence: str) -> bool:
    """True when the evidence leaves the variant unanswered: it writes none of `absent`, does not
    fill `slot`, and does not state the property of the `unstated` setting (page_settings.states)."""
    if any(writes(evidence, phrase) for phrase in negative.absent):
        return False
    if negative.slot and _fills(negative.slot, evidence, negative):
        return False
    if negative.unstated:
        name, *words = negative.unstated
        return not states(evidence, name, tuple(words))
    return True


def _negative(question: Answered, rule: str, text: str, replaced: str, inserted: str, **check) -> Negative:
    return Negative(f"{question.id}#{rule}", question.id, rule, text, question.language, replaced, inserted, **check)


def _swap(text: str, old: str, new: str, start: int | None = None) -> str:
    """`text` with `old` replaced by `new` once: at `start`, or where it first stands as a word."""
    if start is None:
        found = re.search(rf"(?<![\w-]){re.escape(old)}(?![\w-])", text) if not has_han(old) else None
        start = found.start() if found else text.find(old)
    return text[:start] + new + text[start + len(old):]


# --- swap the asked entity --------------------------------------------------------------------------

def _as_cased(new: str, old: str) -> str:
    """`new` in the case the question wrote `old` in (a product: "Starlette", "starlette")."""
    return new[:1].upper() + new[1:] if old[:1].isupper() and new.islower() else new


def _name_parts(name: str) -> tuple[str, ...]:
    """The words of a multi-word English name (three letters at least): the evidence writing
    "Rowland" may be about "Kelly Rowland"."""
    words = name.split()
    return tuple(w for w in words if len(w) >= 3) if len(words) > 1 else ()


def _swappable(candidate: str, name: str, kind: str, question: Answered) -> bool:
    """A candidate may replace `name`: it shares no word with it, a key keeps its first part
    ("profile.dev" for "profile.release", not "crates.io"), and neither the question nor the
    evidence writes it, whole or a word of it."""
    if {w.lower() for w in name.split()} & {w.lower() for w in candidate.split()} or name.lower() in candidate.lower():
        return False
    if kind == "key" and candidate.split(".")[0] != name.split(".")[0]:
        return False
    return not any(writes(question.evidence, part) or writes(question.text, part)
                   for part in (candidate, *_name_parts(candidate)))


def swap_entity(question: Answered, asked: Question, pool: NamePool) -> Negative | None:
    """The first name the question and the evidence both write (a run of capitalised words only in
    a role: name_pool `_role`; not the word of a numbered name nor the counted noun), swapped for
    one of the same shape from the corpus (its group first; Chinese: one seen ZH_SEEN times,
    jieba's tags are noisy) that may replace it (`_swappable`)."""
    named = chinese_names(question.text) if question.language == "zh" else \
        english_names(question.text, asked, question.product)
    numbered = {w.lower() for identifier in asked.identifiers for w in identifier.split()}
    seen = ZH_SEEN if question.language == "zh" else 1
    for name, kind in named:
        if kind.startswith("name") and ":" not in kind or name.lower() in numbered or name == asked.counted \
                or not writes(question.evidence, name):
            continue  # a name in no role ("coastal Antarctica") has no kind to keep; "Python" of "Python
            # 3.12" is changed with its number; "Grammys" of "how many Grammys" is what is counted
        fitting = (c for c in pool.candidates(question.corpus, kind, question.group, seen)
                   if _swappable(c, name, kind, question))
        options = list(itertools.islice(fitting, NEAREST))
        if options:
            new = _as_cased(pick(options, f"{question.id}:swap_entity"), name)
            return _negative(question, "swap_entity", _swap(question.text, name, new), name, new,
                             absent=(new, *_name_parts(new)))
    return None


# --- change the asked number or version -------------------------------------------------------------

_NUMBER = re.compile(r"(?<![A-Za-z0-9_.,:/-])\d+(?:\.\d+)*(?![A-Za-z_:/-]|[.,]?\d)")  # not in "3:2", "1/2"
# A number bounding a range or written as a value ("after 1990", "at least 3", "~1.2", "=404",
# "1990年以后", "70至80"): another number could fall in the same range or follow the same rule.
_BOUND_BEFORE = re.compile(r"(?:\b(?:after|before|since|until|till|over|under|above|below|within|than|least|most|"
                           r"up\s+to|between|from|to|by|and|or|around|about|approximately|nearly|almost)\s+|"
                           r"[~^=<>@+-]\s*|(?:超过|不到|至少|最多|大约|约|近|从|自|截至|到|第))$", re.I)
_BOUND_AFTER = re.compile(r"^(?:\s*(?:or\s+(?:more|less|fewer|later|earlier|so)|[-+–]|to\b|and\b|%))|"
                          r"^[年月日号个]?(?:以前|以后|之前|之后|以来|以上|以下|前|后|起|多|余)")
_ZH_RANGE = re.compile(r"[至到~～－—]")
_ERA = re.compile(r"^\s*(?:BC|B\.C\.|BCE|AD|A\.D\.|CE)\b")
_OFFSETS = (1, -1, 2, -2, 3, -3, 4, -4, 5, -5)


def near_numbers(number: str) -> list[str]:
    """Numbers near `number`, nearest first: an integer (a year too) moved by 1 to 5, a version or
    decimal by its last part ("3.12" -> "3.13", "3.11", ...); none for a number with a leading zero."""
    head, _, last = number.rpartition(".")
    if len(last) > 1 and last.startswith("0") or len(number) > 1 and number.startswith("0"):
        return []
    moved = [int(last) + d for d in _OFFSETS if int(last) + d >= (0 if head else 1)]
    return [f"{head}.{m}" if head else str(m) for m in moved]


def _names_a_thing(question: Answered, asked: Question, match: re.Match[str]) -> bool:
    """The number names a year, a version or a numbered thing (Perception's years and numbered
    names: "in 2010", "Python 3.12", "350 BC", "沃夫424", "2011年"), not a count or a value the
    question sets: a count changed ("slowest 8 tests") is answered the same way."""
    number, before = match.group(0), question.text[:match.start()]
    if number in asked.years or "." in number:
        return True
    if question.language == "zh":
        return bool(re.search(r"[\u4e00-\u9fffA-Za-z]$", before))
    if any(identifier.endswith(f" {number}") for identifier in asked.identifiers):
        return True
    return re.fullmatch(r"\d{3,4}", number) is not None and (
        re.search(r"\bin\s+$", before) is not None or _ERA.match(question.text[match.end():]) is not None)


def change_number(question: Answered, asked: Question, pool: NamePool) -> Negative | None:
    """The first year, version or numbered name the question and the evidence both write, not
    bounding a range (`_BOUND_BEFORE`, `_BOUND_AFTER`; no Chinese question with a range), replaced
    by a near one neither writes (`near_numbers`)."""
    if question.language == "zh" and _ZH_RANGE.search(question.text):
        return None
    for match in _NUMBER.finditer(question.text):
        number = match.group(0)
        if _BOUND_BEFORE.search(question.text[:match.start()]) or _BOUND_AFTER.search(question.text[match.end():]) \
                or not _names_a_thing(question, asked, match) or not writes(question.evidence, number):
            continue
        options = [n for n in near_numbers(number) if not writes(question.evidence, n) and not writes(question.text, n)]
        if options:
            new = pick(options[:NEAREST], f"{question.id}:change_number")
            return _negative(question, "change_number", _swap(question.text, number, new, match.start()), number, new,
                             absent=(new,))
    return None


# --- negate -----------------------------------------------------------------------------------------

# Opposites, form by form (base, third person, past, participle, -ing; or one form), each side with
# the other words that would state it; a side is taken only where the evidence writes it and never
# the other.
_OPPOSITES: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    (("enable", "enables", "enabled", "enabled", "enabling"), ("turn on", "turns on", "switch on", "activate"),
     ("disable", "disables", "disabled", "disabled", "disabling"),
     ("turn off", "turns off", "switch off", "deactivate")),
    (("include", "includes", "included", "included", "including"), (),
     ("exclude", "excludes", "excluded", "excluded", "excluding"), ("omit", "omits", "omitted", "leave out")),
    (("increase", "increases", "increased", "increased", "increasing"), ("raise", "raises", "raised"),
     ("decrease", "decreases", "decreased", "decreased", "decreasing"), ("reduce", "reduces", "reduced", "lower")),
    (("show", "shows", "showed", "shown", "showing"), ("display", "displays", "displayed"),
     ("hide", "hides", "hid", "hidden", "hiding"), ("suppress", "suppresses", "suppressed")),
    (("install", "installs", "installed", "installed", "installing"), (),
     ("uninstall", "uninstalls", "uninstalled", "uninstalled", "uninstalling"), ()),
    (("lock", "locks", "locked", "locked", "locking"), (),
     ("unlock", "unlocks", "unlocked", "unlocked", "unlocking"), ()),
    (("encrypt", "encrypts", "encrypted", "encrypted", "encrypting"), (),
     ("decrypt", "decrypts", "decrypted", "decrypted", "decrypting"), ()),
    (("allow", "allows", "allowed", "allowed", "allowing"), ("permit", "permits", "permitted"),
     ("prevent", "prevents", "prevented", "prevented", "preventing"),
     ("forbid", "forbids", "forbidden", "disallow", "disallows", "disallowed", "block", "blocks", "blocked")),
    (("accept", "accepts", "accepted", "accepted", "accepting"), (),
     ("reject", "rejects", "rejected", "rejected", "rejecting"), ("refuse", "refused", "decline", "declined")),
    (("start", "starts", "started", "started", "starting"), ("begin", "began", "begun"),
     ("stop", "stops", "stopped", "stopped", "stopping"), ("end", "ended", "halt", "halted", "cease", "ceased")),
    (("open", "opens", "opened", "opened", "opening"), (), ("close", "closes", "closed", "closed", "closing"), ()),
    (("buy", "buys", "bought", "bought", "buying"), ("purchase", "purchased", "acquire", "acquired"),
     ("sell", "sells", "sold", "sold", "selling"), ()),
    (("import", "imports", "imported", "imported", "importing"), (),
     ("export", "exports", "exported", "exported", "exporting"), ()),
    (("largest",), ("biggest",), ("smallest",), ()),
    (("highest",), (), ("lowest",), ()),
    (("longest",), (), ("shortest",), ()),
    (("maximum",), ("max",), ("minimum",), ("min",)),
    (("first",), ("earliest",), ("last",), ("latest", "final", "most recent")),
    (("earliest",), ("first",), ("latest",), ("last", "most recent")),
    (("oldest",), ("earliest",), ("newest",), ("latest", "most recent")),
    (("north",), ("northern",), ("south",), ("southern",)),
    (("east",), ("eastern",), ("west",), ("western",)),
)


@functools.cache
def _opposite_table() -> dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """form -> (its opposite form, the words stating the form's side, the words stating the other)."""
    table: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}
    for forms, extra, opposites, opposite_extra in _OPPOSITES:
        for one, other, says, denies in ((forms, opposites, forms + extra, opposites + opposite_extra),
                                         (opposites, forms, opposites + opposite_extra, forms + extra)):
            for form, opposite in zip(one, other, strict=True):
                table.setdefault(form, (opposite, says, denies))
    return table


def _asking_clause(text: str) -> tuple[int, int]:
    """Where the question asks, after its first word: its last sentence, without a scene-setting
    clause before a comma ("I installed Hugo from snap and it fails. Why?": "Why?"; "If I add a
    source, does ..."); the first word opens a phrase, not a verb to turn ("Starting with ...")."""
    start = max((m.end() for m in re.finditer(r"[.!?]\s+(?=\S)", text)), default=0)
    start += len(text[start:]) - len(main_clause(text[start:]))
    first = re.match(r"\s*\S+", text[start:])
    return start + (first.end() if first else 0), len(text)


def negate(question: Answered, asked: Question, pool: NamePool) -> Negative | None:
    """The first word of the asking clause with an opposite (`_OPPOSITES`) whose side the evidence
    states and whose other side neither the evidence nor the question writes, replaced by it."""
    table = _opposite_table()
    start, end = _asking_clause(question.text)
    for match in re.finditer(r"[A-Za-z]+", question.text[:end]):
        if match.start() < start:
            continue
        word = match.group(0)
        entry = table.get(word.lower())
        if entry is None:
            continue
        opposite, says, denies = entry
        if any(writes(question.evidence, w) for w in says) and \
                not any(writes(question.evidence, w) or writes(question.text, w) for w in denies):
            new = opposite.capitalize() if word[0].isupper() else opposite
            return _negative(question, "negate", _swap(question.text, word, new, match.start()), word, new,
                             absent=denies)
    return None


# --- ask for another kind of value ------------------------------------------------------------------

# "Which artist did Beyonce marry?": the asked thing is the object; "Where was X born?", "In what
# year did X ...?": it is an adjunct. The clause after the auxiliary is kept (with the answer where
# the object was), and asked for a date or a count.
_OBJECT = re.compile(r"^\s*(?:what|which)(?:\s+[\w'’-]+){0,3}?\s+(?P<aux>did)\s+(?P<clause>[^,;?]+?)\s*\?+\s*$", re.I)
_ADJUNCT = re.compile(r"^\s*(?:(?:in|on|at|during|for|from|by|with)\s+(?:what|which)(?:\s+[\w'’-]+){1,2}|"
                      r"where|when|why|how)\s+(?P<aux>did|was|were)\s+(?P<clause>[^,;?]+?)\s*\?+\s*$", re.I)
_SUBCLAUSE = re.compile(r"\b(?:who|whom|whose|what|which|when|where|why|how|while|because|if|that|and|or|but)\b",
                        re.I)
# Words that place the clause in time already ("during the Cambrian", "In which version ..."): a
# "When ...?" of it is answered by them.
_IN_TIME = re.compile(r"\d|\b(?:during|before|after|since|until|by|time|times|date|day|days|week|month|months|year|"
                      r"years|decade|century|centuries|era|age|ages|period|dynasty|reign|war|season|version|"
                      r"release|point|stage|moment|today|now|then|once|ago)\b", re.I)
_TEMPLATES = (("date", "When {aux} {clause}?", ("did", "was", "were")),
              ("number", "How many times {aux} {clause}?", ("did",)))
MAX_ANSWER_WORDS = 5
# An answer that can stand as the object: a name, a number, or a phrase opening with a determiner
# ("build a fortress at Sarkel" cannot: "help the Khazars with build ...").
_NOUN_PHRASE = re.compile(r"[A-Z0-9]|(?:the|a|an|his|her|its|their|our|this|that|these|those)\s")
_PREPOSITIONS = frozenset("about above across after against along among around at before behind below beside between "
                          "by during for from in inside into like near of off on onto out over since through to "
                          "toward towards under until upon with within without".split())


def _object_at_end(clause: str) -> bool:
    """The asked object's place is the clause's end: it ends with a preposition ("write primarily
    for") or holds none ("Beyonce marry"), so the answer can stand there ("marry in 2008" has the
    object before its last phrase)."""
    words = clause.lower().split()
    return words[-1] in _PREPOSITIONS or not _PREPOSITIONS & set(words)


def _clause(question: Answered) -> tuple[str, str] | None:
    """(auxiliary, clause with the answer where the asked object was) of a simple past question,
    or None when it is no such question, its clause holds another clause, or it or its answer a
    word of time."""
    answer = min(question.answers, key=len).strip().rstrip(".")
    found = _OBJECT.match(question.text)
    if found and _NOUN_PHRASE.match(answer) and len(answer.split()) <= MAX_ANSWER_WORDS \
            and _object_at_end(found.group("clause")):
        clause = f"{found.group('clause')} {answer}"
    else:
        found = _ADJUNCT.match(question.text)
        if found is None:
            return None
        words = found.group("clause").split()
        clause = " ".join(words[:-1] if words[-1].lower() in _PREPOSITIONS else words)  # "move the capital to"
    if _SUBCLAUSE.search(found.group("clause")) or _IN_TIME.search(found.group(0)) or _IN_TIME.search(answer):
        return None  # "At what point ...?" answered "by the 11th century" answers "When ...?" as well
    return found.group("aux").lower(), clause


def other_slot(question: Answered, asked: Question, pool: NamePool) -> Negative | None:
    """The question's clause asked for a date ("When did ...?") or a count ("How many times did
    ...?") that it did not ask for, read so by Perception, and that the evidence does not state."""
    if question.language == "zh" or not question.answers:
        return None
    parts = _clause(question)
    if parts is None:
        return None
    aux, clause = parts
    for slot, template, auxiliaries in _TEMPLATES:
        if slot == asked.slot or aux not in auxiliaries:
            continue
        text = template.format(aux=aux, clause=clause)
        negative = _negative(question, "other_slot", text, asked.slot, slot, slot=slot)
        if question_of(text).slot == slot and unanswered(negative, question.evidence):
            return negative
    return None


# --- a neighbouring option --------------------------------------------------------------------------

# The property asked of a setting, and the words a page states it with.
_PROPERTIES = (
    (re.compile(r"\bdefaults?\b|\bby\s+default\b", re.I), ("default", "defaults", "defaulted")),
    (re.compile(r"\b(?:allowed|possible|valid|accepted|supported)\s+values\b|\bchoices\b", re.I),
     ("values", "value", "choices", "one of", "either")),
)


def _neighbours(page: str, target: str, question: str) -> list[str]:
    """The settings of the target's shape the page names, nearest first; a dotted key only in the
    target's namespace ("tool.poetry.name" for "tool.poetry.version"); none the question writes
    nor any the page writes right beside the target (another name of it: "--lf, --last-failed")."""
    at = page.find(target)
    namespace = target.rpartition(".")[0]
    found = [s for s in settings(page) if shape(s) == shape(target) and s.rpartition(".")[0] == namespace
             and not writes(question, s) and not aliases(page, target, s)]
    return sorted(found, key=lambda s: abs(page.find(s) - at))


def neighbour_option(question: Answered, asked: Question, pool: NamePool) -> Negative | None:
    """The question's property (a default, the allowed values) asked of the nearest setting of the
    same shape the evidence names (`_neighbours`) whose property it does not state."""
    if question.language == "zh":
        return None
    words = next((w for pattern, w in _PROPERTIES if pattern.search(question.text)), None)
    target = next((s for s in settings(question.evidence) if writes(question.text, s)), None)
    if words is None or target is None:
        return None
    written = re.search(rf"(?<![\w.-]){re.escape(target)}(?![\w-]|\.\w)", question.text, re.I)
    if written is None:  # folded, the question writes it otherwise ("`max_age`"); left alone
        return None
    for neighbour in _neighbours(question.evidence, target, question.text):
        if not states(question.evidence, neighbour, words):
            return _negative(question, "neighbour_option", _swap(question.text, written.group(0), neighbour,
                                                                 written.start()),
                             target, neighbour, unstated=(neighbour, *words))
    return None


RULE_OF: dict[str, Callable[[Answered, Question, NamePool], Negative | None]] = {
    "swap_entity": swap_entity, "change_number": change_number, "negate": negate, "other_slot": other_slot,
    "neighbour_option": neighbour_option}
