"""Service settings (file, env, flags), metric recording from a response, the dashboard's shape."""

from __future__ import annotations

import dataclasses
import json

import pytest

from core.errors import ConfigError
from orchestration import paths
from server import metrics
from server import settings as settings_module
from server.settings import default_workers, load_settings, prepare_metrics_dir


def test_shipped_service_yaml_loads(monkeypatch):
    settings = load_settings(paths.REPO_ROOT / "config" / "service.yaml", env={})
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.workers is None and 1 <= settings.worker_count <= 4
    assert settings.limits.max_query_chars == 2000


def test_env_overrides_file_and_flags_override_env(tmp_path):
    path = tmp_path / "service.yaml"
    path.write_text("port: 9000\nknowledge_bases: [manuals]\nlimits: {max_top_k: 20}\n")
    env = {"SIGHTLINE_PORT": "9100", "SIGHTLINE_WORKERS": "3", "SIGHTLINE_KBS": "manuals,policies",
           "SIGHTLINE_HOST": "0.0.0.0"}
    settings = load_settings(path, env=env)
    assert (settings.host, settings.port, settings.workers) == ("0.0.0.0", 9100, 3)
    assert settings.knowledge_bases == ("manuals", "policies") and settings.limits.max_top_k == 20
    assert load_settings(path, env=env, port=9200, workers=None).port == 9200


ALL_KEYS = "allowed: host, port, workers, threads, timeout, graceful_timeout, knowledge_bases, limits, .*gateway"


@pytest.mark.parametrize("text, message, field", [
    ("- port\n", r"expected a mapping with keys host, port, ", None),
    ("colour: red\n", rf"unknown key 'colour'; {ALL_KEYS}", None),
    ("prot: 80\n", r"unknown key 'prot'; allowed: .*\(did you mean 'port'\?\)", None),
    ("host: ''\n", r"host: expected a non-empty string, got ''", "host"),
    ("port: eighty\n", r"port: must be an integer between 1 and 65535, got 'eighty'", "port"),
    ("port: 70000\n", r"port: must be an integer between 1 and 65535, got 70000", "port"),
    ("workers: 0\n", r"workers: must be an integer >= 1, got 0", "workers"),
    ("timeout: true\n", r"timeout: must be an integer >= 1, got True", "timeout"),
    ("graceful_timeout: 2.5\n", r"graceful_timeout: must be an integer >= 1, got 2.5", "graceful_timeout"),
    ("knowledge_bases: {manuals: 1}\n", r"knowledge_bases: must be a list of knowledge base names, e.g. "
     r"\[manuals, policies\] \(environment: comma-separated\), or null for all", "knowledge_bases"),
    ("knowledge_bases: [manuals, '']\n", r"knowledge_bases: each knowledge base name must be a non-empty string",
     "knowledge_bases"),
    ("limits: 5\n", r"limits: expected a mapping with keys max_query_chars, max_top_k", "limits"),
    ("limits: {max_body: 5}\n", r"limits: unknown key 'max_body'; allowed: .*did you mean 'max_body_bytes'", "limits"),
    ("limits: {max_top_k: 0}\n", r"limits: max_top_k: must be an integer >= 1, got 0", "limits.max_top_k"),
    ("limits: {max_retries: -1}\n", r"limits: max_retries: must be an integer >= 0, got -1", "limits.max_retries"),
    ("router_reload_seconds: -1\n", r"router_reload_seconds: must be a finite number >= 0, got -1",
     "router_reload_seconds"),
    ("router_reload_seconds: .inf\n", r"router_reload_seconds: inf is not a finite number; use a real number",
     "router_reload_seconds"),
    ("use_ner: maybe\n", r"use_ner: must be true or false, got 'maybe'", "use_ner"),
    ("anonymous: 2\n", r"anonymous: must be true or false, got 2", "anonymous"),
    ("log_level: verbose\n", r"log_level: unknown log level 'verbose'; known: debug, info, warning, error",
     "log_level"),
    ("metrics_dir: null\n", r"metrics_dir: expected a non-empty string, got None", "metrics_dir"),
    ("gateway: X-Groups\n", r"gateway: expected a mapping with keys groups_header, user_header", "gateway"),
    ("gateway: {groups: X-G}\n", r"gateway: unknown key 'groups'; allowed: groups_header, user_header "
     r"\(did you mean 'groups_header'\?\)", "gateway"),
    ("gateway: {user_header: X-User}\n", r"gateway: groups_header: is required when gateway is set, "
     r"e.g. X-Sightline-Groups; or set gateway: null", "gateway.groups_header"),
    ("gateway: {groups_header: 'X Groups'}\n", r"gateway: groups_header: must be an HTTP header name "
     r"\(letters, digits, '-'\), got 'X Groups'", "gateway.groups_header"),
    ("gateway: {groups_header: X-G, user_header: [a]}\n", r"gateway: user_header: must be an HTTP header name",
     "gateway.user_header"),
    ("gateway: {groups_header: authorization}\n", r"gateway: groups_header: cannot be Authorization \(that header "
     r"carries API keys\); use e.g. X-Sightline-Groups", "gateway.groups_header"),
])
def test_bad_service_yaml_names_the_file_the_key_and_the_fix(tmp_path, text, message, field):
    path = tmp_path / "service.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(path, env={})
    assert str(info.value).startswith(f"{path}: ") and info.value.field == field


