"""The LLM settings: service.yaml `llm:` and SIGHTLINE_LLM_* read, checked, with messages that say the fix."""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from server.settings import load_settings

URL = "http://127.0.0.1:11434/v1"


def settings(tmp_path, env: dict, yaml: str | None = None):
    path = tmp_path / "service.yaml"
    if yaml is not None:
        path.write_text(yaml)
    return load_settings(path, env=env)


def test_no_llm_variables_means_no_llm(tmp_path):
    assert settings(tmp_path, {}).llm is None


def test_environment_sets_the_default_profiles_llm(tmp_path):
    llm = settings(tmp_path, {"SIGHTLINE_LLM_BASE_URL": URL, "SIGHTLINE_LLM_MODEL": "llama3.1:8b",
                              "SIGHTLINE_LLM_API_KEY": "sk-1", "SIGHTLINE_LLM_TIMEOUT": "7.5"}).llm
    assert (llm.base_url, llm.model, llm.api_key, llm.timeout, llm.budget_seconds, llm.temperature) == (
        URL, "llama3.1:8b", "sk-1", 7.5, 30.0, 0.0)
    assert llm.describe()["api_key"] == "set"


def test_the_file_section_is_read_and_the_environment_wins(tmp_path):
    llm = settings(tmp_path, {"SIGHTLINE_LLM_MODEL": "qwen2.5:7b"},
                   f"llm:\n  base_url: {URL}\n  model: other\n  timeout: 4\n  max_tokens: 256\n").llm
    assert (llm.model, llm.timeout, llm.max_tokens) == ("qwen2.5:7b", 4.0, 256)


@pytest.mark.parametrize(("env", "yaml", "message"), [
    ({"SIGHTLINE_LLM_BASE_URL": "127.0.0.1:11434"}, None,
     "SIGHTLINE_LLM_BASE_URL: llm.base_url: must be an http:// or https:// URL"),
    ({"SIGHTLINE_LLM_BASE_URL": URL}, None, "needs a model: set SIGHTLINE_LLM_MODEL"),
    ({"SIGHTLINE_LLM_MODEL": "m"}, None, "is set but no LLM base URL is: set SIGHTLINE_LLM_BASE_URL"),
    ({"SIGHTLINE_LLM_BASE_URL": URL, "SIGHTLINE_LLM_MODEL": "m", "SIGHTLINE_LLM_TIMEOUT": "soon"}, None,
     "SIGHTLINE_LLM_TIMEOUT: llm.timeout: must be a finite number > 0, got 'soon'"),
    ({"SIGHTLINE_LLM_BASE_URL": URL, "SIGHTLINE_LLM_MODEL": "m", "SIGHTLINE_LLM_TIMEOUT": "20",
      "SIGHTLINE_LLM_BUDGET": "10"}, None, r"one LLM call \(20 s\) is longer than the LLM budget of a request \(10 s"),
    ({"SIGHTLINE_LLM_BASE_URL": URL, "SIGHTLINE_LLM_MODEL": "m", "SIGHTLINE_LLM_BUDGET": "58"}, None,
     r"must end at least 5 s before the worker timeout \(60 s"),
    ({}, f"llm:\n  base_url: {URL}\n  model: m\n  api_key: sk-1\n", "unknown key 'api_key'"),
])
def test_bad_llm_settings_are_refused_with_the_fix(tmp_path, env, yaml, message):
    with pytest.raises(ConfigError, match=message):
        settings(tmp_path, env, yaml)
