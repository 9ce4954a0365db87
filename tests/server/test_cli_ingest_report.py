"""`sightline ingest` says what it left out, and `--json` always prints JSON.

The findings: an ingest of a folder of 8 binary files failed naming 5 of them and did not say
that 3 more were left out; with `--json`, a failed ingest printed nothing on stdout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orchestration.kb.documents import Skipped
from orchestration.kb.ingest import IngestReport

REPO = Path(__file__).resolve().parents[2]
BINARY_FILES = [f"scan-{i}.txt" for i in range(4)] + [f"photo-{i}.jpg" for i in range(4)]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A checkout's config (copied) and a folder of 8 binary files: 4 named .txt, 4 .jpg."""
    shutil.copytree(REPO / "config", tmp_path / "config")
    folder = tmp_path / "binaries"
    folder.mkdir()
    for i, name in enumerate(BINARY_FILES):
        (folder / name).write_bytes(bytes([0xFF, 0xD8, 0xFF, 0xE0, i]) + bytes(range(256)))
    return tmp_path


def _ingest(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO), SIGHTLINE_CONFIG_DIR=str(home / "config"),
               SIGHTLINE_DATA_DIR=str(home / "var"))
    return subprocess.run([sys.executable, "-m", "server.cli", "ingest", *args, "--quiet"], cwd=home, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_binary_folder_names_every_file_left_out_with_its_reason(home):
    result = _ingest(home, "binaries", "--kb", "scans")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    for name in BINARY_FILES:
        line = next((line for line in result.stderr.splitlines() if name in line), None)
        assert line is not None, f"{name} is not named:\n{result.stderr}"
        assert ("not UTF-8 text" if name.endswith(".txt") else "unsupported file type '.jpg'") in line
    assert "0 read, 8 skipped" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("sightline ingest: error: knowledge base 'scans': "
                                                     "no usable documents")
    assert result.stdout == ""


def test_a_failed_ingest_with_json_prints_the_error_object_on_stdout(home):
    result = _ingest(home, "binaries", "--kb", "scans", "--json")
    assert result.returncode == 1
    out = json.loads(result.stdout)
    assert out["error"]["code"] == "no_usable_documents" and "no usable documents" in out["error"]["message"]
    report = out["reports"][0]
    assert (report["kb"], report["documents"]) == ("scans", 0)
    assert sorted(Path(s["origin"]).name for s in report["skipped"]) == sorted(BINARY_FILES)
    assert all(s["reason"] for s in report["skipped"])


@pytest.mark.parametrize("args, field", [
    (("no/such/folder", "--kb", "scans"), "paths"),
    (("binaries",), "kb"),
    (("binaries", "--kb", "bad name"), "kb"),
])
def test_every_refused_ingest_with_json_prints_the_error_object(home, args, field):
    result = _ingest(home, *args, "--json")
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert error["field"] == field and error["message"] in result.stderr


def test_the_summary_counts_documents_read_and_inputs_skipped_and_names_each():
    report = IngestReport(kb="mine", documents=5, chunks=9,
                          skipped=[Skipped(f"docs/blob-{i}.bin", "unsupported file type '.bin'") for i in range(3)])
    summary = report.summary()
    assert "read 5 document(s), skipped 3 input(s):" in summary
    assert all(f"  - docs/blob-{i}.bin: unsupported file type '.bin'" in summary for i in range(3))
