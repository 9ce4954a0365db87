"""knowledge_bases.yaml errors speak the router's style: file, place, what is wrong, the fix."""

import pytest

from core.errors import ConfigError
from orchestration.kb.config import parse_kb_config

GOOD = {"knowledge_bases": {"manuals": {"paths": ["docs"], "chunk_words": 200}}}


def _with(**kb):
    return {"knowledge_bases": {"manuals": {"paths": ["docs"], **kb}}}


@pytest.mark.parametrize("data, message, field", [
    ({"knowledge_base": {}}, r"kb.yaml: unknown key 'knowledge_base'.*did you mean 'knowledge_bases'", None),
    ({"defaults": {}}, r"kb.yaml: missing key 'knowledge_bases'", None),
    (_with(chunk_word=100), r"kb.yaml: knowledge_bases: manuals: unknown key 'chunk_word'.*did you mean 'chunk_words'",
     "knowledge_bases.manuals"),
    (_with(chunk_words=0), r"knowledge_bases: manuals: chunk_words: must be an integer >= 1, got 0",
     "knowledge_bases.manuals.chunk_words"),
    (_with(chunk_words=100, overlap_words=100), r"overlap_words: must be smaller than chunk_words \(100\)",
     "knowledge_bases.manuals.overlap_words"),
    (_with(fusion={"method": "rff"}), r"fusion: method: unknown fusion method 'rff'.*did you mean 'rrf'",
     "knowledge_bases.manuals.fusion.method"),
    (_with(fusion={"weights": {"keyword": 0, "vector": 0}}),
     r"fusion: weights: at least one arm needs a weight above 0", "knowledge_bases.manuals.fusion.weights"),
    (_with(fusion={"weights": {"vectr": 1}}), r"weights: unknown key 'vectr'.*did you mean 'vector'",
     "knowledge_bases.manuals.fusion.weights"),
    (_with(dense={"hnsw_m": True}), r"dense: hnsw_m: must be an integer >= 1, got True",
     "knowledge_bases.manuals.dense.hnsw_m"),
    ({"knowledge_bases": {"bad name": {}}}, r"knowledge_bases: knowledge base name 'bad name' must be",
     "knowledge_bases"),
])
def test_bad_knowledge_base_configs_name_the_place_and_the_fix(data, message, field):
    with pytest.raises(ConfigError, match=message) as info:
        parse_kb_config(data, source="kb.yaml")
    assert info.value.field == field


def test_a_good_config_parses():
    config = parse_kb_config(GOOD, source="kb.yaml")
    assert config.knowledge_bases["manuals"].chunk_words == 200
