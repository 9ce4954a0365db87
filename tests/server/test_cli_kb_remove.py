"""`sightline kb remove NAME`: the KB leaves knowledge_bases.yaml (still valid) and its builds go.

The finding: there was no way to remove a knowledge base but editing the YAML and deleting
`var/kb/NAME` by hand. The fast tests lay out builds with the real layout code (no model);
the slow one removes a KB under a running service and asks the others.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from orchestration.kb import layout
from orchestration.kb.config import load_kb_config
from orchestration.kb.manifest import MANIFEST

REPO = Path(__file__).resolve().parents[2]
DEMO = ("manuals", "policies", "reports")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The shipped config (copied) and two finished builds of each demo KB under var/kb."""
    shutil.copytree(REPO / "config", tmp_path / "config")
    for name in DEMO:
        kb_dir = tmp_path / "var" / "kb" / name
        for _ in range(2):
            build = layout.new_build_dir(kb_dir)
            (build / MANIFEST).write_text("{}", encoding="utf-8")
            layout.switch_to(kb_dir, build)
    return tmp_path


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO), SIGHTLINE_CONFIG_DIR=str(home / "config"),
                SIGHTLINE_DATA_DIR=str(home / "var"))


def _remove(home: Path, *args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server.cli", "kb", "remove", *args], cwd=home, env=_env(home),
                          stdin=stdin, capture_output=True, text=True, timeout=60)


def _config_text(home: Path) -> str:
    return (home / "config" / "knowledge_bases.yaml").read_text(encoding="utf-8")


def test_remove_takes_the_entry_out_and_deletes_the_builds_keeping_everything_else(home):
    before = _config_text(home)
    configured = load_kb_config(home / "config" / "knowledge_bases.yaml")
    result = _remove(home, "policies", "--yes")
    assert result.returncode == 0, result.stderr
    after = _config_text(home)
    data = yaml.safe_load(after)
    assert list(data["knowledge_bases"]) == ["manuals", "reports"]
    reread = load_kb_config(home / "config" / "knowledge_bases.yaml")
    assert reread.knowledge_bases == {n: configured.knowledge_bases[n] for n in ("manuals", "reports")}
    removed = {line for line in before.splitlines() if line not in after.splitlines()}
    assert removed == {"  policies:", "    description: Regulations and internal finance/procurement policies with "
                       "effective dates, EN/ZH", "    paths: [orchestration/demo_kb/policies]",
                       "    max_age_days: 730"}, "only the entry's lines go; comments stay"
    assert not (home / "var" / "kb" / "policies").exists()
    assert all(layout.current_build(home / "var" / "kb" / n) is not None for n in ("manuals", "reports"))
    assert "deleted 2 build(s) of 'policies'" in result.stdout


def test_an_entry_added_by_ingest_goes_with_its_comment(home):
    path = home / "config" / "knowledge_bases.yaml"
    path.write_text(_config_text(home) + "  # added by `sightline ingest mydocs --kb mine` on 2026-01-01; the values"
                    " are this file's\n  # defaults, written out so they can be edited here\n  mine:\n"
                    "    description: \"\"\n    paths: [\"mydocs\"]\n", encoding="utf-8")
    result = _remove(home, "mine", "--yes")
    assert result.returncode == 0, result.stderr
    assert "mine" not in _config_text(home) and "added by" not in _config_text(home)
    assert list(yaml.safe_load(_config_text(home))["knowledge_bases"]) == list(DEMO)


def test_an_unknown_name_is_refused_listing_the_known_ones(home):
    result = _remove(home, "manual", "--yes")
    assert result.returncode == 1
    assert result.stderr == ("sightline kb: error: unknown knowledge base 'manual'; known: manuals, policies, "
                             "reports\n")


def test_an_invalid_name_is_refused_before_anything_is_read(home):
    result = _remove(home, "../config", "--yes")
    assert result.returncode == 1 and "is not valid" in result.stderr
    assert (home / "config" / "knowledge_bases.yaml").is_file()


