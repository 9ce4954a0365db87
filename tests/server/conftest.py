"""Fixtures of the service tests: a config directory copy, one warmed AnswerLoop, app factories.

Nothing here touches the repository's config/: the router file the tests edit is a copy in a
temporary directory.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from orchestration import paths

NOW = "2025-07-01"
FUEL_EN = "Compare the fuel burn of the A320 and the B737 in 2023"
INVOICE_EN = "Who handles an invoice that does not match the contract and what is the process?"
INVOICE_ZH = "发票金额与合同不一致，应该找哪个部门处理，流程是什么？"
E4027 = "What triggers error code E4027?"
Q2_ZH = "2025 年第二季度已关闭的测试报告有哪些？"
DATES = "Compare the A320neo and 737 MAX 8 manuals: which was effective earlier?"
OFF_TOPIC = "What is the boiling point of mercury on Mars?"


@pytest.fixture(scope="session")
def config_copy(tmp_path_factory) -> Path:
    """The repository's config/ copied to a temp dir (tests edit router.yaml there)."""
    target = tmp_path_factory.mktemp("config") / "config"
    shutil.copytree(paths.REPO_ROOT / "config", target)
    return target


@pytest.fixture(scope="session")
def answer_loop(demo_kbs, config_copy):
    """One warmed AnswerLoop over the demo knowledge bases, router config from the copy."""
    from orchestration.router.config import load_router_config
    from server.bootstrap import build_loop

    config = load_router_config(config_copy / "router.yaml", known_kbs=list(demo_kbs.knowledge_bases))
    loop = build_loop(kb_config=demo_kbs, router_config=config)
    loop.warm_up()
    return loop


@pytest.fixture
def make_app(answer_loop, config_copy, tmp_path, monkeypatch):
    """create_app(**settings) over the shared loop with its own router.yaml copy; restores the loop after."""
    from server.http.app import create_app
    from server.settings import ServiceSettings

    original = answer_loop.router_config
    router = tmp_path / "router.yaml"
    shutil.copy(config_copy / "router.yaml", router)

    def factory(token: str | None = None, **values):
        if token:
            monkeypatch.setenv("SIGHTLINE_ADMIN_TOKEN", token)
        else:
            monkeypatch.delenv("SIGHTLINE_ADMIN_TOKEN", raising=False)
        settings = replace(ServiceSettings(router_file=str(router), router_reload_seconds=0), **values)
        return create_app(settings, loop=answer_loop)

    factory.router = router
    yield factory
    answer_loop.set_router_config(original)


@pytest.fixture
def client(make_app):
    return make_app().test_client()


@pytest.fixture
def api_keys(tmp_path, monkeypatch) -> dict[str, str]:
    """Two API keys, `finance-app` (group finance) and `eng-app` (engineering), in a key file that
    apps made afterwards read (SIGHTLINE_API_KEYS); key name -> key."""
    from server.keys import KeyEntry, hash_key, new_key, write_keys

    made = {"finance-app": ("finance", new_key()), "eng-app": ("engineering", new_key())}
    path = tmp_path / "api_keys.yaml"
    write_keys(path, [KeyEntry(name, hash_key(key), (group,)) for name, (group, key) in made.items()])
    monkeypatch.setenv("SIGHTLINE_API_KEYS", str(path))
    return {name: key for name, (_group, key) in made.items()}


# --- the real service under gunicorn (tests/live.py) ---------------------------------------

from tests.live import ADMIN_TOKEN, Live, free_port, start_service  # noqa: E402,F401


@pytest.fixture(scope="session")
def live(demo_kbs, tmp_path_factory):
    """`sightline serve --workers 2` on a free loopback port over the demo KBs, for the session."""
    service = start_service(demo_kbs, tmp_path_factory.mktemp("live"))
    yield service
    service.stop()


def folder_loop(root: Path, kb: str, files: dict[str, str], embedder):
    """An AnswerLoop (rules Perception, no NER) over one knowledge base `kb` built from `files`
    (name -> text) written under root/kb: real ingest, real retrieval."""
    from orchestration.kb.config import parse_kb_config
    from orchestration.kb.ingest import ingest
    from perception import PerceptionAgent
    from server.bootstrap import build_loop

    (root / kb).mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / kb / name).write_text(text, encoding="utf-8")
    config = parse_kb_config({"knowledge_bases": {kb: {"paths": [str(root / kb)]}}},
                             base_dir=root, data_dir=root / "data")
    ingest(config.knowledge_bases[kb], config.kb_dir(kb), embedder, progress=False)
    perception = PerceptionAgent(use_ner=False)
    perception.warm_up()
    service = build_loop(kb_config=config, perception=perception)
    service.warm_up()
    return service


def concurrently(calls, threads: int = 4) -> list:
    """Run zero-argument callables on a few threads; results in order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(lambda call: call(), calls))
