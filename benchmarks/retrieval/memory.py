"""The memory probe: resident memory of a fresh Python that only loads saved indexes and queries them.

Promises: `probe_rss` starts a new interpreter (threads pinned through the environment) that imports
the project's index modules, loads the saved BM25 and/or dense index (and, for the worker probe, the
embedder, which then embeds each query before the dense search), runs every query once, and reports
its memory in MB: `imports_mb` (the baseline before loading), `after_load_mb`, `after_queries_mb`,
`uss_mb`, `pss_mb`, `index_mb` (RSS growth over the baseline), with `load_s` and `queries`. A probe
that fails reports `{"error": <its last stderr line>}` instead; the benchmark goes on.
`save_queries` writes the queries the probes read; `probe_main` is the subprocess side (one JSON line).
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from benchmarks.retrieval.harness import MB, K


def save_queries(work: Path, tokens: list[list[str]], vectors: np.ndarray) -> None:
    """Write the size's queries where `probe_rss` subprocesses read them."""
    np.save(work / "query_vectors.npy", vectors)
    (work / "query_tokens.json").write_text(json.dumps(tokens), encoding="utf-8")


def probe_rss(spec: dict[str, Any], work: Path, threads: int) -> dict[str, Any]:
    """Load saved indexes (and optionally the embedder) in a fresh Python and report its memory.

    Args:
        spec: any of "bm25" and "dense" (saved index directories) and "embedder" (a name).
        work: the size's work directory, where `save_queries` wrote the queries.
        threads: FAISS/BLAS/torch threads in the subprocess.
    """
    payload: dict[str, Any] = {key: str(value) for key, value in spec.items()}
    payload.update({"query_vectors": str(work / "query_vectors.npy"),
                    "query_tokens": str(work / "query_tokens.json"), "threads": threads})
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    code = "import sys; from benchmarks.retrieval.memory import probe_main; sys.exit(probe_main(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", code, json.dumps(payload)], capture_output=True, text=True,
                          env=env, check=False, timeout=600)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def probe_main(payload: str) -> int:
    """Subprocess side of `probe_rss`: import, load, query, and print memory figures as JSON."""
    spec = json.loads(payload)
    import faiss

    from orchestration.retrieval.bm25 import BM25Index
    from orchestration.retrieval.dense import DenseIndex

    faiss.omp_set_num_threads(spec["threads"])
    proc = psutil.Process()
    gc.collect()
    base = proc.memory_info().rss
    out: dict[str, Any] = {"imports_mb": round(base / MB, 1)}
    t0 = time.perf_counter()
    bm25 = BM25Index.load(Path(spec["bm25"])) if spec.get("bm25") else None
    dense = DenseIndex.load(Path(spec["dense"])) if spec.get("dense") else None
    embedder = None
    if spec.get("embedder"):
        from orchestration.retrieval.embedder import get_embedder

        embedder = get_embedder(spec["embedder"], threads=spec["threads"])
        embedder.warm_up()
    out["load_s"] = round(time.perf_counter() - t0, 2)
    out["after_load_mb"] = round(proc.memory_info().rss / MB, 1)
    tokens = json.loads(Path(spec["query_tokens"]).read_text(encoding="utf-8"))
    vectors = np.load(spec["query_vectors"])
    for i, query in enumerate(tokens):
        if bm25 is not None:
            bm25.search(query, K)
        if dense is not None:
            vector = embedder.queries([" ".join(query)]) if embedder is not None else vectors[i:i + 1]
            dense.search(vector, K)
    full = proc.memory_full_info()
    out.update({"after_queries_mb": round(full.rss / MB, 1), "uss_mb": round(full.uss / MB, 1),
                "pss_mb": round(getattr(full, "pss", 0) / MB, 1), "queries": len(tokens),
                "index_mb": round((full.rss - base) / MB, 1)})
    print(json.dumps(out))
    return 0
