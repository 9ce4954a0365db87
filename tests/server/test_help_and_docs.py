"""What `--help` and docs/SERVICE.md say matches what the code does.

The findings: `sightline ingest --help` listed JSONL, Markdown and text while the ingest also
reads reStructuredText, HTML and PDF; docs/SERVICE.md said "sync workers" where gunicorn.conf.py
(and the service's log) run gthread workers.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from orchestration.kb.documents import SUPPORTED_SUFFIXES

REPO = Path(__file__).resolve().parents[2]


def test_ingest_help_lists_every_format_the_ingest_reads():
    done = subprocess.run([sys.executable, "-m", "server.cli", "ingest", "--help"], cwd=REPO, capture_output=True,
                          text=True, timeout=60, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    missing = [suffix for suffix in sorted(SUPPORTED_SUFFIXES) if suffix not in text]
    assert not missing, f"not in `ingest --help`: {missing}"


def test_the_service_doc_names_the_worker_class_gunicorn_runs():
    worker_class = re.search(r'^worker_class = "(\w+)"', (REPO / "gunicorn.conf.py").read_text(), re.M).group(1)
    doc = (REPO / "docs" / "SERVICE.md").read_text(encoding="utf-8")
    assert worker_class == "gthread" and f"{worker_class} worker" in doc
    paragraphs = re.split(r"\n\s*\n|\n- ", doc)
    wrong = [p for p in paragraphs if re.search(r"\bsync workers?\b", p) and worker_class not in p]
    assert not wrong, f"docs/SERVICE.md names sync workers without {worker_class}: {wrong}"
