"""Opening a build: damage is refused by checksum, and a build held open survives pruning."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from core.errors import IndexUnavailable
from orchestration.kb import layout
from orchestration.kb.config import KBSettings
from orchestration.kb.ingest import ingest
from orchestration.kb.knowledge_base import KnowledgeBase

REPO = Path(__file__).resolve().parents[3]


def _write_corpus(folder: Path, version: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    docs = [{"id": f"doc-{i}", "title": f"Note {i}",
             "text": f"Maintenance note {i}, revision {version}: check the cabin pressure valve every {i + 2} days.",
             "metadata": {"published_at": "2024-01-10", "status": "effective"}} for i in range(6)]
    (folder / "docs.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    return folder


@pytest.fixture()
def built(tmp_path, embedder):
    settings = KBSettings(name="tiny", paths=(_write_corpus(tmp_path / "src", 1),))
    kb_dir = tmp_path / "data" / "kb" / "tiny"
    ingest(settings, kb_dir, embedder, progress=False)
    return settings, kb_dir


def _same_size_noise(path: Path, offset: int = 0, length: int | None = None) -> None:
    """Overwrite a region with random bytes, keeping the size (what a disk error looks like)."""
    data = bytearray(path.read_bytes())
    length = len(data) - offset if length is None else length
    data[offset:offset + length] = os.urandom(length)
    path.write_bytes(bytes(data))


def _zero_around(path: Path, needle: bytes, length: int = 512) -> None:
    """Zero `length` bytes where `needle` is stored (a region that holds data, not free space)."""
    data = bytearray(path.read_bytes())
    at = max(data.index(needle) - length // 2, 0)
    data[at:at + length] = bytes(length)
    path.write_bytes(bytes(data))


DAMAGE = {
    # file, how: each case was served or crashed the process before checksums were checked
    "zeroed sqlite region": ("chunks.sqlite", lambda p: _zero_around(p, b"Maintenance note 3")),
    "random bytes in columns/status.npy": ("columns/status.npy", lambda p: _same_size_noise(p)),
    "random bytes in the dense index": ("dense/index.faiss", lambda p: _same_size_noise(p, 64, 256)),
    "random bytes in bm25/data.npy": ("bm25/data.npy", lambda p: _same_size_noise(p, 128)),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_a_damaged_file_is_refused_naming_the_file_and_the_rebuild_command(built, embedder, case):
    settings, kb_dir = built
    name, damage = DAMAGE[case]
    build = layout.current_build(kb_dir)
    target = build / name
    size = target.stat().st_size
    damage(target)
    assert target.stat().st_size == size  # the size check alone cannot see it
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    with pytest.raises(IndexUnavailable) as info:
        kb.warm_up()
    message = info.value.message
    assert name in message and str(build) in message
    assert "sightline ingest" in message and "--kb tiny --rebuild" in message
    assert not kb.ready
    assert not layout.is_held(build)  # a refused build is not held


def test_a_refused_build_is_not_hashed_again_until_a_new_build_exists(built, embedder, monkeypatch):
    settings, kb_dir = built
    _same_size_noise(layout.current_build(kb_dir) / "bm25" / "data.npy", 128)
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    with pytest.raises(IndexUnavailable):
        kb.warm_up()
    from orchestration.kb import knowledge_base

    calls = []
    monkeypatch.setattr(knowledge_base, "verify", lambda *a: calls.append(a) or [])
    with pytest.raises(IndexUnavailable, match="bm25/data.npy"):
        kb.warm_up()
    assert calls == []
    ingest(settings, kb_dir, embedder, progress=False, rebuild=True)
    kb.warm_up()
    assert kb.ready and len(calls) == 1


def test_an_intact_build_opens_and_reports_its_build_id(built, embedder):
    settings, kb_dir = built
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    build = layout.current_build(kb_dir)
    assert kb.describe()["build_id"] == build.name
    assert layout.is_held(build)
    kb.close()
    assert not layout.is_held(build) and not kb.ready


def test_a_new_current_build_is_noticed_and_reopened(built, embedder, tmp_path):
    settings, kb_dir = built
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    assert not kb.current_changed()
    _write_corpus(tmp_path / "src", 2)
    ingest(settings, kb_dir, embedder, progress=False)
    assert kb.current_changed()
    fresh = kb.reopened()
    assert fresh.describe()["build_id"] == layout.current_build(kb_dir).name != kb.describe()["build_id"]
    assert "revision 2" in fresh.store.get_rows([0])[0].text
    assert not fresh.current_changed()


HOLDER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from orchestration.kb.config import KBSettings
    from orchestration.kb.knowledge_base import KnowledgeBase
    kb = KnowledgeBase(KBSettings(name="tiny", paths=()), Path(sys.argv[1]), "all-MiniLM-L6-v2-onnx-int8")
    kb.warm_up()
    print(kb.describe()["build_id"], flush=True)
    sys.stdin.readline()
    print(kb.store.get_rows([0])[0].text, flush=True)
""")