def test_without_yes_and_without_a_terminal_nothing_is_removed(home):
    before = _config_text(home)
    result = _remove(home, "reports", stdin=subprocess.PIPE)
    assert result.returncode == 1 and "add --yes to confirm" in result.stderr
    assert _config_text(home) == before and (home / "var" / "kb" / "reports" / "current").exists()


@pytest.mark.parametrize("answer, removed", [("y\n", True), ("n\n", False), ("\n", False)])
def test_at_a_terminal_it_asks_first(home, answer, removed):
    primary, secondary = os.openpty()
    try:
        process = subprocess.Popen([sys.executable, "-m", "server.cli", "kb", "remove", "reports"], cwd=home,
                                   env=_env(home), stdin=secondary, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        os.write(primary, answer.encode())
        out, err = process.communicate(timeout=60)
    finally:
        os.close(primary)
        os.close(secondary)
    assert ("reports" not in yaml.safe_load(_config_text(home))["knowledge_bases"]) is removed
    assert (home / "var" / "kb" / "reports").exists() is not removed
    assert process.returncode == (0 if removed else 1), err


def test_a_kb_the_router_config_names_is_refused_and_nothing_changes(home):
    shutil.copy(home / "config" / "router.examples.yaml", home / "config" / "router.yaml")
    before = _config_text(home)
    result = _remove(home, "reports", "--yes")
    assert result.returncode == 1
    assert "'reports' is still used by the router config" in result.stderr and "unknown kb 'reports'" in result.stderr
    assert _config_text(home) == before and (home / "var" / "kb" / "reports" / "current").exists()


def test_a_build_a_running_service_holds_is_kept_until_it_lets_go(home):
    kb_dir = home / "var" / "kb" / "reports"
    held = layout.current_build(kb_dir)
    fd = layout.hold(held)  # what a serving process does with the build it has open
    try:
        result = _remove(home, "reports", "--yes")
        assert result.returncode == 0, result.stderr
        assert "deleted 1 build(s)" in result.stdout and "kept 1 build(s)" in result.stdout
        assert held.is_dir() and "reports" not in yaml.safe_load(_config_text(home))["knowledge_bases"]
    finally:
        layout.release(fd)
    again = _remove(home, "reports", "--yes")
    assert again.returncode == 0, again.stderr
    assert not kb_dir.exists()
    assert _remove(home, "reports", "--yes").returncode == 1, "now unknown"


def test_kb_remove_is_in_the_help():
    done = subprocess.run([sys.executable, "-m", "server.cli", "kb", "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert "remove" in done.stdout


@pytest.mark.slow
def test_a_running_service_keeps_serving_the_others(demo_kbs, tmp_path):
    from tests.live import start_service

    data = tmp_path / "var"
    shutil.copytree(demo_kbs.data_dir, data, symlinks=True)
    live = start_service(SimpleNamespace(data_dir=data), tmp_path)
    try:
        env = dict(_env(tmp_path), SIGHTLINE_CONFIG_DIR=str(live.config_dir), SIGHTLINE_DATA_DIR=str(data))
        result = subprocess.run([sys.executable, "-m", "server.cli", "kb", "remove", "reports", "--yes"], cwd=REPO,
                                env=env, capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert "kept 1 build(s) a running service still holds open" in result.stdout, "its open build stays whole"
        for _ in range(3):  # past the config watcher's interval
            status, _headers, body = live.request("POST", "/rag", {"query": "What is the A320neo fuel burn in 2023?",
                                                                   "kb": "manuals", "now": "2024-06-01"})
            assert status == 200 and body["citations"], body
            assert live.request("GET", "/readyz")[0] == 200
        assert {kb["name"] for kb in live.request("GET", "/kb")[2]["knowledge_bases"]} >= {"manuals", "policies"}
    finally:
        live.stop()
