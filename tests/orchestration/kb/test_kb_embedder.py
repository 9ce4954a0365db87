"""Each knowledge base's own embedder: chosen by language at ingest or by config, recorded in the
manifest, refused when another model built the index, and used for that KB's queries."""

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

import pytest

from core.errors import IndexUnavailable
from orchestration.kb import layout
from orchestration.kb.config import KBConfig, KBSettings, parse_kb_config
from orchestration.kb.ingest import ingest
from orchestration.kb.manifest import read_manifest
from orchestration.kb.registry import open_knowledge_bases
from orchestration.paths import config_dir
from orchestration.retrieval.embedder import get_embedder
from orchestration.retrieval.search import Retriever, SearchRequest
from orchestration.trace import Trace

NOW = dt.date(2025, 7, 1)  # the searches' date: recency is measured against it
ZH_DOCS = [
    ("invoice", "发票与合同不一致", "发票金额与合同金额不一致时，财务部应暂停付款，并在三个工作日内通知采购部门复核。"),
    ("travel", "差旅住宿标准", "员工出差住宿标准为一线城市每晚不超过六百元，其他城市每晚不超过四百元。"),
    ("fuel", "燃油消耗", "A320neo 在巡航阶段的燃油消耗约为每小时二千二百九十公斤。"),
    ("apu", "辅助动力装置", "故障代码 E5102 表示辅助动力装置在六十秒内未能启动，需要检查启动机。"),
]
EN_DOCS = [
    ("pump", "Fuel pump", "Fault E4031 means the fuel pump pressure fell below 250 kPa during the test."),
    ("leave", "Annual leave", "Employees accrue two days of annual leave per month of service."),
]


def _write(folder: Path, docs) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "docs.jsonl").write_text("\n".join(json.dumps({"id": i, "title": t, "text": x}, ensure_ascii=False)
                                                 for i, t, x in docs) + "\n", encoding="utf-8")
    return folder


def _config(tmp_path: Path, zh_embedder: str | None = None) -> KBConfig:
    kbs = {"zh": {"paths": [str(_write(tmp_path / "zh", ZH_DOCS))]},
           "en": {"paths": [str(_write(tmp_path / "en", EN_DOCS))]}}
    if zh_embedder:
        kbs["zh"]["embedder"] = zh_embedder
    return parse_kb_config({"knowledge_bases": kbs}, base_dir=tmp_path, data_dir=tmp_path / "data")


def _build(config: KBConfig, embedder) -> dict:
    return {name: ingest(settings, config.kb_dir(name), embedder, progress=False)
            for name, settings in config.knowledge_bases.items()}


def _manifest(config: KBConfig, name: str) -> dict:
    return read_manifest(layout.current_build(config.kb_dir(name)), "")


def test_a_chinese_kb_gets_e5_and_an_english_one_keeps_minilm(tmp_path, embedder):
    config = _config(tmp_path)
    reports = _build(config, embedder)
    assert _manifest(config, "zh")["embedder"]["name"] == "multilingual-e5-small-q4"
    assert _manifest(config, "en")["embedder"]["name"] == "all-MiniLM-L6-v2-onnx-int8"
    assert "embedder multilingual-e5-small-q4 (100% of the documents are Chinese" in reports["zh"].summary()
    assert "chunks/s" in reports["zh"].summary()


def test_the_kb_config_overrides_the_language_choice(tmp_path, embedder):
    config = _config(tmp_path, zh_embedder="minilm")
    _build(config, embedder)
    manifest = _manifest(config, "zh")
    assert manifest["embedder"]["name"] == "all-MiniLM-L6-v2-onnx-int8"
    assert "embedder: minilm in config/knowledge_bases.yaml" in manifest["embedder"]["chosen_by"]


