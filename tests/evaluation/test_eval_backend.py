"""`sightline eval --backend milvus`: the retrieval sets searched on milvus-lite, beside the local builds.

A tiny SciFact-shaped set is built for both backends from the same abstracts with the real
MiniLM and searched in every mode: the vector arm is an exact inner product on both, so its
rankings and metrics are equal; the keyword arm uses the engine's BM25 statistics on milvus.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from core.errors import RequestError
from evaluation.datasets import load_queries
from evaluation.runner import RETRIEVAL_SETS, eval_kb_config, prepare_retriever, retrieve, run_retrieval_modes, run_set
from server.cli import main

ABSTRACTS = {
    "1": ("Aspirin and platelets", "Low-dose aspirin inhibits platelet aggregation by blocking cyclooxygenase."),
    "2": ("Statins and LDL", "Statin therapy lowers LDL cholesterol and reduces cardiovascular events."),
    "3": ("Vitamin D and fractures", "Vitamin D supplements did not reduce hip fractures in older adults."),
    "4": ("Sleep and memory", "Slow-wave sleep consolidates declarative memory in young adults."),
    "5": ("Coffee and arrhythmia", "Moderate coffee intake was not associated with atrial fibrillation."),
    "6": ("Exercise and depression", "Aerobic exercise reduced depressive symptoms as much as sertraline."),
    "7": ("Malaria vaccine", "The RTS,S vaccine cut clinical malaria episodes in African children by a third."),
    "8": ("Gut microbiome", "Antibiotics reduce gut microbiome diversity for months after a short course."),
}
QUERIES = {"q1": ("aspirin blocks platelet aggregation", "1"), "q2": ("statins reduce heart attacks", "2"),
           "q3": ("does vitamin D prevent hip fractures", "3"), "q4": ("malaria vaccine in children", "7")}


@pytest.fixture
def scifact_dir(tmp_path):
    """A data folder holding a SciFact-shaped set: corpus, test queries and their qrels."""
    folder = tmp_path / "data" / "scifact"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(
        json.dumps({"_id": i, "title": title, "text": text}) + "\n" for i, (title, text) in ABSTRACTS.items()))
    (folder / "queries_test.jsonl").write_text("".join(
        json.dumps({"_id": q, "text": text}) + "\n" for q, (text, _) in QUERIES.items()))
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{doc}\t1\n" for q, (_, doc) in QUERIES.items()))
    return tmp_path / "data"


def test_the_milvus_eval_config_keeps_its_builds_apart_from_the_local_ones(tmp_path):
    local, milvus = eval_kb_config(tmp_path), eval_kb_config(tmp_path, "milvus")
    assert set(milvus.knowledge_bases) == set(local.knowledge_bases)
    for name, settings in milvus.knowledge_bases.items():
        assert settings.backend == "milvus" and settings.milvus is not None
        assert settings.milvus.collection == f"sightline_eval_{name}"
        assert settings.milvus.uri == str(local.data_dir / "milvus" / "engine.db")
        assert milvus.kb_dir(name) != local.kb_dir(name)  # switching backends never rebuilds the other's
        assert settings.paths == local.get(name).paths
    with pytest.raises(RequestError, match="local or milvus"):
        eval_kb_config(tmp_path, "elasticsearch")


def test_an_answer_set_on_milvus_is_refused_before_anything_runs(tmp_path, capsys):
    assert set(RETRIEVAL_SETS) == {"scifact", "multihop", "hotpotqa"}
    with pytest.raises(RequestError, match="retrieval sets"):
        run_set("rgb", tmp_path, backend="milvus", progress=False)
    assert main(["eval", "multihop", "peps", "--backend", "milvus", "--data", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "evaluate peps on the local backend" in err and "multihop" in err


def test_a_tiny_scifact_set_on_both_backends(scifact_dir, tmp_path, embedder):
    base = replace(eval_kb_config(scifact_dir).only("scifact"), data_dir=tmp_path / "var")
    configs = {"local": base, "milvus": base.on_milvus(tmp_path / "var" / "milvus", str(tmp_path / "engine.db"))}
    items = load_queries("scifact", scifact_dir / "scifact")
    results = {}
    for backend, config in configs.items():
        retriever, built = prepare_retriever("scifact", scifact_dir, False, config)
        assert built["documents"] == len(ABSTRACTS)
        metrics, _latency, _ = run_retrieval_modes("scifact", "scifact", retriever, items, False)
        dense = [[c.chunk_id for c in retrieve(retriever, "scifact", q, "dense", 10)[0]] for q in items]
        results[backend] = (metrics, dense)
    (local, local_dense), (milvus, milvus_dense) = results["local"], results["milvus"]
    assert milvus_dense == local_dense  # the same vectors, exact inner product on both
    assert milvus["dense"] == pytest.approx(local["dense"])
    for mode in ("bm25", "hybrid"):  # each set's one abstract ranks first on both backends
        assert milvus[mode]["ndcg@10"] == pytest.approx(1.0) and local[mode]["ndcg@10"] == pytest.approx(1.0)
