"""Rule entities (codes, quoted names, glossary terms, sources) and the ingest-time extractor."""

from __future__ import annotations

import pytest

from perception import extract_entities
from perception.entities import EntityRules


@pytest.fixture(scope="module")
def rules(cfg):
    return EntityRules(cfg, ["TechCrunch", "The Verge"])


def labelled(rules, text):
    return [(e.text, e.label) for e in rules.extract(text)]


@pytest.mark.parametrize("code", ["A320", "B737", "E4027", "LEAP-1A", "GPT-4", "GPT-4o", "A320neo", "COVID-19",
                                  "737-800", "0x80070005", "X1", "PEP 3103", "RFC 9110", "ISO 8601"])
def test_codes(rules, code):
    entities = rules.extract(f"What about {code} here?")
    assert [(e.text, e.label, e.origin) for e in entities] == [(code, "CODE", "pattern")]
    assert entities[0].normalized == code.upper()


@pytest.mark.parametrize("text, code", [("空客A350的油耗", "A350"), ("（B737）", "B737"), ("A320,B737", "A320")])
def test_codes_inside_chinese_and_punctuation(rules, text, code):
    assert code in [e.text for e in rules.extract(text) if e.label == "CODE"]


@pytest.mark.parametrize("text", ["Q2 results", "in H1", "iPhone", "version 3.2", "2023", "ab12", "FY2024",
                                  "pay USD 500 now", "EUR 50", "PEP 3.1"])
def test_not_codes(rules, text):
    assert [e for e in rules.extract(text) if e.label == "CODE"] == []


@pytest.mark.parametrize("text, inner", [
    ('the "Dream Track" project', "Dream Track"),
    ("the 'Dream Track' project", "Dream Track"),
    ("the “Dream Track” project", "Dream Track"),
    ("《安全生产法》的规定", "安全生产法"),
    ("「测试」", "测试"),
])
def test_quoted_names(rules, text, inner):
    quoted = [e for e in rules.extract(text) if e.label == "QUOTED"]
    assert [e.text for e in quoted] == [inner]
    s, t = quoted[0].span
    assert text[s:t] == inner


def test_apostrophes_are_not_quotes(rules):
    assert [e for e in rules.extract("Google's and Apple's plans") if e.label == "QUOTED"] == []


def test_quoted_source_is_a_source_only(rules):
    assert labelled(rules, "according to 'TechCrunch'") == [("TechCrunch", "SOURCE")]


@pytest.mark.parametrize("text, expected", [
    ("发票金额和合同不一致", [("发票", "TERM", "invoice"), ("金额", "TERM", "amount"), ("合同", "TERM", "contract")]),
    ("fuel efficiency of the fleet", [("fuel efficiency", "TERM", "fuel efficiency")]),
    ("Airbus and 波音", [("Airbus", "ORG", "Airbus"), ("波音", "ORG", "Boeing")]),
])
def test_glossary_terms(rules, text, expected):
    assert [(e.text, e.label, e.normalized) for e in rules.extract(text)] == expected
    assert all(e.origin == "rule" for e in rules.extract(text))


def test_spans_point_at_the_text(rules):
    text = "Compare A320 and B737 per TechCrunch's \"fuel burn\" data"
    for e in rules.extract(text):
        assert text[e.span[0]:e.span[1]] == e.text


def test_extract_entities_finds_codes_and_models_without_the_model():
    """Speed is measured in benchmarks/perception_latency.py (`extract_entities_200_words`), not here."""
    chunk = ("The A320neo fleet uses LEAP-1A engines; error code E4027 is raised when the fuel efficiency "
             "monitor sees a 'sensor drift' on the B737 test rig. ") * 8   # about 200 words
    entities = extract_entities(chunk)
    assert {"A320NEO", "LEAP-1A", "E4027", "B737"} <= {e.normalized for e in entities}


# --- product / model names (entities.models) ---------------------------------------------------

@pytest.mark.parametrize("text, name, label, normalized", [
    ("fuel burn of the 737 MAX 8 fleet", "737 MAX 8", "PRODUCT", "737 MAX 8"),
    ("the 737 Max 9 grounding", "737 Max 9", "PRODUCT", "737 Max 9"),
    ("the 737 MAX", "737 MAX", "PRODUCT", "737 MAX"),
    ("737-800 seats", "737-800", "CODE", "737-800"),
    ("A320neo orders", "A320neo", "CODE", "A320NEO"),
    ("the A321NEO", "A321NEO", "CODE", "A321NEO"),
    ("777X delays", "777X", "CODE", "777X"),
    ("A350-900 range", "A350-900", "CODE", "A350-900"),
    ("A350 XWB cabin", "A350 XWB", "PRODUCT", "A350 XWB"),
    ("Tesla's Model 3 price", "Model 3", "PRODUCT", "Model 3"),
    ("Model Y deliveries", "Model Y", "PRODUCT", "Model Y"),
    ("the iPhone 15 Pro camera", "iPhone 15 Pro", "PRODUCT", "iPhone 15 Pro"),
    ("iPhone 15 Pro Max battery", "iPhone 15 Pro Max", "PRODUCT", "iPhone 15 Pro Max"),
    ("Pixel 8 review", "Pixel 8", "PRODUCT", "Pixel 8"),
    ("Galaxy S24 Ultra", "Galaxy S24 Ultra", "PRODUCT", "Galaxy S24 Ultra"),
    ("Falcon 9 launches", "Falcon 9", "PRODUCT", "Falcon 9"),
    ("波音737 MAX 8的油耗", "737 MAX 8", "PRODUCT", "737 MAX 8"),
])
def test_model_names(rules, text, name, label, normalized):
    hits = [e for e in rules.extract(text) if e.text == name]
    assert [(e.label, e.origin, e.normalized) for e in hits] == [(label, "pattern", normalized)]
    s, t = hits[0].span
    assert text[s:t] == name


@pytest.mark.parametrize("text, org, name, normalized", [
    ("Boeing 737 MAX 8 deliveries", "Boeing", "737 MAX 8", "737 MAX 8"),
    ("the Airbus A320neo family", "Airbus", "A320neo", "A320NEO"),
    ("Boeing 737 jets", "Boeing", "737", "737"),            # a manufacturer licenses a bare number
    ("空客A350的油耗", "空客", "A350", "A350"),
])
def test_manufacturer_prefix_stays_its_own_entity(rules, text, org, name, normalized):
    got = [(e.text, e.label, e.normalized) for e in rules.extract(text) if e.label != "TERM"]
    assert got[0][:2] == (org, "ORG")
    assert (got[1][0], got[1][2]) == (name, normalized)


@pytest.mark.parametrize("text", [
    "737 cases were reported", "over 100 plus tax", "a model 3 times larger", "$500 Plus",
    "the 2023 Pro Bowl", "pro 15 max", "page 737",
])
def test_not_model_names(rules, text):
    assert [e for e in rules.extract(text) if e.label in ("PRODUCT", "CODE")] == []


@pytest.mark.parametrize("text", ["B737 and A320 rates", "A320,B737", "E4027 on the B737"])
def test_family_codes_still_codes(rules, text):
    assert all(e.label == "CODE" for e in rules.extract(text))
    assert len(rules.extract(text)) == 2


def test_model_vocabulary_comes_from_config(cfg):
    import dataclasses

    from perception.config import ModelNames
    custom = dataclasses.replace(cfg, models=ModelNames(series=("Widget",), suffixes=("Turbo",)))
    got = [(e.text, e.label) for e in EntityRules(custom).extract("the Widget 7 Turbo and the Pixel 8")]
    assert got == [("Widget 7 Turbo", "PRODUCT")]