@pytest.mark.parametrize("name, value, message", [
    ("SIGHTLINE_WORKERS", "many", r"workers: must be an integer >= 1, got 'many'"),
    ("SIGHTLINE_PORT", "0", r"port: must be an integer between 1 and 65535, got 0"),
    ("SIGHTLINE_THREADS", "2.5", r"threads: must be an integer >= 1, got '2.5'"),
    ("SIGHTLINE_TIMEOUT", "-3", r"timeout: must be an integer >= 1, got -3"),
    ("SIGHTLINE_KBS", "manuals,,policies", r"knowledge_bases: each knowledge base name must be a non-empty string"),
    ("SIGHTLINE_RELOAD_SECONDS", "soon", r"router_reload_seconds: must be a finite number >= 0, got 'soon'"),
    ("SIGHTLINE_RELOAD_SECONDS", "inf", r"router_reload_seconds: must be a finite number >= 0, got inf"),
    ("SIGHTLINE_LOG_LEVEL", "loud", r"log_level: unknown log level 'loud'; known: debug, info, warning, error"),
    ("SIGHTLINE_USE_NER", "maybe", r"use_ner: must be true or false, got 'maybe'"),
    ("SIGHTLINE_ANONYMOUS", "2", r"anonymous: must be true or false, got '2'"),
])
def test_bad_env_value_names_the_variable_the_key_and_the_fix(name, value, message):
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(paths.REPO_ROOT / "nope.yaml", env={name: value})
    assert str(info.value).startswith(f"environment variable {name}: ")
    assert info.value.field == settings_module.ENV[name]


def test_env_text_is_read_as_the_settings_type():
    env = {"SIGHTLINE_USE_NER": "No", "SIGHTLINE_ANONYMOUS": " 1 ", "SIGHTLINE_LOG_LEVEL": "DEBUG",
           "SIGHTLINE_RELOAD_SECONDS": "0.5", "SIGHTLINE_KBS": "*", "SIGHTLINE_THREADS": "8"}
    settings = load_settings(paths.REPO_ROOT / "nope.yaml", env=env)
    assert (settings.use_ner, settings.anonymous, settings.log_level) == (False, True, "debug")
    assert (settings.router_reload_seconds, settings.knowledge_bases, settings.threads) == (0.5, None, 8)


def test_a_bad_flag_names_the_command_line():
    with pytest.raises(ConfigError, match=r"^command line: port: must be an integer between 1 and 65535, got 0"):
        load_settings(paths.REPO_ROOT / "nope.yaml", env={}, port=0)


def test_every_setting_but_the_source_has_a_check():
    names = [f.name for f in dataclasses.fields(settings_module.ServiceSettings) if f.name not in ("source", "llm")]
    assert list(settings_module._READ) == names
    # `llm:` is read as one section (server/settings.py _llm): every key of it has its check
    assert tuple(settings_module._LLM_READ) == settings_module.LLM_KEYS
    assert set(settings_module.LLM_ENV.values()) <= set(settings_module.LLM_KEYS)


def test_default_workers_one_per_core_capped():
    assert default_workers(1) == 1 and default_workers(2) == 2 and default_workers(64) == 4


