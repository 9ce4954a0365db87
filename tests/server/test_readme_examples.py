"""Every code block of the README runs as written, or is listed here as not runnable, with why.

The findings: the README's Python client example used a placeholder key and failed with 401 as
written; and the Chinese example once ran against the day it was typed (the 2024 policy became
too old, and the answer was about APU fault E5102). Every example states its date (`--now` /
"now") and is run here as written, against a real service on a free port (the only change to a
block: `127.0.0.1:8000` / `localhost:8000` become that port).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from orchestration import paths
from server.http.schemas import parse_ask_request

README = paths.REPO_ROOT / "README.md"
VENV_BIN = str(Path(sys.executable).parent)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


@dataclass(frozen=True)
class Block:
    lang: str
    text: str
    section: str  # the `## ` heading it sits under

    @property
    def key(self) -> str:
        return self.text.splitlines()[0].strip()


def _blocks() -> list[Block]:
    readme = README.read_text(encoding="utf-8")
    out = []
    for match in FENCE.finditer(readme):
        heading = re.findall(r"^## (.+)$", readme[:match.start()], re.M)
        out.append(Block(match.group(1), match.group(2), heading[-1] if heading else ""))
    return out


def _block(section: str, lang: str = "sh", index: int = 0) -> Block:
    found = [b for b in _blocks() if b.section == section and b.lang == lang]
    assert len(found) > index, f"README: no {lang} block #{index} under '## {section}'"
    return found[index]


# Blocks no test runs, keyed by their first line, with the reason.
NOT_RUNNABLE = {
    "make serve    # fresh machine: virtualenv, pinned dependencies, the demo knowledge bases, service on "
    "127.0.0.1:8000": "sets up the machine and serves in the foreground: .ci/run runs `make setup` and `make test`; "
                      "tests/test_make_targets.py checks what they run",
    "query ──► Perception ──► Orchestration ─────────────────────────────► Validation ──► answer": "a picture",
    "sightline ingest PATH... --kb NAME [--rebuild] [--json]   # build or update a knowledge base (a new NAME is "
    "added to the config)": "a synopsis of the commands, not a script; each has its tests (tests/server/test_cli*.py)",
    "SIGHTLINE_LLM_BASE_URL=http://127.0.0.1:11434/v1 SIGHTLINE_LLM_MODEL=llama3.1:8b SIGHTLINE_LLM_TIMEOUT=20 "
    ".venv/bin/sightline serve": "serves in the foreground against a model server no test machine has; the LLM path "
                                "runs against tests/llm_standin.py (tests/server/test_llm_*.py)",
    "sudo apt-get install haproxy": "installs a system package and serves in the foreground; the same commands "
                                    "run the real service and the real proxy in tests/reliability/test_slow_clients.py",
    '{"mcpServers": {"sightline": {"command": "/path/to/sightline/.venv/bin/sightline", "args": ["mcp"],':
        "an MCP client's config file, not a command; tests/server/test_mcp_stdio.py starts `sightline mcp` with "
        "SIGHTLINE_API_KEY through the SDK's stdio client, as this config has the client do",
}
# Blocks the tests below run, by section (and language).
RUN = {("The API", "sh"), ("Your own documents", "sh"), ("Chat frontends (OpenAI API)", "sh"),
       ("Chat frontends (OpenAI API)", "python"), ("Keys", "sh")}


def test_every_block_is_run_or_listed_as_not_runnable():
    unaccounted = [b.key for b in _blocks() if (b.section, b.lang) not in RUN and b.key not in NOT_RUNNABLE]
    assert not unaccounted, f"README blocks neither run by a test nor listed in NOT_RUNNABLE: {unaccounted}"
    stale = set(NOT_RUNNABLE) - {b.key for b in _blocks()}
    assert not stale, f"NOT_RUNNABLE names blocks the README no longer has: {stale}"


def test_the_readme_is_what_a_user_does():
    readme = README.read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) < 15_000
    assert readme.index("make serve") < readme.index("make test") < readme.index("## How a request is answered")
    sections = re.findall(r"^## (.+)$", readme, re.M)
    assert sections[:2] == ["How a request is answered", "The API"], sections
    assert "Running in production" in sections and "docs/SERVICE.md" in readme.split("## Running in production")[1]


def _examples() -> list[dict]:
    """The request of every `curl ... /rag -d '{...}'` and `sightline ask "..."` line of the API block."""
    requests = []
    for line in _block("The API").text.replace("\\\n", " ").splitlines():
        if "/rag" in line and " -d " in line:
            requests.append(json.loads(shlex.split(line.split(" -d ", 1)[1].split("|")[0])[0]))
        elif "sightline ask" in line:
            words = shlex.split(line.split("sightline ask", 1)[1])
            request = {"query": words[0]}
            if "--now" in words:
                request["now"] = words[words.index("--now") + 1]
            requests.append(request)
    return requests


def test_the_readme_examples_all_state_their_date():
    examples = _examples()
    assert len(examples) == 2
    assert all(example.get("now") for example in examples), examples


@pytest.mark.parametrize("index, expected_doc, never", [
    (0, "manuals", "E5102"),
    (1, "policies", "E5102"),
])
def test_each_readme_example_answers_from_the_right_documents(answer_loop, index, expected_doc, never):
    body = answer_loop.run(parse_ask_request(dict(_examples()[index], trace="summary")))
    assert body["status"] in ("answered", "partial"), body["answer"]
    assert body["citations"] and all(c["kb"] == expected_doc for c in body["citations"]), body["citations"]
    assert never not in body["answer"]


def _bash(script: str, env: dict[str, str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    full = dict(os.environ, PATH=f"{VENV_BIN}:{os.environ.get('PATH', '')}", HF_HUB_OFFLINE="1", **env)
    for name in ("SIGHTLINE_URL", "SIGHTLINE_API_KEY", "SIGHTLINE_API_KEYS"):
        full.pop(name, None)
    full.update(env)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, env=full, capture_output=True,
                          text=True, timeout=timeout)


def test_the_keys_block_runs_as_written(tmp_path):
    shutil.copytree(paths.REPO_ROOT / "config", tmp_path / "config")
    done = _bash(_block("Keys").text, {"SIGHTLINE_CONFIG_DIR": str(tmp_path / "config")}, paths.REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert "billing-app" in done.stdout and "finance" in done.stdout


@pytest.mark.model
def test_the_own_documents_block_runs_as_written(tmp_path):
    shutil.copytree(paths.REPO_ROOT / "config", tmp_path / "config")
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "retention.md").write_text("---\ntitle: Storage\ncreated_at: 2025-05-20\n---\nThe default retention "
                                       "period is 15 days. Older blocks are deleted by the compactor.\n")
    (docs / "notes.txt").write_text("Team notes\nThe weekly sync happens on Tuesdays.\n")
    done = _bash(_block("Your own documents").text, {"SIGHTLINE_CONFIG_DIR": str(tmp_path / "config"),
                                                     "SIGHTLINE_DATA_DIR": str(tmp_path / "var")}, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "15 days" in done.stdout and "removed 'mine'" in done.stdout
    assert not (tmp_path / "var" / "kb" / "mine").exists()


@pytest.fixture(scope="module")
def service(demo_kbs, tmp_path_factory):
    """A service of its own (the session's `live` counts every request for its metrics tests)."""
    from tests.live import start_service

    live = start_service(demo_kbs, tmp_path_factory.mktemp("readme"), workers=1)
    yield live
    live.stop()


def _on(live, text: str) -> str:
    """The block with the README's address replaced by the test service's."""
    return text.replace("127.0.0.1:8000", f"127.0.0.1:{live.port}").replace("localhost:8000",
                                                                              f"127.0.0.1:{live.port}")


def _service_env(live) -> dict[str, str]:
    return {"SIGHTLINE_CONFIG_DIR": str(live.config_dir), "SIGHTLINE_DATA_DIR": str(live.data_dir)}


@pytest.mark.slow
def test_the_api_block_runs_as_written(service):
    done = _bash(_on(service, _block("The API").text), _service_env(service), paths.REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert "2,290" in done.stdout or "2290" in done.stdout, done.stdout
    assert "status: answered" in done.stdout or "status: partial" in done.stdout, done.stdout


@pytest.mark.slow
def test_the_chat_client_example_runs_as_written_with_the_key_the_readme_makes(service):
    """Before: `api_key="<key from `sightline keys add`>"` was sent as written and answered 401."""
    key_step = _on(service, _block("Chat frontends (OpenAI API)").text)
    client = _on(service, _block("Chat frontends (OpenAI API)", "python").text)
    # the key is honoured within router_reload_seconds (1 s for the test service)
    script = f"{key_step}\nsleep 2.5\n{sys.executable} - <<'PY'\n{client}\nPY\n"
    done = _bash(script, _service_env(service), paths.REPO_ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "**Sources**" in done.stdout and done.stdout.strip().splitlines()[-1] == "answered", done.stdout
