"""Config loading and validation: errors name the file, the place (section and key) and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from core.errors import ConfigError, SightlineError
from perception.config import RelativeRule, default_config_path, load_config, parse_config

REPO_CONFIG = Path(__file__).resolve().parents[2] / "config" / "perception.yaml"


@pytest.fixture(scope="module")
def base():
    """The shipped config as plain data."""
    return yaml.safe_load(REPO_CONFIG.read_text(encoding="utf-8"))


def test_shipped_config_is_valid(cfg):
    assert cfg.default_action == "lookup"
    assert set(cfg.status) == {"effective", "draft", "superseded", "expired", "open", "closed"}
    assert set(cfg.doc_type) == {"test_report", "regulation", "manual", "policy", "order", "ticket",
                                 "news", "report", "guide"}
    assert len(cfg.version) == 12


def test_default_path_and_env_override(monkeypatch, tmp_path):
    monkeypatch.delenv("SIGHTLINE_CONFIG_DIR", raising=False)
    assert default_config_path() == REPO_CONFIG
    monkeypatch.setenv("SIGHTLINE_CONFIG_DIR", str(tmp_path))
    assert default_config_path() == tmp_path / "perception.yaml"
    (tmp_path / "perception.yaml").write_text(REPO_CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    assert load_config().path == tmp_path / "perception.yaml"


def edit(base, dotted, value):
    """A deep copy of `base` with one key set (dotted path; list indices as numbers)."""
    data = yaml.safe_load(yaml.safe_dump(base, allow_unicode=True))
    node = data
    *parents, last = dotted.split(".")
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


SHOWN = "config/perception.yaml"
ACTIONS = "compare, explain, how_to, list, summarize, lookup"
LABELS = "CODE, ORG, PERSON, PLACE, PRODUCT, SOURCE, TERM, QUOTED, EVENT, WORK"
QUOTE = r"put it in quotes, e\.g\. 'no', 'on', 'off', 'yes'"


@pytest.mark.parametrize("dotted, value, message, field", [
    # top level and language
    ("actionz", {}, r"unknown key 'actionz'; allowed: version, language, actions, .*\(did you mean 'actions'\?\)",
     None),
    ("language.zh_han_per_latin_word", -1, r"language: zh_han_per_latin_word: must be a number > 0, got -1",
     "language.zh_han_per_latin_word"),
    ("language.zh_han_per_latin_word", "lots", r"language: zh_han_per_latin_word: must be a number > 0, got 'lots'",
     "language.zh_han_per_latin_word"),
    # actions
    ("actions.default", "answer", rf"actions: default: unknown action 'answer'; known: {ACTIONS}$",
     "actions.default"),
    ("actions.precedence", ["compare", "explian"],
     rf"actions: precedence\[1\]: unknown action 'explian'; known: {ACTIONS} \(did you mean 'explain'\?\)",
     "actions.precedence[1]"),
    ("actions.precedence", ["compare"], r"actions: precedence: actions with cues but no precedence: explain, "
     r"how_to, list, summarize; add them to the precedence list", "actions.precedence"),
    ("actions.cues.compair", {"phrases": ["vs"]},
     rf"actions: cues: unknown key 'compair'; allowed: {ACTIONS} \(did you mean 'compare'\?\)", "actions.cues"),
    ("actions.cues.compare", {"phrase": ["vs"]},
     r"actions: cues: compare: unknown key 'phrase'; allowed: phrases, patterns, unless \(did you mean 'phrases'",
     "actions.cues.compare"),
    ("actions.cues.compare.patterns", ["(unclosed"],
     r"actions: cues: compare: patterns\[0\]: not a valid regular expression \(missing \)",
     "actions.cues.compare.patterns[0]"),
    ("actions.implicit_compare.min_entities", 0,
     r"actions: implicit_compare: min_entities: must be an integer >= 1, got 0",
     "actions.implicit_compare.min_entities"),
    ("actions.implicit_compare.comparable_labels", ["CODE", "GADGET"],
     rf"actions: implicit_compare: comparable_labels\[1\]: unknown entity label 'GADGET'; known: {LABELS}",
     "actions.implicit_compare.comparable_labels[1]"),
    ("actions.alternatives.and_which_window", -1,
     r"actions: alternatives: and_which_window: must be an integer >= 0, got -1",
     "actions.alternatives.and_which_window"),
    # status, doc_type, plain phrase lists
    ("status.closd", {"phrases": ["x"]},
     r"status: unknown key 'closd'; allowed: effective, draft, .* \(did you mean 'closed'\?\)", "status"),
    ("doc_type.memo", {"phrases": ["memo"]}, r"doc_type: unknown key 'memo'; allowed: test_report, regulation",
     "doc_type"),
    ("doc_type.manual", {"with_noun": ["x"]},
     r"doc_type: manual: unknown key 'with_noun'; allowed: phrases, patterns, unless", "doc_type.manual"),
    ("quantitative.phrases", {"a": 1}, r"quantitative: phrases: expected a list of phrases, got dict; "
     r"write it as \[a, b, c\]", "quantitative.phrases"),
    ("document_nouns", [["report"]], r"document_nouns\[0\]: expected a non-empty string, got \['report'\]",
     "document_nouns[0]"),
    ("keywords.stopwords_en", ["a", False], rf"keywords: stopwords_en\[1\]: YAML read this item as False, "
     rf"not as text; {QUOTE}", "keywords.stopwords_en[1]"),
    ("keywords.stopwords_zh", ["的", ""], r"keywords: stopwords_zh\[1\]: expected a non-empty string, got ''",
     "keywords.stopwords_zh[1]"),
    ("keywords.min_length", True, r"keywords: min_length: must be an integer >= 1, got True", "keywords.min_length"),
    # entities
    ("entities.patterns", {"a": 1}, r"entities: patterns: expected a list, got dict; "
     r"write '- name: \.\.\., label: \.\.\., regex: \.\.\.' items", "entities.patterns"),
    ("entities.patterns.0", {"name": "x", "label": "CODE"}, r"entities: patterns\[0\]: missing key 'regex'",
     "entities.patterns[0]"),
    ("entities.patterns.0.label", "GADGET",
     rf"entities: patterns\[0\]: label: unknown entity label 'GADGET'; known: {LABELS}",
     "entities.patterns[0].label"),
    ("entities.patterns.0.regex", "[A-Z", r"entities: patterns\[0\]: regex: not a valid regular expression "
     r"\(unterminated character set", "entities.patterns[0].regex"),
    ("entities.terms.0.entries", {"a": 1}, r"entities: terms\[0\]: entries: expected a list, got dict",
     "entities.terms[0].entries"),
    ("entities.terms.0.entries.0", {"synonyms": ["x"]}, r"entities: terms\[0\]: entries\[0\]: missing key 'text'",
     "entities.terms[0].entries[0]"),
    ("entities.terms.0.entries.0", {"text": []}, r"entities: terms\[0\]: entries\[0\]: text: expected a "
     r"non-empty phrase, got \[\]", "entities.terms[0].entries[0].text"),
    ("entities.ner_labels", {"PERSON": "HUMAN"},
     rf"entities: ner_labels: PERSON: unknown entity label 'HUMAN'; known: {LABELS}", "entities.ner_labels.PERSON"),
    ("entities.ner_labels", ["PERSON"], r"entities: ner_labels: expected a mapping, got list; "
     r"write it as 'name: value' lines", "entities.ner_labels"),
    ("entities.models.number", r"(\d", r"entities: models: number: not a valid regular expression",
     "entities.models.number"),
    ("entities.max_quoted_length", 0, r"entities: max_quoted_length: must be an integer >= 1, got 0",
     "entities.max_quoted_length"),
    # sources
    ("sources.min_alias_length", 0, r"sources: min_alias_length: must be an integer >= 1, got 0",
     "sources.min_alias_length"),
    ("sources.derive_aliases", "sometimes", r"sources: derive_aliases: must be true or false, got 'sometimes'",
     "sources.derive_aliases"),
    ("sources.separators", " | ", r"sources: separators: expected a list of quoted separators, got ' \| '; "
     r"write \[' \| ', ' - '\]", "sources.separators"),
    ("sources.aliases", {"TC": [None]}, rf"sources: aliases: TC\[0\]: YAML read this item as None, "
     rf"not as text; {QUOTE}", "sources.aliases.TC[0]"),
    ("questions.directions", {"smaller": ["less"]},
     r"questions: directions: unknown key 'smaller'; allowed: lower, higher, earlier, later", "questions.directions"),
    # time
    ("time", {"units": {}}, r"time: missing key 'months'", "time"),
    ("time.numeric_date_order", "ymd",
     r"time: numeric_date_order: unknown date order 'ymd'; known: mdy, dmy \(did you mean 'mdy'\?\)",
     "time.numeric_date_order"),
    ("time.months", {13: ["smarch"]}, r"time: months: 13: must be an integer between 1 and 12, got 13",
     "time.months.13"),
    ("time.ordinals", {"first": "one"}, r"time: ordinals: first: must be an integer >= 0, got 'one'",
     "time.ordinals.first"),
    ("time.units", {"fortnight": ["fortnight"]},
     r"time: units: unknown key 'fortnight'; allowed: day, week, month, quarter, year", "time.units"),
    ("time.modifiers", {"around": ["about"]}, r"time: modifiers: unknown key 'around'; allowed: before, after",
     "time.modifiers"),
    ("time.relative", "today", r"time: relative: expected a list, got str; "
     r"write '- \{phrases: \[\.\.\.\], rolling: week, amount: 1\}' items", "time.relative"),
    ("time.relative.0", {"phrases": ["today"]}, r"time: relative\[0\]: needs exactly one of rolling, calendar, "
     r"to_date \(has none\); e\.g\. 'rolling: week'", "time.relative[0]"),
    ("time.relative.0", {"phrases": ["today"], "rolling": "fortnight"},
     r"time: relative\[0\]: rolling: unknown time unit 'fortnight'; known: day, week, month, quarter, year",
     "time.relative[0].rolling"),
    ("time.relative.0", {"phrases": ["today"], "calendar": "day", "offset": "x"},
     r"time: relative\[0\]: offset: must be an integer, got 'x'; write -1 for the previous period",
     "time.relative[0].offset"),
])
def test_bad_perception_configs_name_the_file_the_place_and_the_fix(base, dotted, value, message, field):
    with pytest.raises(ConfigError, match=f"^{SHOWN}: {message}") as info:
        parse_config(edit(base, dotted, value), SHOWN)
    assert info.value.field == field
    assert isinstance(info.value, SightlineError)


@pytest.mark.parametrize("dotted, value, read, expected", [
    # a single string is one phrase
    ("actions.cues.compare.phrases", "vs", lambda cfg: cfg.action_cues["compare"].phrases, ("vs",)),
    # a number is read as text
    ("keywords.stopwords_en", ["a", 2], lambda cfg: cfg.stopwords_en, frozenset({"a", "2"})),
    ("time.relative.0", {"phrases": ["today"], "calendar": "day", "offset": -1},
     lambda cfg: cfg.time.relative[0], RelativeRule(phrases=("today",), kind="calendar", unit="day", offset=-1)),
])
def test_lenient_values_are_accepted_as_what_they_mean(base, dotted, value, read, expected):
    assert read(parse_config(edit(base, dotted, value))) == expected


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="cannot be read.*SIGHTLINE_CONFIG_DIR"):
        load_config(tmp_path / "nope.yaml")


def test_not_yaml(tmp_path):
    path = tmp_path / "perception.yaml"
    path.write_text("actions: [unclosed\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(path)


def test_error_names_the_file(tmp_path, base):
    path = tmp_path / "perception.yaml"
    path.write_text(yaml.safe_dump(edit(base, "actions.default", "nope")), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert info.value.message.startswith(f"{path}: actions: default: unknown action 'nope'; known: compare")
    assert info.value.field == "actions.default"


def test_not_utf8(tmp_path):
    path = tmp_path / "perception.yaml"
    path.write_bytes(b"document_nouns: [caf\xe9]\n")
    with pytest.raises(ConfigError, match=f"^{path}: not UTF-8 text; save the file as UTF-8"):
        load_config(path)


def test_version_ignores_line_endings(tmp_path):
    text = REPO_CONFIG.read_text(encoding="utf-8")
    path = tmp_path / "perception.yaml"
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    assert load_config(path).version == load_config(REPO_CONFIG).version


def test_a_new_phrase_takes_effect(tmp_path, base):
    from perception.agent import PerceptionAgent
    data = edit(base, "actions.cues.summarize.phrases", ["boil it down"])
    path = tmp_path / "perception.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    agent = PerceptionAgent(config_path=path, use_ner=False)
    assert agent.run("Boil it down for me", "2025-01-01").action == "summarize"
