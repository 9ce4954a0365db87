"""A new user's own folder: `sightline ingest ./mydocs --kb mine`, then `sightline ask --kb mine`, no config edit.

The findings: `ask --kb NAME` failed until the user copied config/, listed the KB in
knowledge_bases.yaml, removed the router rules naming the demo KBs and built every configured
KB; and a KB name not in the config silently took the first configured KB's settings
(`max_age_days: 1095` of the demo manuals).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]

DOCS = {
    "license.md": "---\ntitle: License\ncreated_at: 2025-03-01\n---\nThe collector is released under the Apache "
                  "License 2.0.\n",
    "retention.md": "---\ntitle: Storage\ncreated_at: 2025-05-20\n---\nThe default retention period is 15 days. "
                    "Older blocks are deleted by the compactor.\n",
    "notes.txt": "Team notes\nThe weekly sync happens on Tuesdays.\n",
}


def _run(*args, home: Path, timeout=300):
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO), SIGHTLINE_CONFIG_DIR=str(home / "config"),
               SIGHTLINE_DATA_DIR=str(home / "var"))
    return subprocess.run([sys.executable, "-m", "server.cli", *args], cwd=home, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A user's checkout: the shipped config/ (copied, untouched otherwise) and a folder of documents."""
    root = tmp_path_factory.mktemp("user")
    shutil.copytree(REPO / "config", root / "config")
    docs = root / "mydocs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def ingested(home, embedder):  # embedder: marks the module as loading a model
    before = (home / "config" / "knowledge_bases.yaml").read_text(encoding="utf-8")
    result = _run("ingest", "mydocs", "--kb", "mine", "--quiet", home=home)
    assert result.returncode == 0, result.stderr
    return before, result


def test_ingest_on_a_new_name_adds_the_kb_with_the_defaults_spelled_out(home, ingested):
    before, result = ingested
    assert "added knowledge base 'mine'" in result.stderr and "sightline ask --kb mine" in result.stderr
    after = (home / "config" / "knowledge_bases.yaml").read_text(encoding="utf-8")
    assert all(line in after.splitlines() for line in before.splitlines()), "the operator's lines and comments stay"
    entry = yaml.safe_load(after)["knowledge_bases"]["mine"]
    assert entry["max_age_days"] is None, "not the first KB's 1095 days"
    defaults = yaml.safe_load(before)["defaults"]
    assert (entry["chunk_words"], entry["overlap_words"]) == (defaults["chunk_words"], defaults["overlap_words"])
    assert Path(entry["paths"][0]).name == "mydocs"
    assert "# added by `sightline ingest mydocs --kb mine`" in after


def test_ask_answers_from_the_new_kb_with_no_config_edit(home, ingested):
    result = _run("ask", "What is the default retention period?", "--kb", "mine", "--no-ner", "--json", home=home)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["status"] == "answered"
    assert "15 days" in body["answer"]
    assert {c["kb"] for c in body["citations"]} == {"mine"}


def test_kb_list_shows_what_each_build_holds(home, ingested):
    result = _run("kb", "list", "--json", home=home)
    assert result.returncode == 0, result.stderr
    records = {r["name"]: r for r in json.loads(result.stdout)}
    mine = records["mine"]
    assert (mine["built"], mine["documents"], mine["dated"], mine["dated_share"]) == (True, 3, 2, 0.667)
    assert mine["fields"]["published_at"] == 2 and mine["embedder"]
    assert records["manuals"]["built"] is False and "sightline ingest" in records["manuals"]["problem"]
    table = _run("kb", "list", home=home).stdout
    assert "mine" in table and "2 (67%)" in table and "mine: fields carried: published_at 2" in table


def test_a_failed_ingest_leaves_the_config_as_it_was(home, ingested, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "image.png").write_bytes(b"\x89PNG")
    before = (home / "config" / "knowledge_bases.yaml").read_text(encoding="utf-8")
    result = _run("ingest", str(empty), "--kb", "nothing", "--quiet", home=home)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert (home / "config" / "knowledge_bases.yaml").read_text(encoding="utf-8") == before


def test_a_missing_path_is_refused_before_anything_loads(home):
    result = _run("ingest", "no/such/folder", "--kb", "other", home=home, timeout=60)
    assert result.returncode == 1
    assert "no such file or folder: no/such/folder" in result.stderr
