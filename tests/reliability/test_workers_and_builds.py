"""Workers killed, builds replaced or damaged, over real gunicorn: nothing lost, nothing stale.

Each scenario was a finding: dead workers' metric files piled up (scrape time grew with
them); a rebuild while serving deleted the build the workers still used, so replacement
workers answered 503 while /readyz said ready; a damaged build crashed the master at start
or was served silently. These tests start their own services over a private copy of the
demo builds, so they can rebuild and damage them.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace

import psutil
import pytest

from orchestration.kb import layout
from orchestration.kb.ingest import ingest
from orchestration.paths import REPO_ROOT
from tests.live import start_service

pytestmark = pytest.mark.slow

KILLS = 30  # each kill used to leave 2 metric files behind; the directory must stay at <= 8
QUESTION = {"query": "What does fault E5102 mean?", "now": "2025-07-10", "trace": "none", "max_retries": 0}


def _copy_kbs(demo_kbs, root):
    data = root / "data"
    shutil.copytree(demo_kbs.data_dir, data, symlinks=True)
    return replace(demo_kbs, data_dir=data)


@pytest.fixture()
def private_kbs(demo_kbs, tmp_path):
    """A copy of the built demo knowledge bases this test may rebuild or damage."""
    return _copy_kbs(demo_kbs, tmp_path)


@pytest.fixture(scope="module")
def served(demo_kbs, tmp_path_factory):
    """(service, its private KB copy) shared by the kill and rebuild tests (a start costs ~10 s)."""
    root = tmp_path_factory.mktemp("workers")
    kbs = _copy_kbs(demo_kbs, root)
    live = start_service(kbs, root / "svc")
    yield live, kbs
    live.stop()


def _wait(predicate, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _replace_worker(live, sig: int) -> None:
    """Kill one worker with `sig` and wait until gunicorn has two workers again, the dead one gone."""
    before = live.worker_pids()
    victim = before[0]
    os.kill(victim, sig)
    _wait(lambda: victim not in (now := live.worker_pids()) and len(now) == 2, 60, "a replacement worker")


def _answer(call, *args):
    """The response, or None while the service is not listening yet."""
    try:
        return call(*args)
    except OSError:
        return None


def _metric_total(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name + "{") or line.startswith(name + " "))


def _builds_served(live, rounds: int = 12) -> set[str]:
    """The build ids of KB 'manuals' the workers answer /kb with (several requests, both workers)."""
    seen = set()
    for _ in range(rounds):
        status, _h, body = live.request("GET", "/kb")
        assert status == 200, body
        seen |= {kb["build_id"] for kb in body["knowledge_bases"] if kb["name"] == "manuals"}
    return seen


def _build_of_each_worker(live, seconds: float = 30.0) -> dict[int, str]:
    """{worker pid: build id of KB 'manuals'} for every live worker, read from each one's /readyz."""
    return {pid: body["checks"]["builds"]["manuals"]["build"]
            for pid, body in live.readyz_of_each_worker(seconds).items()}


def test_thirty_worker_kills_keep_every_count_and_the_metrics_directory_bounded(served):
    live, _kbs = served
    before = live.rag_requests
    for _ in range(KILLS):
        status, _h, body = live.request("POST", "/rag", QUESTION)
        assert status == 200, body
        _replace_worker(live, signal.SIGKILL)
    status, _h, text = live.request("GET", "/metrics")
    assert status == 200
    assert _metric_total(text, "sightline_requests_total") == live.rag_requests == before + KILLS
    assert _metric_total(text, "sightline_request_seconds_count") == before + KILLS
    files = sorted(p.name for p in live.metrics_dir.glob("*.db"))
    # two live workers' counter, histogram and live-gauge files, plus the two archives (was: 2 per dead worker)
    assert len(files) <= 8, files
    assert {"counter_archive.db", "histogram_archive.db"} <= set(files)
    live_pids = {str(pid) for pid in live.worker_pids()}
    assert {f.rsplit("_", 1)[1][:-3] for f in files} <= live_pids | {"archive"}


