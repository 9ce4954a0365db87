"""Ingest on the machine: embedding in worker processes, bounded in flight; `--workers` / `--device` checked."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from core.errors import ConfigError
from orchestration.kb import embed_pool, layout
from orchestration.kb import ingest as ingest_module
from orchestration.kb.config import KBSettings
from orchestration.kb.ingest import ingest, on_device
from orchestration.kb.manifest import read_manifest
from orchestration.kb.store import ChunkStore
from orchestration.retrieval.dense import DenseIndex
from orchestration.retrieval.embedder import MiniLMTorchEmbedder, get_embedder
from server.cli import main

HAS_TORCH = importlib.util.find_spec("torch") is not None


def _has_cuda() -> bool:
    if not HAS_TORCH:
        return False
    import torch

    return bool(torch.cuda.is_available())


def _corpus(folder: Path, documents: int = 12) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    docs = [{"id": f"d{i}", "title": f"Note {i}",
             "text": f"Maintenance note {i}: the check of valve {i} takes {10 + i} minutes. " * (1 + i % 3)}
            for i in range(documents)]
    (folder / "docs.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    return folder


def _dense_checksums(kb_dir: Path) -> dict:
    files = read_manifest(layout.current_build(kb_dir), "")["files"]
    return {name: entry["sha256"] for name, entry in files.items() if name.startswith("dense/")}


def test_two_workers_build_the_same_dense_index_as_one_process(tmp_path, embedder, monkeypatch):
    monkeypatch.setattr(ingest_module, "EMBED_BATCH", 4)  # 12 chunks: three batches through the pool
    settings = KBSettings(name="w", paths=(_corpus(tmp_path / "src"),))
    one = ingest(settings, tmp_path / "one", embedder, progress=False, workers=1)
    two = ingest(settings, tmp_path / "two", embedder, progress=False, workers=2)
    assert (one.embedded, two.embedded) == (12, 12)
    assert (one.workers, two.workers) == (1, 2)
    assert _dense_checksums(tmp_path / "one") == _dense_checksums(tmp_path / "two")
    assert "2 worker(s)" in two.summary()


@pytest.mark.model  # the workers load MiniLM
def test_the_pool_pulls_batches_lazily_and_answers_in_order():
    texts = [f"passage number {i} about valve checks" for i in range(10)]
    pulled: list[int] = []

    def batches():
        for i, text in enumerate(texts):
            pulled.append(i)
            yield [text]

    ahead = []
    out = []
    for vectors in embed_pool.embed_in_workers(batches(), "minilm", workers=2, batch_size=4, in_flight=2):
        ahead.append(len(pulled) - len(out))
        out.append(vectors)
    # at each answer, at most in_flight batches submitted plus the one just pulled
    assert max(ahead) <= 3
    one_thread = get_embedder("minilm", 1).passages(texts)
    np.testing.assert_allclose(np.concatenate(out), one_thread, atol=1e-6)


@pytest.mark.parametrize(("args", "field", "fix"), [
    (["--workers", "0"], "--workers", "at least 1"),
    (["--workers", "two"], "--workers", "whole number"),
    (["--device", "tpu"], "--device", "one of cpu, cuda"),
])
def test_bad_workers_and_device_are_refused_in_one_line(tmp_path, capsys, args, field, fix):
    status = main(["ingest", str(_corpus(tmp_path / "src")), "--kb", "w", *args])
    err = capsys.readouterr().err.strip()
    assert status == 1 and len(err.splitlines()) == 1
    assert field in err and fix in err


@pytest.mark.skipif(_has_cuda(), reason="this machine has CUDA: --device cuda is accepted here")
def test_cuda_without_a_gpu_is_refused_with_the_setup_command(tmp_path, capsys):
    status = main(["ingest", str(_corpus(tmp_path / "src")), "--kb", "w", "--device", "cuda"])
    err = capsys.readouterr().err.strip()
    assert status == 1 and len(err.splitlines()) == 1
    assert "make setup-torch" in err and "GPU" in err


def test_cuda_is_refused_for_a_kb_of_another_embedder():
    with pytest.raises(ConfigError, match="set `embedder: minilm-torch` for it") as caught:
        on_device(get_embedder("minilm"), "cuda", "docs")  # no model is loaded: the key decides
    assert caught.value.field == "device"


def test_workers_default_to_the_cores_this_process_may_use():
    assert embed_pool.parse_workers(None) == embed_pool.default_workers() >= 1
    assert embed_pool.parse_workers("3") == 3


def test_the_torch_embedder_runs_fp16_on_cuda_and_fp32_on_the_cpu():
    assert (MiniLMTorchEmbedder().device, MiniLMTorchEmbedder().precision) == ("cpu", "fp32")
    assert (MiniLMTorchEmbedder(device="cuda").device, MiniLMTorchEmbedder(device="cuda").precision) == (
        "cuda", "fp16")
    with pytest.raises(ConfigError, match="--device must be one of cpu, cuda"):
        MiniLMTorchEmbedder(device="tpu")


@pytest.mark.model
@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed (the torch extra: make setup-torch)")
@pytest.mark.skipif(_has_cuda(), reason="this machine has CUDA: the refusal does not apply")
def test_the_torch_embedder_refuses_cuda_where_torch_sees_no_gpu():
    with pytest.raises(ConfigError, match="make setup-torch"):
        MiniLMTorchEmbedder(device="cuda").warm_up()


@pytest.mark.model
@pytest.mark.skipif(not _has_cuda(), reason="needs torch with CUDA and a GPU (make setup-torch on a GPU machine)")
def test_cuda_fp16_vectors_match_the_cpu_fp32_ones(tmp_path):
    settings = KBSettings(name="g", paths=(_corpus(tmp_path / "src"),), embedder="minilm-torch")
    cpu = MiniLMTorchEmbedder()
    report = ingest(settings, tmp_path / "gpu", cpu, progress=False, device="cuda")
    manifest = read_manifest(layout.current_build(tmp_path / "gpu"), "")
    assert (manifest["embedder"]["device"], manifest["embedder"]["precision"]) == ("cuda", "fp16")
    build = layout.current_build(tmp_path / "gpu")
    gpu_vectors = DenseIndex.load(build / "dense").reconstruct(np.arange(report.chunks))
    texts = [c.indexed_text for c in ChunkStore(build / "chunks.sqlite").iter_all()]
    cosines = (gpu_vectors * cpu.passages(texts)).sum(axis=1)
    assert cosines.min() >= 0.999