def test_a_chinese_question_is_embedded_by_e5_for_the_chinese_kb_only(tmp_path, embedder):
    config = _config(tmp_path)
    _build(config, embedder)
    retriever = Retriever(open_knowledge_bases(config), embedder)
    retriever.warm_up()
    trace = Trace()
    question = "发票和合同金额对不上怎么办？"
    results = retriever.run([SearchRequest(id="t1", kb="zh", query=question, search="vector", top_k=2),
                             SearchRequest(id="t2", kb="en", query=question, search="vector", top_k=2)], trace,
                            NOW)
    assert results[0][0].chunk_id == "invoice#0"
    embeds = [op.to_dict() for op in trace.operations if op.op == "embed"]
    assert sorted((op["params"]["model"], tuple(op["params"]["kbs"])) for op in embeds) == [
        ("all-MiniLM-L6-v2-onnx-int8", ("en",)), ("multilingual-e5-small-q4", ("zh",))]


def test_an_index_built_by_the_fp32_model_is_refused_then_rebuilt_by_a_plain_ingest(tmp_path, embedder):
    class Fp32Stand_in:
        """Records the fp32 model's name (as builds made before the int8 default did), MiniLM's vectors."""

        key, name, dim, threads, loaded = "minilm-torch", "all-MiniLM-L6-v2", 384, None, True

        def warm_up(self):
            pass

        def queries(self, texts):
            return embedder.queries(texts)

        def passages(self, texts, batch_size=32):
            return embedder.passages(texts, batch_size)

    config = _config(tmp_path)
    settings = config.get("en")
    ingest(settings, config.kb_dir("en"), Fp32Stand_in(), progress=False)
    kb = open_knowledge_bases(config)["en"]
    with pytest.raises(IndexUnavailable, match=r"built with embedder 'all-MiniLM-L6-v2' but "
                                               r"'all-MiniLM-L6-v2-onnx-int8' or 'multilingual-e5-small-q4' is "
                                               r"configured; rebuild it with `sightline ingest .* --kb en --rebuild`"):
        kb.warm_up()
    again = ingest(settings, config.kb_dir("en"), embedder, progress=False)  # what `ingest --demo` runs
    assert not again.unchanged and again.embedded == len(EN_DOCS)
    open_knowledge_bases(config)["en"].warm_up()


def test_a_kb_configured_for_one_embedder_refuses_a_build_by_another(tmp_path, embedder):
    config = _config(tmp_path)
    _build(config, embedder)  # zh chose e5 by language
    pinned = replace(config, knowledge_bases={**config.knowledge_bases,
                                              "zh": replace(config.get("zh"), embedder="minilm")})
    with pytest.raises(IndexUnavailable, match="built with embedder 'multilingual-e5-small-q4' but "
                                               "'all-MiniLM-L6-v2-onnx-int8' is configured"):
        open_knowledge_bases(pinned)["zh"].warm_up()


def test_embedder_key_is_validated_in_knowledge_bases_yaml():
    from core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"knowledge_bases: zh: embedder: unknown embedder 'e6'; known: e5, "
                                          r"minilm, minilm-torch"):
        parse_kb_config({"knowledge_bases": {"zh": {"paths": ["x"], "embedder": "e6"}}})
    assert parse_kb_config({"knowledge_bases": {"zh": {"paths": ["x"]}}}).get("zh").embedder is None


def test_a_chinese_kb_answers_a_chinese_question_with_the_e5_arm(tmp_path, embedder):
    from orchestration.router.config import load_router_config
    from server.bootstrap import build_loop
    from server.http.schemas import parse_ask_request

    config = _config(tmp_path).only("zh")
    _build(config, embedder)
    loop = build_loop(kb_config=config, router_config=load_router_config(config_dir() / "router.eval.yaml",
                                                                         known_kbs=["zh"]), use_ner=False)
    loop.warm_up()
    body = loop.run(parse_ask_request({"query": "发票金额与合同不一致时应该怎么处理？", "trace": "full",
                                       "now": "2025-07-01"}))
    assert body["status"] == "answered", body["answer"]
    assert "暂停付款" in body["answer"] and body["citations"][0]["chunk_id"] == "invoice#0"
    embeds = [op for op in body["operations"] if op["op"] == "embed"]
    assert embeds and all(op["params"]["model"] == "multilingual-e5-small-q4" for op in embeds)


def test_settings_default_has_no_embedder():
    assert KBSettings(name="x").embedder is None
    assert get_embedder("e5").key == "e5"
