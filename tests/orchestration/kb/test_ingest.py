"""Building knowledge bases: reports, manifest, reuse, and the atomic switch under failure."""

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.errors import IndexUnavailable, KnowledgeBaseError
from orchestration.kb import layout
from orchestration.kb.config import KBSettings
from orchestration.kb.ingest import ingest
from orchestration.kb.knowledge_base import KnowledgeBase
from orchestration.kb.manifest import read_manifest, verify

REPO = Path(__file__).resolve().parents[3]


def _corpus(folder: Path, extra: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    docs = [
        {"id": "fuel", "title": "Fuel burn", "text": "The A320neo burns 2,290 kg of fuel per hour at cruise.",
         "metadata": {"published_at": "2023-03-15", "status": "effective", "source": "Airbus"}},
        {"id": "apu", "title": "APU start", "text": "Fault E5102 means the APU failed to start within 60 seconds.",
         "metadata": {"published_at": "2024-01-10", "status": "effective"}},
        {"id": "old", "title": "Fuel burn 2021", "text": "The A320neo burned 2,350 kg of fuel per hour in 2021.",
         "metadata": {"published_at": "2021-02-01", "status": "superseded"}},
    ] + [{"id": f"extra-{i}", "text": f"Extra note {i} about cabin pressure checks."} for i in range(extra)]
    (folder / "docs.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n{broken\n", encoding="utf-8")
    return folder


@pytest.fixture()
def kb_setup(tmp_path):
    settings = KBSettings(name="tiny", paths=(_corpus(tmp_path / "src"),))
    return settings, tmp_path / "data" / "kb" / "tiny"


def test_ingest_reports_counts_and_skipped_lines_and_writes_a_manifest(kb_setup, embedder):
    settings, kb_dir = kb_setup
    report = ingest(settings, kb_dir, embedder, progress=False)
    assert (report.documents, report.chunks, report.embedded) == (3, 3, 3)
    assert [s.origin.rsplit(":", 1)[1] for s in report.skipped] == ["4"]
    assert "not valid JSON" in report.summary()
    manifest = read_manifest(layout.current_build(kb_dir), "")
    assert {k: manifest["embedder"][k] for k in ("name", "key", "dim")} == {
        "name": "all-MiniLM-L6-v2-onnx-int8", "key": "minilm", "dim": 384}
    assert manifest["counts"] == {"documents": 3, "chunks": 3, "skipped": 1}
    assert {"chunks.sqlite", "bm25/data.npy", "dense/index.faiss", "columns/day.npy"} <= set(manifest["files"])
    assert verify(layout.current_build(kb_dir), manifest) == []


def test_unchanged_input_is_not_rebuilt_and_changes_reuse_embeddings(kb_setup, embedder, tmp_path):
    settings, kb_dir = kb_setup
    first = ingest(settings, kb_dir, embedder, progress=False)
    again = ingest(settings, kb_dir, embedder, progress=False)
    assert again.unchanged and again.build_dir == first.build_dir
    _corpus(tmp_path / "src", extra=2)
    updated = ingest(settings, kb_dir, embedder, progress=False)
    assert (updated.chunks, updated.reused_vectors, updated.embedded) == (5, 3, 2)
    forced = ingest(settings, kb_dir, embedder, progress=False, rebuild=True)
    assert (forced.reused_vectors, forced.embedded) == (0, 5)


def test_entities_are_recorded_per_chunk(kb_setup, embedder):
    settings, kb_dir = kb_setup
    ingest(settings, kb_dir, embedder, progress=False)
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    chunk = kb.store.get_rows([1])[0]
    assert chunk.chunk_id == "apu#0"
    assert any(e["text"] == "E5102" for e in chunk.entities)


@pytest.mark.parametrize("stage", ["chunk", "store", "bm25", "embed", "dense", "manifest", "switch"])
def test_a_build_failing_at_any_stage_leaves_the_previous_build_serving(kb_setup, embedder, tmp_path, stage):
    settings, kb_dir = kb_setup
    ingest(settings, kb_dir, embedder, progress=False)
    before = layout.current_build(kb_dir)
    _corpus(tmp_path / "src", extra=1)

    def interrupt(name):
        if name == stage:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest(settings, kb_dir, embedder, progress=False, on_stage=interrupt)
    assert layout.current_build(kb_dir) == before
    assert verify(before, read_manifest(before, "")) == []
    assert sorted(p.name for p in (kb_dir / "builds").iterdir()) == [before.name]


KILL_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from orchestration.kb.config import KBSettings
    from orchestration.kb.ingest import ingest
    from orchestration.retrieval.embedder import get_embedder
    settings = KBSettings(name="tiny", paths=(Path(sys.argv[1]),))
    def die(name):
        if name == sys.argv[3]:
            os.kill(os.getpid(), signal.SIGKILL)
    ingest(settings, Path(sys.argv[2]), get_embedder(), progress=False, on_stage=die)
""")


@pytest.mark.parametrize("stage", ["dense", "manifest", "switch"])
def test_killing_the_ingest_process_leaves_the_served_index_intact(kb_setup, embedder, tmp_path, stage):
    settings, kb_dir = kb_setup
    ingest(settings, kb_dir, embedder, progress=False)
    before = layout.current_build(kb_dir)
    _corpus(tmp_path / "src", extra=1)
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(tmp_path / "src"), str(kb_dir), stage],
                          cwd=REPO, capture_output=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert layout.current_build(kb_dir) == before
    kb = KnowledgeBase(settings, kb_dir, embedder.name)
    kb.warm_up()
    assert kb.manifest["counts"]["chunks"] == 3
    assert verify(before, kb.manifest) == []
    kb.close()  # while open, the build is held and no prune deletes it
    # the dead process's unfinished build is cleaned up by the next ingest
    report = ingest(settings, kb_dir, embedder, progress=False)
    assert report.chunks == 4
    assert len(list((kb_dir / "builds").iterdir())) == 2


def test_missing_index_error_names_the_directory_and_the_command(kb_setup):
    settings, kb_dir = kb_setup
    with pytest.raises(IndexUnavailable, match=r"no index at .*tiny.*sightline ingest .* --kb tiny"):
        KnowledgeBase(settings, kb_dir, "all-MiniLM-L6-v2-onnx-int8").warm_up()


@pytest.mark.parametrize("damage", ["truncate_bm25", "delete_store", "delete_manifest", "garble_manifest"])
def test_corrupted_index_error_names_the_build_and_how_to_rebuild(kb_setup, embedder, damage):
    settings, kb_dir = kb_setup
    ingest(settings, kb_dir, embedder, progress=False)
    build = layout.current_build(kb_dir)
    if damage == "truncate_bm25":
        (build / "bm25" / "data.npy").write_bytes(b"\x93NUMPY")
    elif damage == "delete_store":
        (build / "chunks.sqlite").unlink()
    elif damage == "delete_manifest":
        (build / "manifest.json").unlink()
    else:
        (build / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexUnavailable, match=r"--kb tiny --rebuild") as info:
        KnowledgeBase(settings, kb_dir, embedder.name).warm_up()
    assert str(build) in info.value.message or "tiny" in info.value.message


def test_index_built_with_another_embedder_is_refused(kb_setup, embedder):
    settings, kb_dir = kb_setup
    ingest(settings, kb_dir, embedder, progress=False)
    with pytest.raises(IndexUnavailable,
                       match="built with embedder 'all-MiniLM-L6-v2-onnx-int8' but 'other' is configured"):
        KnowledgeBase(settings, kb_dir, "other").warm_up()


def test_no_usable_document_is_an_error_listing_the_reasons(tmp_path, embedder):
    (tmp_path / "bad.jsonl").write_text("{oops\n", encoding="utf-8")
    settings = KBSettings(name="empty", paths=(tmp_path / "bad.jsonl",))
    with pytest.raises(KnowledgeBaseError, match="no usable documents.*not valid JSON"):
        ingest(settings, tmp_path / "kb", embedder, progress=False)
