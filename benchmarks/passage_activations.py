"""SciFact passages on MiniLM's int8-activation model against the packaged one, side by side.

    python -m benchmarks.passage_activations [--data DIR] [--json]

Embeds every SciFact abstract (title and text, 256 tokens) with both ONNX models at once, one
process and one thread each (`MiniLMOnnxEmbedder`'s passage model and the int8-activation model
queries run on, `query_model.py`), and reports each one's passages per second, the cosine of each
pair of vectors, and dense-only nDCG@10 over the 300 test queries (queries embedded as the
service embeds them). Retrieval is on whole abstracts, not the ingest's chunks: a quick read of
whether the passages could move to the faster model, not the `sightline eval scifact` figure.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import time
from pathlib import Path

import numpy as np

from orchestration.retrieval.embedder import PASSAGE, QUERY, MiniLMOnnxEmbedder

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "eval" / "scifact"
BATCH = 64


def _texts(data: Path) -> tuple[list[str], list[str]]:
    """The corpus's ids and indexed texts (title, newline, text)."""
    docs = [json.loads(line) for line in (data / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return [d["_id"] for d in docs], [f"{d['title']}\n{d['text']}" for d in docs]


def _embed(job: tuple[str, str]) -> tuple[str, np.ndarray, float]:
    """Worker: (role, vectors, passages per second) of every text, one thread, in its own process."""
    role, data = job
    embedder = MiniLMOnnxEmbedder(threads=1)
    embedder._session(role, 1)  # load before timing
    _, texts = _texts(Path(data))
    started = time.perf_counter()
    vectors = np.concatenate([embedder._run(texts[i:i + BATCH], role, 1, BATCH) for i in range(0, len(texts), BATCH)])
    return role, vectors, len(texts) / (time.perf_counter() - started)


def ndcg_at_10(vectors: np.ndarray, ids: list[str], queries: np.ndarray, wanted: list[dict[str, int]]) -> float:
    """Mean nDCG@10 of ranking `vectors` by inner product with each query."""
    scores = queries @ vectors.T
    total = 0.0
    for row, relevant in enumerate(wanted):
        top = np.argsort(-scores[row])[:10]
        dcg = sum(relevant.get(ids[j], 0) / math.log2(rank + 2) for rank, j in enumerate(top))
        ideal = sum(1 / math.log2(rank + 2) for rank in range(min(10, len(relevant))))
        total += dcg / ideal
    return total / len(wanted)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="SciFact's folder")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        done = {role: (vectors, rate) for role, vectors, rate in
                pool.map(_embed, [(PASSAGE, str(args.data)), (QUERY, str(args.data))])}
    ids, _ = _texts(args.data)
    qrels: dict[str, dict[str, int]] = {}
    for line in (args.data / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        query, doc, score = line.split("\t")
        qrels.setdefault(query, {})[doc] = int(score)
    questions = [json.loads(line) for line in (args.data / "queries_test.jsonl").read_text(encoding="utf-8")
                 .splitlines() if line]
    questions = [q for q in questions if q["_id"] in qrels]
    queries = MiniLMOnnxEmbedder(threads=1).queries([q["text"] for q in questions])
    wanted = [qrels[q["_id"]] for q in questions]
    cosines = (done[PASSAGE][0] * done[QUERY][0]).sum(axis=1)
    out = {"abstracts": len(ids), "queries": len(questions),
           "passages_per_s": {"packaged": round(done[PASSAGE][1], 1), "int8_activations": round(done[QUERY][1], 1)},
           "ndcg@10": {"packaged": round(ndcg_at_10(done[PASSAGE][0], ids, queries, wanted), 4),
                       "int8_activations": round(ndcg_at_10(done[QUERY][0], ids, queries, wanted), 4)},
           "cosine": {"min": round(float(cosines.min()), 4), "median": round(float(np.median(cosines)), 4)}}
    print(json.dumps(out, indent=2) if args.json else out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