def test_unknown_served_kb_lists_the_configured_ones():
    from orchestration.kb.config import load_kb_config
    from server.bootstrap import select_knowledge_bases

    config = load_kb_config()
    assert list(select_knowledge_bases(config, ("policies",)).knowledge_bases) == ["policies"]
    with pytest.raises(ConfigError, match="unknown knowledge base 'regs'; configured in .*manuals, policies, reports"):
        select_knowledge_bases(config, ("regs",))


def test_prepare_metrics_dir_wipes_old_files(tmp_path):
    (tmp_path / "counter_1.db").write_bytes(b"x")
    (tmp_path / "keep.txt").write_text("x")
    prepare_metrics_dir(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_record_answer_counts_issues_of_every_attempt_and_retry_reasons():
    from prometheus_client import REGISTRY

    def value(name, **labels):
        return REGISTRY.get_sample_value(name, labels) or 0.0

    from orchestration.trace import Operation
    from validation.types import Issue, Verdict

    issue = Issue("comparison", "missing_side", "")
    stale = Issue("freshness", "too_old", "", claim=0)
    timing = {"perceive": 2.0, "route": 1.0, "retrieve": 30.0, "compose": 5.0, "validate": 1.0, "total": 40.0}
    operations = [Operation("retrieve.keyword", {"kb": "kbx"}, ms=0.4),
                  Operation("retrieve.vector", {"kb": "kbx"}, ms=1.5), Operation("embed", {}, ms=9.0)]
    verdicts = [Verdict(False, [issue, stale]), Verdict(False, [issue]), Verdict(False, [issue])]
    before = {"issues": value("sightline_validation_issues_total", check="comparison", kind="missing_side"),
              "retries": value("sightline_retries_total", reason="missing_side"),
              "old": value("sightline_retries_total", reason="too_old"),
              "partial": value("sightline_requests_total", status="partial", endpoint="rag"),
              "kw": value("sightline_retrieval_seconds_count", search="keyword", kb="kbx"),
              "kw_sum": value("sightline_retrieval_seconds_sum", search="keyword", kb="kbx")}
    metrics.record_answer("partial", timing, operations, verdicts, 0.05)
    assert value("sightline_validation_issues_total", check="comparison", kind="missing_side") == before["issues"] + 3
    assert value("sightline_retries_total", reason="missing_side") == before["retries"] + 2
    assert value("sightline_retries_total", reason="too_old") == before["old"] + 1
    assert value("sightline_requests_total", status="partial", endpoint="rag") == before["partial"] + 1
    assert value("sightline_retrieval_seconds_count", search="keyword", kb="kbx") == before["kw"] + 1
    assert (value("sightline_retrieval_seconds_sum", search="keyword", kb="kbx")
            == pytest.approx(before["kw_sum"] + 0.0004))


def test_buckets_resolve_millisecond_stages():
    assert metrics.STAGE_BUCKETS[0] <= 0.001 and metrics.STAGE_BUCKETS[-1] >= 2
    assert metrics.RETRIEVAL_BUCKETS[0] <= 0.0001
    assert sum(1 for b in metrics.REQUEST_BUCKETS if 0.05 <= b <= 2) >= 8


def test_gauges_declare_their_multiprocess_mode():
    assert metrics.ROUTER_CONFIG._multiprocess_mode == "livemax"
    assert metrics.KB_CHUNKS._multiprocess_mode == "livemax"


def test_dashboard_is_importable_json_with_a_datasource_variable():
    dashboard = json.loads((paths.REPO_ROOT / "config" / "grafana" / "sightline.json").read_text())
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    assert dashboard["uid"] and dashboard["title"] and dashboard["schemaVersion"] >= 30
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    exprs = " ".join(t["expr"] for p in dashboard["panels"] for t in p.get("targets", []))
    for name in ("sightline_requests_total", "sightline_request_seconds_bucket", "sightline_stage_seconds_bucket",
                 "sightline_retrieval_seconds_bucket", "sightline_validation_issues_total", "sightline_retries_total",
                 "sightline_router_reloads_total", "sightline_router_config", "sightline_kb_chunks",
                 "sightline_llm_seconds_bucket", "sightline_llm_seconds_count", "sightline_llm_tokens_total",
                 "sightline_composer_fallbacks_total"):
        assert name in exprs, name
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}"
            assert {"x", "y", "w", "h"} <= set(panel["gridPos"])