def test_rebuilds_while_serving_switch_every_worker_and_never_delete_a_build_in_use(served, embedder):
    live, kbs = served
    settings, kb_dir = kbs.knowledge_bases["manuals"], kbs.kb_dir("manuals")
    failures: list = []
    answered = [0]
    stop = threading.Event()

    def load() -> None:  # a client asking all along: no request may fail while builds change
        while not stop.is_set():
            status, _h, body = live.request("POST", "/rag", QUESTION)
            if status != 200 or body["status"] == "insufficient" or not body["citations"]:
                failures.append((status, body))
            answered[0] += 1

    client = threading.Thread(target=load)
    client.start()
    try:
        first = layout.current_build(kb_dir).name
        assert set(_build_of_each_worker(live).values()) == {first}
        for _ in range(2):
            report = ingest(settings, kb_dir, embedder, progress=False, rebuild=True)
            new = report.build_dir.name
            _wait(lambda new=new: set(_build_of_each_worker(live).values()) == {new}, 30,
                  f"every worker on build {new}")
            # a replacement worker starts on the new build too (the master switched before forking)
            before = set(live.worker_pids())
            _replace_worker(live, signal.SIGTERM)
            served = _build_of_each_worker(live)
            assert set(served) - before and set(served.values()) == {new}, served
            assert _builds_served(live) == {new}
    finally:
        stop.set()
        client.join(timeout=60)
    assert failures == [] and answered[0] > 0
    remaining = sorted(p.name for p in (kb_dir / "builds").iterdir())
    assert new in remaining and first not in remaining and len(remaining) <= 3, remaining


def test_a_build_damaged_before_start_is_refused_saying_why_the_others_serve_and_a_rebuild_brings_it_up(
        private_kbs, embedder, tmp_path):
    settings, kb_dir = private_kbs.knowledge_bases["manuals"], private_kbs.kb_dir("manuals")
    damaged = layout.current_build(kb_dir) / "bm25" / "data.npy"
    data = bytearray(damaged.read_bytes())
    data[200:264] = os.urandom(64)  # same size: only the checksum can tell
    damaged.write_bytes(bytes(data))
    live = start_service(private_kbs, tmp_path / "svc", wait=False)
    try:
        status, _h, body = _wait(lambda: _answer(live.admin, "GET", "/readyz"), 120, "/readyz to answer")
        assert status == 503 and "bm25/data.npy" in body["reason"] and "manuals" in body["reason"]
        assert "sightline ingest" in body["reason"] and str(damaged.parent.parent) in body["reason"]
        status, _h, anonymous = live.request("GET", "/readyz")
        assert status == 503 and str(kb_dir) not in str(anonymous)  # paths are for the admin only
        status, _h, body = live.request("POST", "/rag", QUESTION)  # the other KBs answer without it
        assert status == 200 and [u["kb"] for u in body["unavailable_kbs"]] == ["manuals"], body
        status, _h, body = live.request("POST", "/rag", {**QUESTION, "kb": ["manuals"]})
        assert status == 503 and "bm25/data.npy" in body["error"]["message"]
        assert psutil.Process(live.process.pid).is_running()

        ingest(settings, kb_dir, embedder, progress=False, rebuild=True)
        live.wait_every_worker(lambda b: b["ready"], "every worker opens the rebuilt KB", seconds=60)
        status, _h, body = live.request("POST", "/rag", {**QUESTION, "kb": ["manuals"]})
        assert status == 200 and body["unavailable_kbs"] == [] and body["citations"], body
    finally:
        live.stop()


