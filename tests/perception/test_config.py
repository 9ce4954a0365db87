"""Config loading and validation: errors name the key and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from core.errors import ConfigError, SightlineError
from perception.config import default_config_path, load_config, parse_config

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


@pytest.mark.parametrize("dotted, value, message", [
    ("actions.default", "answer", r"actions\.default: unknown value 'answer'.*use one of: compare"),
    ("actions.precedence", ["compare", "explian"], r"actions\.precedence\[1\].*did you mean 'explain'"),
    ("actions.cues.compare.phrases", "vs", None),   # a single string is accepted
    ("actions.cues.compare.patterns", ["(unclosed"],
     r"actions\.cues\.compare\.patterns\[0\]: invalid regular expression"),
    ("status.closd", {"phrases": ["x"]}, r"status\.closd: unknown key.*did you mean 'closed'"),
    ("doc_type.memo", {"phrases": ["memo"]}, r"doc_type\.memo: unknown key.*valid keys: test_report"),
    ("keywords.stopwords_en", ["a", False], r"keywords\.stopwords_en\[1\].*put it in quotes"),
    ("time.numeric_date_order", "ymd", r"time\.numeric_date_order.*use one of: mdy, dmy"),
    ("time.relative.0", {"phrases": ["today"]}, r"time\.relative\[0\]: needs exactly one of rolling"),
    ("time.relative.0", {"phrases": ["today"], "rolling": "fortnight"},
     r"time\.relative\[0\]\.rolling.*use one of: day"),
    ("entities.patterns.0.label", "GADGET", r"entities\.patterns\[0\]\.label: unknown value 'GADGET'"),
    ("entities.ner_labels", {"PERSON": "HUMAN"}, r"entities\.ner_labels\.PERSON"),
    ("sources.min_alias_length", 0, r"sources\.min_alias_length: expected a whole number >= 1"),
    ("language.zh_han_per_latin_word", -1, r"language\.zh_han_per_latin_word"),
    ("actionz", {}, r"actionz: unknown key.*did you mean 'actions'"),
])
def test_invalid_values_name_key_and_fix(base, dotted, value, message):
    data = edit(base, dotted, value)
    if message is None:
        parse_config(data)
        return
    with pytest.raises(ConfigError, match=message) as info:
        parse_config(data)
    assert "Fix:" in info.value.message
    assert info.value.field
    assert isinstance(info.value, SightlineError)


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
    with pytest.raises(ConfigError, match=str(path)):
        load_config(path)


def test_a_new_phrase_takes_effect(tmp_path, base):
    from perception.agent import PerceptionAgent
    data = edit(base, "actions.cues.summarize.phrases", ["boil it down"])
    path = tmp_path / "perception.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    agent = PerceptionAgent(config_path=path, use_ner=False)
    assert agent.run("Boil it down for me", "2025-01-01").action == "summarize"