def test_a_build_another_process_holds_survives_pruning_and_goes_once_released(built, embedder, tmp_path):
    settings, kb_dir = built
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(kb_dir)], cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        held = holder.stdout.readline().strip()
        assert held == layout.current_build(kb_dir).name
        for version in (2, 3, 4):  # three rebuilds: keep=2 would delete the held build twice over
            _write_corpus(tmp_path / "src", version)
            ingest(settings, kb_dir, embedder, progress=False)
        builds = sorted(p.name for p in (kb_dir / "builds").iterdir())
        assert held in builds and len(builds) == 3
        holder.stdin.write("\n")
        holder.stdin.flush()
        assert "revision 1" in holder.stdout.readline()  # the holder still reads its own build
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert layout.prune(kb_dir) == [kb_dir / "builds" / held]
    assert len(list((kb_dir / "builds").iterdir())) == 2


def test_a_forked_child_keeps_the_hold_after_the_parent_closes(built, embedder):
    settings, kb_dir = built
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    build = kb.build_dir
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: like a gunicorn worker, it inherits the master's open build
        os.close(write_end)
        os.read(read_end, 1)
        os._exit(0)
    os.close(read_end)
    try:
        kb.close()
        assert layout.is_held(build)  # the worker still serves it
    finally:
        os.write(write_end, b"x")
        os.close(write_end)
        os.waitpid(pid, 0)
    assert not layout.is_held(build)
    assert np.asarray(kb.chunk_ids).size == 6


def test_a_damaged_new_build_is_hashed_once_however_often_the_watcher_asks(built, embedder, tmp_path, monkeypatch):
    """The build watcher calls reopened() every few seconds: a refused build must not be re-hashed each time."""
    settings, kb_dir = built
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    _write_corpus(tmp_path / "src", 2)
    ingest(settings, kb_dir, embedder, progress=False)
    _same_size_noise(layout.current_build(kb_dir) / "bm25" / "data.npy", 128)
    from orchestration.kb import knowledge_base, manifest

    calls = []
    monkeypatch.setattr(knowledge_base, "verify", lambda *a: calls.append(a) or manifest.verify(*a))
    for _ in range(3):
        with pytest.raises(IndexUnavailable, match="bm25/data.npy"):
            kb.reopened()
    assert len(calls) == 1 and kb.ready  # the old build keeps serving


def test_a_build_refused_while_its_copy_was_unfinished_opens_once_the_copy_completes(built, embedder, tmp_path):
    """docs/SCALE.md: a build published by copying files may be seen before the last file is in
    place; once its files change (the copy completes), the watcher tries it again."""
    settings, kb_dir = built
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    _write_corpus(tmp_path / "src", 2)
    ingest(settings, kb_dir, embedder, progress=False)
    data = layout.current_build(kb_dir) / "bm25" / "data.npy"
    whole = data.read_bytes()
    data.write_bytes(whole[:len(whole) // 2])  # the copy has written half of this file so far
    for _ in range(2):
        with pytest.raises(IndexUnavailable, match="bm25/data.npy"):
            kb.reopened()
    data.write_bytes(whole)  # the copy completes
    fresh = kb.reopened()
    assert fresh.ready and fresh.build_dir == layout.current_build(kb_dir) and fresh.failure is None
    fresh.close()