def test_a_kb_ingested_under_a_new_name_is_served_without_a_restart(served, tmp_path):
    """`sightline ingest PATH --kb NEW` next to a running service: every worker serves NEW within seconds."""
    live, kbs = served
    docs = tmp_path / "collector"
    docs.mkdir()
    (docs / "storage.md").write_text("---\ntitle: Storage\n---\nThe default retention period of the collector "
                                     "is 15 days. Older blocks are compacted and deleted.\n", encoding="utf-8")
    env = dict(os.environ, SIGHTLINE_CONFIG_DIR=str(live.config_dir), SIGHTLINE_DATA_DIR=str(kbs.data_dir),
               PYTHONPATH=str(REPO_ROOT))
    result = subprocess.run([sys.executable, "-m", "server.cli", "ingest", str(docs), "--kb", "collector", "--quiet"],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    question = {"query": "What is the default retention period of the collector?", "kb": ["collector"],
                "trace": "none", "max_retries": 0}

    live.wait_every_worker(lambda body: "collector" in body["checks"]["knowledge_bases"], "the new KB served", 60)
    everywhere = {k: v for k, v in question.items() if k != "kb"}
    for _ in range(4):  # whichever worker answers
        status, _h, body = live.request("POST", "/rag", question)
        assert status == 200 and body["status"] == "answered", body
        assert "15 days" in body["answer"] and {c["kb"] for c in body["citations"]} == {"collector"}
        status, _h, listing = live.request("GET", "/kb")
        assert status == 200 and "collector" in {kb["name"] for kb in listing["knowledge_bases"]}
        status, _h, body = live.request("POST", "/rag", everywhere)
        assert status == 200 and "collector" in {c["kb"] for c in body["citations"]}, "no kb: every served KB"


def test_a_file_truncated_under_a_live_build_is_named_by_readyz_refused_by_requests_and_kills_no_worker(
        private_kbs, embedder, tmp_path):
    """Issue 22 item 8: a truncated bm25/data.npy SIGBUSed every worker that searched it (6 of 6
    requests connection errors) while /readyz said ready."""
    settings, kb_dir = private_kbs.knowledge_bases["manuals"], private_kbs.kb_dir("manuals")
    live = start_service(private_kbs, tmp_path / "svc")
    try:
        assert live.request("POST", "/rag", QUESTION)[0] == 200
        workers = live.worker_pids()
        # every worker warmed up (a worker answers only after its warm-up questions): a file cut while
        # a warm-up search is reading it is the one window the per-search check cannot close
        answering: set[int] = set()
        _wait(lambda: answering.update([live.request("GET", "/healthz")[2]["pid"]]) or answering == set(workers),
              30, "both workers to answer")
        build = layout.current_build(kb_dir).resolve()
        target = build / "bm25" / "data.npy"
        assert not os.access(target, os.W_OK) or os.geteuid() == 0  # sealed: only root can still write it
        target.chmod(0o644)
        size = target.stat().st_size
        os.truncate(target, 0)

        def not_ready():
            status, _h, body = live.admin("GET", "/readyz")
            return status == 503 and body

        body = _wait(not_ready, 15, "/readyz to report the changed build")
        assert "knowledge base 'manuals'" in body["reason"] and f"bm25/data.npy truncated from {size} to 0 bytes" in (
            body["reason"]), body
        assert "sightline ingest" in body["reason"] and str(build) in body["reason"]
        assert "bm25/data.npy truncated" in body["checks"]["builds"]["manuals"]["changed"]
        replies = [_answer(live.request, "POST", "/rag", {**QUESTION, "kb": ["manuals"]}) for _ in range(6)]
        assert None not in replies, "a request got no HTTP reply (a worker died)"
        for status, _h, reply in replies:
            assert status == 503 and reply["error"]["code"] == "index_unavailable", reply
            assert "'manuals'" in reply["error"]["message"] and "bm25/data.npy truncated" in reply["error"]["message"]
        # a question naming no KB is answered by the others, and told which one was left out
        replies = [_answer(live.request, "POST", "/rag", QUESTION) for _ in range(4)]
        assert None not in replies, "a request got no HTTP reply (a worker died)"
        for status, _h, reply in replies:
            assert status == 200 and [u["kb"] for u in reply["unavailable_kbs"]] == ["manuals"], reply
        other = {"query": "Who handles an invoice that does not match the contract?", "kb": ["policies"],
                 "now": "2025-07-10", "trace": "none", "max_retries": 0}
        status, _h, reply = live.request("POST", "/rag", other)
        assert status == 200 and {c["kb"] for c in reply["citations"]} <= {"policies"}, reply
        assert live.request("GET", "/kb")[0] == 200
        assert live.worker_pids() == workers  # no worker died

        ingest(settings, kb_dir, embedder, progress=False, rebuild=True)  # a new build: served again
        _wait(lambda: live.request("POST", "/rag", QUESTION)[0] == 200, 60, "answers after the rebuild")
        _wait(lambda: live.request("GET", "/readyz")[0] == 200, 30, "/readyz ready after the rebuild")
        assert live.worker_pids() == workers
    finally:
        live.stop()
