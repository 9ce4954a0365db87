"""SciFact ingest on a GPU (`--device cuda`, MiniLM fp16): chunks/s, and its vectors against the CPU fp32 ones.

    make setup-torch && .venv/bin/python -m benchmarks.ingest_gpu [--limit N] [--sample 500] [--json]

(`benchmarks/ingest_gpu.sh` runs both.) Builds SciFact's corpus once with `--device cuda` in a
scratch config whose embedder is `minilm-torch` (the model `--device cuda` runs), prints the
ingest's embedding rate, then embeds a sample of the build's chunks with the same model in fp32
on the CPU and prints the cosine of each GPU vector to its CPU vector (min and median). Exits 1
when the minimum is below 0.999.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml

from benchmarks.ingest_rate import DEFAULT_DATA, KB, REPO, one_run, subset

MIN_COSINE = 0.999


def torch_config() -> str:
    """The shipped knowledge_bases.yaml with `embedder: minilm-torch` (what `--device cuda` embeds with)."""
    data = yaml.safe_load((REPO / "config" / "knowledge_bases.yaml").read_text(encoding="utf-8"))
    data["embedder"] = {"name": "minilm-torch", "threads": None}
    return yaml.safe_dump(data, sort_keys=False)


def cosines_to_cpu(build: Path, sample: int) -> np.ndarray:
    """Cosine of each of the first `sample` chunks' stored vectors to the CPU fp32 model's vector."""
    from orchestration.kb.store import ChunkStore
    from orchestration.retrieval.dense import DenseIndex
    from orchestration.retrieval.embedder import MiniLMTorchEmbedder

    chunks = ChunkStore(build / "chunks.sqlite").get_rows(list(range(sample)))
    stored = DenseIndex.load(build / "dense").reconstruct(np.array([c.row for c in chunks]))
    cpu = MiniLMTorchEmbedder().passages([c.indexed_text for c in chunks])
    return (stored * cpu).sum(axis=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a JSONL corpus (default: SciFact's)")
    parser.add_argument("--limit", type=int, help="only its first N documents")
    parser.add_argument("--sample", type=int, default=500, help="chunks compared with the CPU vectors")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ingestgpu-") as scratch:
        corpus = subset(args.data, args.limit, Path(scratch))
        run_dir = Path(scratch) / "run"
        run_dir.mkdir()
        result = one_run(corpus, "--device cuda", run_dir, torch_config())
        build = Path(result["build_dir"])
        manifest = json.loads((build / "manifest.json").read_text(encoding="utf-8"))
        cosines = cosines_to_cpu(build, min(args.sample, result["chunks"]))
    out = {"set": "scifact" if args.data == DEFAULT_DATA else str(args.data), "limit": args.limit,
           "kb": KB, "embedder": manifest["embedder"], "chunks": result["chunks"],
           "chunks_per_s": round(result["rate"], 1), "wall_s": round(result["wall"], 1),
           "cosine_to_cpu": {"compared": len(cosines), "min": round(float(cosines.min()), 5),
                             "median": round(float(np.median(cosines)), 5)}}
    print(json.dumps(out, indent=2) if args.json else
          f"{out['chunks']} chunks on {manifest['embedder'].get('device')} "
          f"({manifest['embedder'].get('precision')}): {out['chunks_per_s']} chunks/s, {out['wall_s']}s wall; "
          f"cosine to the CPU fp32 vectors over {len(cosines)} chunks: min {out['cosine_to_cpu']['min']}, "
          f"median {out['cosine_to_cpu']['median']}")
    if cosines.min() < MIN_COSINE:
        print(f"FAIL: a vector's cosine to the CPU one is below {MIN_COSINE}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
