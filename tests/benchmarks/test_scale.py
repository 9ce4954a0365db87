"""benchmarks/scale.py end to end at ~2,000 chunks: every figure in the report, and a KB that answers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.scale import KB, NOW, RandomUnitEmbedder, _config, table

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.model  # the worker stage loads MiniLM's query model and the loop spaCy NER (in a subprocess)
def test_scale_reports_every_figure_and_its_kb_answers_a_keyword_query(tmp_path):
    out = tmp_path / "scale.json"
    subprocess.run([sys.executable, "-m", "benchmarks.scale", "--chunks", "2000", "--queries", "20",
                    "--questions", "3", "--out", str(tmp_path / "work"), "--json", str(out)],
                   cwd=REPO, check=True, capture_output=True, text=True)
    figures = json.loads(out.read_text(encoding="utf-8"))
    build, worker = figures["build"], figures["worker"]
    assert 1500 <= build["chunks"] <= 2600 and build["skipped"] == 0
    assert build["dense_kind"] == "flat"  # below the config's hnsw_threshold
    assert build["seconds"] > 0 and build["peak_rss_mb"] > 0
    assert {"chunk", "bm25", "embed", "dense"} <= set(build["stages"])
    assert {"chunks.sqlite", "dense/index.faiss"} <= set(build["disk_mb"]) and build["disk_total_mb"] > 0
    for when in ("opened", "after_queries", "after_loop"):
        assert set(worker["rss_mb"][when]) == {"total", "anon", "file"} and worker["rss_mb"][when]["total"] > 0
    assert worker["peak_rss_mb"] > 0
    for name in ("keyword", "dense", "hybrid", "embed_query", "loop"):
        figure = worker["latency"][name]
        assert figure["n"] > 0 and 0 < figure["p50_ms"] <= figure["p95_ms"], name
    assert worker["self_check"]["found"] == worker["self_check"]["of"] == 20
    assert all(p["top_text_has_words"] for p in worker["self_check"]["probes"])
    text = table(figures)
    assert "hybrid query p50 / p95" in text and "vectors random" in text and "worker RSS after loop" in text

    # the KB left in --out answers a keyword query of a stored chunk's words with that chunk
    from orchestration.kb.registry import open_knowledge_bases
    from orchestration.retrieval.search import Retriever, SearchRequest
    from orchestration.trace import Trace

    retriever = Retriever(open_knowledge_bases(_config(tmp_path / "work" / "data", None)), RandomUnitEmbedder())
    store = retriever.kb(KB).store
    assert store is not None
    chunk = store.get_rows([7])[0]
    words = sorted(set(re.findall(r"[a-z]{6,}", chunk.text.lower())), key=len)[-4:]
    found = retriever.run([SearchRequest(id="t", kb=KB, query=" ".join(words), search="keyword")], Trace(), NOW)[0]
    assert chunk.chunk_id in [s.chunk_id for s in found]
    assert all(w in found[0].text.lower() for w in words)
