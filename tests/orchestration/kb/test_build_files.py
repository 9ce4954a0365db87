"""A build's files: written read-only, sized as the manifest says when mapped, watched while served.

A file truncated under a live mapping kills the process that reads past its new end (SIGBUS),
so these tests never search a damaged build in this process: they check that the knowledge
base refuses (IndexUnavailable) before its mapping is read. tests/reliability/
test_workers_and_builds.py truncates a file under a running service.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from pathlib import Path

import pytest

from core.errors import IndexUnavailable
from orchestration.kb import layout
from orchestration.kb.config import KBSettings
from orchestration.kb.ingest import ingest
from orchestration.kb.knowledge_base import KnowledgeBase
from orchestration.retrieval.search import Retriever, SearchRequest
from orchestration.trace import Trace

NOW = dt.date(2025, 7, 1)  # the searches' date


@pytest.fixture()
def built(tmp_path, embedder):
    folder = tmp_path / "src"
    folder.mkdir()
    docs = [{"id": f"doc-{i}", "title": f"Note {i}", "metadata": {"status": "effective"},
             "text": f"Maintenance note {i}: check valve {i} every {i + 2} days."} for i in range(6)]
    (folder / "docs.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    settings = KBSettings(name="tiny", paths=(folder,))
    kb_dir = tmp_path / "data" / "kb" / "tiny"
    ingest(settings, kb_dir, embedder, progress=False)
    return settings, kb_dir


def _writable(path: Path) -> Path:
    """Give the owner write permission back (the damage a test does needs it unless it runs as root)."""
    path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return path


def test_every_file_of_a_finished_build_is_read_only(built):
    _settings, kb_dir = built
    build = layout.current_build(kb_dir)
    files = sorted(p for p in build.rglob("*") if p.is_file())
    assert len(files) >= 10 and build / "manifest.json" in files
    modes = {p.relative_to(build).as_posix(): stat.filemode(p.stat().st_mode) for p in files}
    assert set(modes.values()) == {"-r--r--r--"}, modes
    assert all(os.access(p.parent, os.W_OK) for p in files)  # directories stay writable: pruning deletes builds


def test_a_file_whose_size_differs_from_the_manifest_is_refused_at_open(built, embedder):
    settings, kb_dir = built
    build = layout.current_build(kb_dir)
    manifest_path = _writable(build / "manifest.json")
    manifest = json.loads(manifest_path.read_text())
    real = manifest["files"]["bm25/data.npy"]["bytes"]
    manifest["files"]["bm25/data.npy"]["bytes"] = real + 8
    manifest_path.write_text(json.dumps(manifest))
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    with pytest.raises(IndexUnavailable) as info:
        kb.warm_up()
    assert f"file bm25/data.npy has {real} bytes, the manifest says {real + 8}" in info.value.message
    assert "--kb tiny --rebuild" in info.value.message and not kb.ready


def test_a_file_truncated_under_an_open_build_makes_the_kb_unavailable_before_its_mapping_is_read(built, embedder):
    settings, kb_dir = built
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    assert kb.changed() is None
    kb.require_intact()
    build = layout.current_build(kb_dir)
    target = _writable(build / "bm25" / "data.npy")
    size = target.stat().st_size
    os.truncate(target, 0)
    problem = kb.changed()
    assert problem is not None and problem.startswith(f"knowledge base 'tiny': build {build} changed on disk")
    assert f"bm25/data.npy truncated from {size} to 0 bytes" in problem and "--kb tiny --rebuild" in problem
    with pytest.raises(IndexUnavailable, match="bm25/data.npy truncated") as info:
        kb.require_intact()
    assert info.value.http_status == 503
    retriever = Retriever({"tiny": kb}, embedder)  # a search refuses before it reads bm25's mapping (SIGBUS)
    with pytest.raises(IndexUnavailable, match="bm25/data.npy truncated"):
        retriever.run([SearchRequest(id="t1", kb="tiny", query="valve", search="keyword")], Trace("t"), NOW)


@pytest.mark.parametrize(("damage", "phrase"), [
    (lambda p: (os.replace(_copy(p), p)), "columns/status.npy was replaced by another file"),
    (lambda p: os.utime(_writable(p), ns=(1, 1)), "columns/status.npy was rewritten (modified in place)"),
    (lambda p: p.unlink(), "columns/status.npy was deleted"),
], ids=["replaced", "rewritten", "deleted"])
def test_any_change_to_a_served_build_is_reported(built, embedder, damage, phrase):
    settings, kb_dir = built
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    damage(layout.current_build(kb_dir) / "columns" / "status.npy")
    assert phrase in (kb.changed() or "")


def _copy(path: Path) -> Path:
    """A same-content copy of `path` beside it (another inode)."""
    copy = path.with_name(path.name + ".copy")
    copy.write_bytes(path.read_bytes())
    return copy
