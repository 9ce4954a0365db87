"""Service settings (file, env, flags), metric recording from a response, the dashboard's shape."""

from __future__ import annotations

import json

import pytest

from core.errors import ConfigError
from orchestration import paths
from server import metrics
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


@pytest.mark.parametrize("text, words", [("port: eighty\n", "port: must be an integer"),
                                         ("colour: red\n", "unknown setting"),
                                         ("limits: {max_body: 5}\n", "limits.max_body"),
                                         ("workers: 0\n", "out of range")])
def test_bad_settings_name_the_key(tmp_path, text, words):
    path = tmp_path / "service.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=words):
        load_settings(path, env={})


def test_bad_env_value_names_the_variable():
    with pytest.raises(ConfigError, match="SIGHTLINE_WORKERS"):
        load_settings(paths.REPO_ROOT / "nope.yaml", env={"SIGHTLINE_WORKERS": "many"})


def test_default_workers_one_per_core_capped():
    assert default_workers(1) == 1 and default_workers(2) == 2 and default_workers(64) == 4


def test_unknown_served_kb_lists_the_configured_ones():
    from orchestration.kb.config import load_kb_config
    from server.service import select_knowledge_bases

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
              "partial": value("sightline_requests_total", status="partial"),
              "kw": value("sightline_retrieval_seconds_count", search="keyword", kb="kbx"),
              "kw_sum": value("sightline_retrieval_seconds_sum", search="keyword", kb="kbx")}
    metrics.record_answer("partial", timing, operations, verdicts, 0.05)
    assert value("sightline_validation_issues_total", check="comparison", kind="missing_side") == before["issues"] + 3
    assert value("sightline_retries_total", reason="missing_side") == before["retries"] + 2
    assert value("sightline_retries_total", reason="too_old") == before["old"] + 1
    assert value("sightline_requests_total", status="partial") == before["partial"] + 1
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
                 "sightline_router_reloads_total", "sightline_router_config", "sightline_kb_chunks"):
        assert name in exprs, name
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == "${datasource}"
            assert {"x", "y", "w", "h"} <= set(panel["gridPos"])
