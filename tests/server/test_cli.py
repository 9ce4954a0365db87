"""The `sightline` command as a user runs it: real subprocesses, exit codes, messages."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(*args, env=None, timeout=300):
    full_env = dict(os.environ, HF_HUB_OFFLINE="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "server.cli", *args], cwd=REPO, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def test_ingest_reports_skipped_inputs_with_file_line_and_reason(tmp_path):
    src = tmp_path / "docs"
    src.mkdir()
    (src / "good.md").write_text("---\ntitle: Pump check\nstatus: effective\n---\nThe pump passed at 310 kPa.\n",
                                 encoding="utf-8")
    (src / "items.jsonl").write_text('{"id": "a", "text": "Valve A was replaced."}\n{bad json\n'
                                     '{"id": "b", "text": "x", "metadata": {"published_at": "someday"}}\n',
                                     encoding="utf-8")
    (src / "latin.txt").write_bytes("Titre\nR\xe9sum\xe9".encode("latin-1"))
    shutil.copytree(REPO / "config", tmp_path / "config")  # a new KB name is added to knowledge_bases.yaml
    result = _run("ingest", str(src), "--kb", "scratch", "--quiet",
                  env={"SIGHTLINE_DATA_DIR": str(tmp_path / "var"), "SIGHTLINE_CONFIG_DIR": str(tmp_path / "config")})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "3 documents, 3 chunks written" in out  # an unreadable date costs the field, not the document
    assert f"{src / 'items.jsonl'}:2: not valid JSON" in out
    assert f"{src / 'items.jsonl'}:3: field 'published_at': not a date: 'someday'" in out
    assert f"{src / 'latin.txt'}: not UTF-8 text" in out
    assert (tmp_path / "var" / "kb" / "scratch" / "current" / "manifest.json").is_file()


@pytest.mark.parametrize("args,message", [
    (["ingest", "somewhere"], "--kb NAME is required"),
    (["ingest", "--kb", "x"], "give at least one PATH"),
    (["perceive", "   "], "the query is empty"),
    (["ask", "hello", "--now", "tomorrow"], "not an ISO date"),
])
def test_bad_arguments_get_one_clear_line_and_no_traceback(args, message):
    result = _run(*args)
    assert result.returncode in (1, 2)
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_asking_without_built_indexes_says_which_kb_and_how_to_build_it(tmp_path):
    result = _run("ask", "How is E4027 triggered?", "--no-ner", env={"SIGHTLINE_DATA_DIR": str(tmp_path)})
    assert result.returncode == 1
    assert "has no index at" in result.stderr and "sightline ingest" in result.stderr
    assert "Traceback" not in result.stderr


def test_perceive_json_has_iso_dates():
    result = _run("perceive", "查询 2025 年第二季度状态为已关闭的测试报告", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["constraints"]["time"]["start"] == "2025-04-01"
    assert data["constraints"]["time"]["end"] == "2025-06-30"
    assert data["constraints"]["status"] == ["closed"]


def test_ask_json_prints_the_rag_body(demo_kbs):
    result = _run("ask", "How is error code E4027 triggered?", "--now", "2025-07-10", "--no-ner", "--json",
                  env={"SIGHTLINE_DATA_DIR": str(demo_kbs.data_dir)})
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["status"] == "answered"
    assert {"trace_id", "answer", "citations", "perception", "plan", "attempts", "validation", "operations",
            "timing", "config_version"} <= set(body)
    assert any("E4027" in c["title"] for c in body["citations"])


def test_bench_hands_its_options_to_the_benchmark(capsys):
    """`sightline bench --sizes 2000` was refused ("unrecognized arguments") before reaching it."""
    from server.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "--sizes", "10", "--help"])
    assert exit_info.value.code == 0
    assert "usage: sightline bench" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["perceive", "fuel burn", "--sizes", "10"])  # other commands still refuse unknown options
    assert exit_info.value.code == 2 and "unrecognized arguments: --sizes 10" in capsys.readouterr().err


def test_ingest_refuses_a_kb_name_that_would_leave_the_data_folder(tmp_path, monkeypatch, capsys):
    """`ingest --kb "bad name/.."` wrote outside the KB folder."""
    from server.cli import main

    src = tmp_path / "docs"
    src.mkdir()
    (src / "a.md").write_text("# A\nSome text about fuel burn of the A320.\n", encoding="utf-8")
    data = tmp_path / "var"
    monkeypatch.setenv("SIGHTLINE_DATA_DIR", str(data))
    code = main(["ingest", str(src), "--kb", "bad name/.."])
    assert code in (1, 2)
    assert "knowledge base name" in capsys.readouterr().err
    assert not data.exists() or not any(data.rglob("*"))  # nothing written anywhere
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]
