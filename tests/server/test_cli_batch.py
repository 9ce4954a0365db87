"""`sightline batch`: a JSONL of questions in, a JSONL of answers out, resumable after `kill -9`.

What a user would notice: a bad input line named by its number before anything loads, an answer
file that never holds a torn line or an answer twice after the process was killed mid-run and
started again, answers equal to POST /rag's for the same question, caller and date, and a
summary of the statuses at the end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server.cli.batch_files import Answers, id_key

from .conftest import DATES, E4027, FUEL_EN, INVOICE_EN, INVOICE_ZH, NOW, OFF_TOPIC, Q2_ZH

REPO = Path(__file__).resolve().parents[2]
SALARY = "What are the engineering salary bands?"


def _batch(*args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server.cli", "batch", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, env=dict(os.environ, HF_HUB_OFFLINE="1", **(env or {})))


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_bad_lines_are_named_by_number_and_nothing_is_answered(tmp_path):
    questions = tmp_path / "in.jsonl"
    questions.write_text("\n".join([
        '{"query": "What triggers error code E4027?"}',
        '{"query": "unclosed',
        '["a list"]',
        '{"query": "   "}',
        '{"query": "x", "kb": "nope"}',
        '{"query": "x", "question_type": "null"}',
        '{"id": "a", "query": "x"}',
        '{"id": "a", "query": "y"}',
        '{"query": "x", "now": "tomorrow"}',
        '{"id": true, "query": "x"}',
        "",
    ]), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    result = _batch(str(questions), "--out", str(out))
    assert result.returncode == 1
    for expected in (f"{questions}:2: not valid JSON", f"{questions}:3: a JSON list, not an object",
                     f"{questions}:4: 'query' is empty", f"{questions}:5: unknown knowledge base 'nope'",
                     f"{questions}:6: unknown field(s) question_type", f"{questions}:8: id \"a\" is line 7's too",
                     f"{questions}:9: 'now' is not an ISO date", f"{questions}:10: 'id' must be",
                     "sightline batch: error: 8 line(s) of"):
        assert expected in result.stderr, result.stderr
    assert "nothing was answered" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("args,message", [
    (["in.jsonl"], "the following arguments are required: --out"),
    (["in.jsonl", "--out", "in.jsonl"], "--out is the input file"),
    (["missing.jsonl", "--out", "out.jsonl"], "cannot read missing.jsonl"),
    (["in.jsonl", "--out", "no/such/folder/out.jsonl"], "does not exist"),
    (["in.jsonl", "--out", "out.jsonl", "--now", "soon"], "not an ISO date"),
    (["empty.jsonl", "--out", "out.jsonl"], "holds no question"),
])
def test_bad_arguments_get_one_line_naming_the_fix(tmp_path, args, message):
    (tmp_path / "in.jsonl").write_text('{"query": "What triggers error code E4027?"}\n', encoding="utf-8")
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "server.cli", "batch", *args], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert result.returncode in (1, 2) and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_a_torn_last_line_is_dropped_and_whole_lines_are_kept(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_bytes(b'{"id": 1, "status": "answered"}\n{"id": "b", "status": "partial"}\n{"id": 3, "sta')
    with Answers(path) as answers:
        assert answers.records == {id_key(1): "answered", id_key("b"): "partial"}
        assert answers.dropped == len(b'{"id": 3, "sta')
        answers.append({"id": 3, "status": "insufficient", "answer": "x" * 100_000})
    assert [r["id"] for r in _lines(path)] == [1, "b", 3]


def test_an_answers_file_of_something_else_is_refused(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text('{"id": 1, "status": "answered"}\n{"name": "not a record"}\n', encoding="utf-8")
    with pytest.raises(Exception, match=r"out.jsonl:2 is not an answer record"):
        Answers(path).__enter__()


def test_two_runs_never_write_one_answers_file(tmp_path):
    path = tmp_path / "out.jsonl"
    with Answers(path), pytest.raises(Exception, match="another `sightline batch` is writing"):
        Answers(path).__enter__()


def _questions() -> list[dict]:
    """30 questions, the demo set's kinds three times over, one with a date of its own."""
    texts = [FUEL_EN, INVOICE_EN, INVOICE_ZH, E4027, Q2_ZH, DATES, OFF_TOPIC, SALARY, "Who approves a purchase over "
             "USD 50,000?", "What is the retention period for maintenance records?"]
    rows = [{"id": f"q{n}", "query": text} for n, text in enumerate(texts * 3)]
    rows[5]["now"] = "2024-01-15"
    return rows


def test_a_batch_killed_mid_run_resumes_and_answers_as_rag_does(tmp_path, demo_kbs, config_copy, make_app,
                                                                 api_keys):
    rows = _questions()
    questions, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    questions.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    env = {"SIGHTLINE_DATA_DIR": str(demo_kbs.data_dir), "SIGHTLINE_CONFIG_DIR": str(config_copy)}
    args = [str(questions), "--out", str(out), "--now", NOW, "--groups", "finance"]
    first = subprocess.Popen([sys.executable, "-m", "server.cli", "batch", *args], cwd=REPO,
                             env=dict(os.environ, HF_HUB_OFFLINE="1", **env), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while (not out.exists() or out.read_bytes().count(b"\n") < 3) and first.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    first.send_signal(signal.SIGKILL)
    first.communicate()
    kept = out.read_bytes()
    done_before = kept.count(b"\n")
    assert 3 <= done_before < len(rows), "the first run must be killed mid-run"
    with out.open("ab") as f:  # what a write cut short by the kill would leave
        f.write(b'{"id": "q29", "query": "Who appr')

    second = _batch(*args, "--json", "--quiet", env=env)
    assert second.returncode == 0, second.stderr
    summary = json.loads(second.stdout)
    assert summary["questions"] == summary["answers"] == len(rows)
    assert summary["this_run"]["answered"] == len(rows) - done_before
    assert summary["dropped_partial_line_bytes"] == len(b'{"id": "q29", "query": "Who appr')
    assert sum(summary["statuses"].values()) == len(rows) and summary["statuses"]["error"] == 0
    assert "dropped a partial last line" in second.stderr
    records = _lines(out)
    assert out.read_bytes().startswith(kept)  # what the killed run wrote is kept as it was
    assert sorted(r["id"] for r in records) == sorted(row["id"] for row in rows)  # each exactly once

    client = make_app().test_client()
    for row, record in zip(rows, sorted(records, key=lambda r: int(r["id"][1:])), strict=True):
        body = client.post("/rag", json={"query": row["query"], "now": row.get("now", NOW)},
                           headers={"Authorization": f"Bearer {api_keys['finance-app']}"}).json
        assert {k: record[k] for k in ("status", "answer", "citations")} == \
            {k: body[k] for k in ("status", "answer", "citations")}, row
        assert record["query"] == row["query"] and len(record["trace_id"]) == 32
        assert set(record["timing"]) >= {"perceive", "retrieve", "compose", "validate", "total"}

    again = _batch(*args, env=env)
    assert again.returncode == 0 and "this run: nothing left to answer" in again.stdout
    assert f"{len(rows)} of {len(rows)} questions answered" in again.stdout
