"""Fixtures shared by the whole suite: the real embedder and the demo knowledge bases; the test lanes.

The demo knowledge bases are built once per session into a temporary data directory with
the real ingest (real jieba, BM25, MiniLM, FAISS), so tests exercise what users run.

Lanes (`make test` runs everything, `make test-fast` runs `-m "not slow and not model"`):

- `model`: the test loads an ML model (MiniLM, spaCy NER) or builds a knowledge base. Added
  here to every test whose fixture closure holds one of MODEL_FIXTURES; tests that load a
  model some other way (a subprocess, a fixture param) carry the marker explicitly.
- `slow`: the test starts real services (gunicorn, Prometheus). Added here to every test
  whose fixture closure holds one of SERVICE_FIXTURES.

The markers are checked, not trusted: while a test without `model` (or `slow`) runs, loading
an embedding model or a spaCy pipeline fails it, and so does starting `sightline serve`
(tests/live.py) without `slow`. So the fast lane cannot quietly start loading models again.
"""

from __future__ import annotations

import functools
import os
import subprocess
import warnings

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Fixtures that load a model or build knowledge bases (directly or through those they use).
MODEL_FIXTURES = frozenset({"embedder", "e5", "demo_kbs", "demo_retriever", "answer_loop", "ner_agent"})
# Fixtures that start a real service.
SERVICE_FIXTURES = frozenset({"live", "secured"})
# Tests that load a model where no fixture shows it: `sightline` subprocesses (the guard below
# cannot see into another process). Keyed by node id without the parameter part.
MODEL_TESTS = {
    "tests/server/test_cli.py::test_ingest_reports_skipped_inputs_with_file_line_and_reason": "ingest embeds (MiniLM)",
    "tests/server/test_cli.py::test_perceive_json_has_iso_dates": "perceive runs spaCy NER",
    "tests/server/test_cli_batch.py::test_a_batch_killed_mid_run_resumes_and_answers_as_rag_does":
        "batch loads the loop (MiniLM, spaCy NER)",
    "tests/server/test_mcp_stdio.py::test_stdio_serves_the_tools_as_the_key_s_caller_and_answers_as_rag":
        "mcp loads the loop (MiniLM, spaCy NER)",
}


def pytest_collection_modifyitems(config, items):
    """Mark `model` / `slow` from each test's fixture closure (item.fixturenames is the closure)."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & SERVICE_FIXTURES and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)
        explicit = item.nodeid.split("[", 1)[0] in MODEL_TESTS
        if (explicit or names & MODEL_FIXTURES) and not item.get_closest_marker("model"):
            item.add_marker(pytest.mark.model)


# --- the guard: an unmarked test that loads a model or starts a service fails ----------------

_running: list = []  # the item whose setup/call/teardown is running (empty between tests)


def _refuse(what: str, marker: str) -> None:
    if not _running:
        return
    item = _running[-1]
    if item.get_closest_marker(marker) or item.get_closest_marker("slow"):
        return
    pytest.fail(f"{item.nodeid} {what} but is not marked `{marker}`: mark it "
                f"(@pytest.mark.{marker}, or add its fixture to tests/conftest.py) so `make test-fast` "
                f"stays free of model loads and services", pytrace=False)


def _wrap(owner, name: str, check) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def guarded(*args, **kwargs):
        loads = check(*args, **kwargs)
        result = original(*args, **kwargs)
        if loads:  # checked after the call: a model that is missing (rules-only fallback) loads nothing
            _refuse(loads, "model")
        return result

    setattr(owner, name, guarded)


def _install_guard() -> None:
    """Wrap the two model loaders and the live-service handle (a warning if the code moved)."""
    try:
        import tests.live
        from orchestration.retrieval import embedder
        from perception import ner

        _wrap(embedder.MiniLMOnnxEmbedder, "_session",
              lambda self, role, threads:
              "loads the MiniLM embedder" if (role, threads) not in self._sessions else None)
        for cls in (embedder.MiniLMTorchEmbedder, embedder.E5Embedder):
            _wrap(cls, "warm_up", lambda self, name=cls.key: f"loads the {name} embedder" if not self.loaded else None)
        _wrap(ner, "load_pipeline",
              lambda model: f"loads the spaCy pipeline {model}" if model not in ner._models else None)
        original_init = tests.live.Live.__init__
    except (ImportError, AttributeError) as exc:
        warnings.warn(f"tests/conftest.py: the model/service guard is off ({exc!r}); update _install_guard",
                      stacklevel=1)
        return

    @functools.wraps(original_init)
    def live_init(self, url, config_dir, log, process, *args, **kwargs):
        try:
            _refuse("starts `sightline serve`", "slow")
        except BaseException:
            process.terminate()  # started by start_service just before; do not leave it running
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            raise
        original_init(self, url, config_dir, log, process, *args, **kwargs)

    tests.live.Live.__init__ = live_init


def pytest_configure(config):
    _install_guard()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


@pytest.fixture(scope="session")
def embedder():
    """The default embedder, loaded once for the session."""
    from orchestration.retrieval.embedder import get_embedder

    model = get_embedder("minilm")
    model.warm_up()
    return model


@pytest.fixture(scope="session")
def demo_config(tmp_path_factory):
    """The shipped knowledge_bases.yaml with its data directory moved to a temp dir."""
    from dataclasses import replace

    from orchestration.kb.config import load_kb_config

    return replace(load_kb_config(), data_dir=tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="session")
def demo_kbs(demo_config, embedder):
    """The demo knowledge bases, built once; returns the KBConfig pointing at them."""
    from orchestration.kb.ingest import ingest

    for settings in demo_config.knowledge_bases.values():
        ingest(settings, demo_config.kb_dir(settings.name), embedder, progress=False)
    return demo_config


@pytest.fixture(scope="session")
def demo_retriever(demo_kbs, embedder):
    """A warmed-up Retriever over the demo knowledge bases."""
    from orchestration.kb.registry import open_knowledge_bases
    from orchestration.retrieval.search import Retriever
    from orchestration.router.config import load_router_config

    credibility = load_router_config(known_kbs=list(demo_kbs.knowledge_bases)).credibility
    retriever = Retriever(open_knowledge_bases(demo_kbs), embedder, credibility)
    retriever.warm_up()
    return retriever


@pytest.fixture(scope="module")
def standin():
    """A stand-in OpenAI-compatible LLM server on a free port (tests/llm_standin.py), per module."""
    from tests.llm_standin import StandIn

    server = StandIn().start()
    yield server
    server.stop()
