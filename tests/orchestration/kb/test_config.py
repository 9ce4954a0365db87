"""knowledge_bases.yaml errors speak the router's style: file, place, what is wrong, the fix."""

import pytest

from core.errors import ConfigError
from orchestration.kb.config import load_kb_config, parse_kb_config

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
    (_with(bm25={"query_terms": "uniqe"}),
     r"bm25: query_terms: unknown query_terms mode 'uniqe'; known: counted, unique.*did you mean 'unique'",
     "knowledge_bases.manuals.bm25.query_terms"),
    (_with(bm25={"query_term": "unique"}), r"manuals: bm25: unknown key 'query_term'.*did you mean 'query_terms'",
     "knowledge_bases.manuals.bm25"),
    (_with(dense={"hnsw_m": True}), r"dense: hnsw_m: must be an integer >= 1, got True",
     "knowledge_bases.manuals.dense.hnsw_m"),
    ({"knowledge_bases": {"bad name": {}}}, r"knowledge_bases: knowledge base name 'bad name' must be",
     "knowledge_bases"),
    (_with(fields={"published": "created_at"}),
     r"kb.yaml: knowledge_bases: manuals: fields: unknown key 'published'; allowed: published_at, updated_at, "
     r"effective_date, expires_at, source, .*author, tags, authority, acl, page \(did you mean 'published_at'\?\)",
     "knowledge_bases.manuals.fields"),
    (_with(fields=["published_at"]), r"manuals: fields: expected a mapping with keys published_at",
     "knowledge_bases.manuals.fields"),
    (_with(fields={"published_at": ""}), r"fields: published_at: each document field name must be a non-empty string",
     "knowledge_bases.manuals.fields.published_at"),
    (_with(fields={"published_at": "updated_at"}),
     r"fields: published_at: 'updated_at' is the field updated_at itself; give the name your documents use for "
     r"published_at", "knowledge_bases.manuals.fields.published_at"),
    (_with(fields={"published_at": "created_on", "updated_at": ["modified", "created_on"]}),
     r"fields: updated_at: 'created_on' is mapped to both published_at and updated_at; map each document field "
     r"to one field", "knowledge_bases.manuals.fields.updated_at"),
])
def test_bad_knowledge_base_configs_name_the_place_and_the_fix(data, message, field):
    with pytest.raises(ConfigError, match=message) as info:
        parse_kb_config(data, source="kb.yaml")
    assert info.value.field == field


def test_a_good_config_parses():
    config = parse_kb_config(GOOD, source="kb.yaml")
    assert config.knowledge_bases["manuals"].chunk_words == 200


def test_fields_map_each_meaning_to_the_documents_own_names_and_merge_with_the_defaults():
    config = parse_kb_config({"defaults": {"fields": {"author": "writers"}},
                              "knowledge_bases": {"blog": {"paths": ["docs"],
                                                           "fields": {"published_at": "created_at",
                                                                      "updated_at": ["modified_on", "edited"]}},
                                                  "specs": {"paths": ["docs"]}}}, source="kb.yaml")
    assert config.knowledge_bases["blog"].fields == {"author": ("writers",), "published_at": ("created_at",),
                                                     "updated_at": ("modified_on", "edited")}
    assert config.knowledge_bases["specs"].fields == {"author": ("writers",)}
    assert parse_kb_config(GOOD, source="kb.yaml").knowledge_bases["manuals"].fields == {}


def test_the_shipped_config_parses_and_maps_no_fields():
    config = load_kb_config()
    assert all(settings.fields == {} for settings in config.knowledge_bases.values())


def test_query_terms_default_to_counted_and_a_kb_inherits_or_overrides_the_defaults():
    assert parse_kb_config(GOOD, source="kb.yaml").knowledge_bases["manuals"].bm25.query_terms == "counted"
    config = parse_kb_config({"defaults": {"bm25": {"query_terms": "unique"}},
                              "knowledge_bases": {"news": {"paths": ["docs"]},
                                                  "specs": {"paths": ["docs"], "bm25": {"query_terms": "counted"}},
                                                  "empty": {"paths": ["docs"], "bm25": None}}}, source="kb.yaml")
    assert {name: kb.bm25.query_terms for name, kb in config.knowledge_bases.items()} == {
        "news": "unique", "specs": "counted", "empty": "unique"}
