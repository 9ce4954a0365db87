"""One damaged knowledge base must not block every question (issue 34, item 3).

Found: while one KB's build was truncated, every POST /rag without `kb` got 503. Now the plan
searches the healthy KBs, the reply says which KB was left out and why (`unavailable_kbs`, a
note at the end of the answer, a `kb.unavailable` trace operation), and 503 comes back only when
the request names the broken KB, or when no KB of the plan can be searched.

Real ingest builds, real loop, the app's own request handling; each test damages its own copy.
"""

from __future__ import annotations

import shutil
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from orchestration.kb import layout
from perception import PerceptionAgent
from server.bootstrap import build_loop
from server.http.app import create_app
from server.settings import ServiceSettings

E5102 = {"query": "What triggers error code E5102?", "now": "2025-07-10", "trace": "full", "max_retries": 0}


@pytest.fixture()
def kbs(demo_kbs, tmp_path):
    """A private copy of the built demo knowledge bases."""
    data = tmp_path / "data"
    shutil.copytree(demo_kbs.data_dir, data, symlinks=True)
    return replace(demo_kbs, data_dir=data)


def _client(kbs, config_copy):
    perception = PerceptionAgent(use_ner=False)
    loop = build_loop(kb_config=kbs, perception=perception)
    loop.warm_up()
    settings = ServiceSettings(router_file=str(config_copy / "router.yaml"), router_reload_seconds=0)
    return create_app(settings, loop=loop).test_client()


def _truncate(kbs, name: str) -> Path:
    """Cut a served build's BM25 weights file to half (as a disk error or a stray `truncate` would)."""
    path = layout.current_build(kbs.kb_dir(name)) / "bm25" / "data.npy"
    path.chmod(path.stat().st_mode | stat.S_IWUSR)
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 2)
    return path


def test_a_truncated_kb_is_left_out_and_the_others_answer(kbs, config_copy):
    client = _client(kbs, config_copy)
    _truncate(kbs, "policies")
    reply = client.post("/rag", json=E5102)
    assert reply.status_code == 200, reply.json
    body = reply.json
    assert body["status"] == "answered" and "95% speed" in body["answer"]
    assert body["unavailable_kbs"] == [{"kb": "policies", "reason": "its index cannot be read now (missing, "
                                        "damaged or being replaced); the others were searched"}]
    assert body["answer"].endswith("Note: Knowledge base 'policies' could not be searched: its index cannot be "
                                   "read now (missing, damaged or being replaced); the others were searched.")
    assert {task["kb"] for task in body["plan"]["tasks"]} == {"manuals", "reports"}
    (op,) = [op for op in body["operations"] if op["op"] == "kb.unavailable"]
    assert op["kept"] == ["manuals", "reports"] and list(op["rejected"]) == ["policies"]
    assert str(kbs.data_dir) not in reply.get_data(as_text=True)  # the caller is not shown the host's paths


def test_a_request_naming_the_truncated_kb_gets_503_naming_it(kbs, config_copy):
    client = _client(kbs, config_copy)
    path = _truncate(kbs, "policies")
    reply = client.post("/rag", json={**E5102, "kb": ["manuals", "policies"]})
    assert reply.status_code == 503
    assert reply.json["error"]["code"] == "index_unavailable" and "policies" in reply.json["error"]["message"]
    assert path.name in reply.json["error"]["message"]


def test_with_every_kb_of_the_plan_broken_the_request_gets_503(kbs, config_copy):
    client = _client(kbs, config_copy)
    for name in ("manuals", "policies", "reports"):
        _truncate(kbs, name)
    assert client.post("/rag", json=E5102).status_code == 503


def test_a_kb_damaged_before_start_is_left_out_and_the_service_answers_from_the_others(kbs, config_copy):
    _truncate(kbs, "reports")
    client = _client(kbs, config_copy)  # opening refuses the damaged build and opens the other two
    body = client.post("/rag", json=E5102).json
    assert body["status"] == "answered" and [u["kb"] for u in body["unavailable_kbs"]] == ["reports"]
    assert client.post("/rag", json={**E5102, "kb": ["reports"]}).status_code == 503


def test_a_healthy_reply_says_no_kb_was_left_out(kbs, config_copy):
    body = _client(kbs, config_copy).post("/rag", json=E5102).json
    assert body["unavailable_kbs"] == [] and "could not be searched" not in body["answer"]
