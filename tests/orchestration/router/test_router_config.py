"""Loading and validating router configs: every error names the file, the place and the fix."""

from __future__ import annotations

import copy
import hashlib

import pytest
import yaml

from core.errors import ConfigError
from orchestration.paths import REPO_ROOT
from orchestration.router import load_router_config, parse_router_config
from orchestration.router.config import PlanLimits

KBS = ("manuals", "policies", "reports")
GOOD = {"rules": [{"name": "broad", "when": {"always": True}, "emit": [{"kb": "*"}]}]}


def with_rule(**changes) -> dict:
    """GOOD with its rule's keys replaced (None deletes a key)."""
    data = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is None:
            data["rules"][0].pop(key, None)
        else:
            data["rules"][0][key] = value
    return data


def with_emit(**changes) -> dict:
    """GOOD with its emit item's keys replaced."""
    data = copy.deepcopy(GOOD)
    data["rules"][0]["emit"][0].update(changes)
    return data


def test_minimal_config_gets_defaults():
    cfg = parse_router_config(GOOD, "test.yaml", KBS)
    assert cfg.limits == PlanLimits() and cfg.limits.max_retries == 2
    assert cfg.fusion.method == "rrf" and cfg.fusion.k == 60
    spec = cfg.rules[0].emit[0]
    assert (spec.kbs, spec.search, spec.weight, spec.top_k, spec.query.text) == (("*",), "hybrid", 1.0, 10, "{query}")
    assert cfg.known_kbs == KBS and cfg.source == "test.yaml" and len(cfg.version) == 12


def test_unknown_kb_names_file_rule_and_known_kbs():
    data = {"rules": [{"name": "time-keyword", "when": {"has": ["time"]}, "emit": [{"kb": "regs"}]}]}
    with pytest.raises(ConfigError, match=r"^config/router.yaml: rule 'time-keyword': unknown kb 'regs'; "
                                          r"known: manuals, policies, reports") as err:
        parse_router_config(data, "config/router.yaml", KBS)
    assert err.value.field == "rules[0].emit[0].kb"


@pytest.mark.parametrize("data, message", [
    ({"rules": [], "extra": 1},
     r"test.yaml: unknown key 'extra'; allowed: defaults, limits, fusion, credibility, retry, rules"),
    ({}, r"test.yaml: missing key 'rules'"),
    ({"rules": []}, r"rules: must be a non-empty list"),
    (with_rule(unles=1),
     r"rule 'broad': unknown key 'unles'; allowed: name, enabled, why, when, unless, emit \(did you mean 'unless'\?\)"),
    (with_rule(name=None), r"rules\[0\]: missing key 'name'"),
    (with_rule(when={}), r"rule 'broad': when: is empty; give at least one test"),
    (with_rule(when={"acton": "compare"}), r"rule 'broad': when: unknown key 'acton'.*did you mean 'action'"),
    (with_rule(when={"action": "contrast"}), r"when: action: unknown action 'contrast'; known: compare, explain"),
    (with_rule(when={"has": ["time", "colour"]}),
     r"unknown constraint 'colour'; known: time, status, doc_type, source, entities, quantitative"),
    (with_rule(when={"language": "fr"}), r"unknown language 'fr'; known: en, zh"),
    (with_rule(when={"always": False}), r"always: must be true \(to switch a rule off, use 'enabled: false'\)"),
    (with_rule(when={"entities_min": 0}), r"entities_min: must be an integer >= 1, got 0"),
    (with_rule(when={"entity_labels": ["GADGET"]}), r"unknown entity label 'GADGET'"),
    (with_rule(when={"text_matches": "(unclosed"}), r"text_matches: not a valid regular expression"),
    (with_rule(emit=[]), r"rule 'broad': emit: must be a non-empty list"),
    (with_emit(search="semantic"),
     r"rule 'broad': search: unknown search type 'semantic'; known: hybrid, keyword, vector"),
    (with_emit(weight=1.5), r"rule 'broad': weight: must be a number >= 0 and <= 1, got 1.5"),
    (with_emit(weight=-0.1), r"weight: must be a number >= 0"),
    (with_emit(top_k=0), r"top_k: must be an integer between 1 and 50"),
    (with_emit(query="{entity} fuel"), r"query: placeholder '\{entity\}' needs 'for_each: entity'"),
    (with_emit(query="{qurey}"), r"query: unknown placeholder '\{qurey\}'; known: \{query\}.*did you mean 'query'"),
    (with_emit(query="{query"), r"query: bad braces"),
    (with_emit(for_each="kb"), r"unknown for_each 'kb'; known: entity, source"),
    (with_emit(cap=2), r"cap: 'cap' needs 'for_each: entity' or 'for_each: source'"),
    (with_emit(for_each="entity", cap=9), r"cap: must be an integer between 1 and 4, got 9"),
    (with_emit(filters={"status": ["finished"]}),
     r"filters: status: unknown status 'finished'; known: effective.*or 'perception'"),
    (with_emit(filters={"doc_type": "memo"}), r"unknown doc_type 'memo'"),
    (with_emit(filters={"time": "always"}), r"filters: time: unknown time source 'always'; known: perception, none"),
    (with_emit(filters={"exclude_status": ["old"]}), r"exclude_status: unknown status 'old'"),
    (with_emit(filters={"tiem": "perception"}), r"filters: unknown key 'tiem'.*did you mean 'time'"),
    (with_emit(for_each="source", filters={"source": "perception"}), r"for_each: source already filters each task"),
    (with_emit(kb=["manuals", "regs"]), r"rule 'broad': unknown kb 'regs'; known: manuals, policies, reports"),
    ({**GOOD, "limits": {"max_tasks": 0}}, r"limits: max_tasks: must be an integer >= 1, got 0"),
    ({**GOOD, "limits": {"max_task": 3}}, r"limits: unknown key 'max_task'.*did you mean 'max_tasks'"),
    ({**GOOD, "fusion": {"method": "borda"}},
     r"fusion: method: unknown fusion method 'borda'; known: rrf, weighted_sum"),
    ({**GOOD, "fusion": {"k": 0}}, r"fusion: k: must be a number > 0"),
    ({**GOOD, "retry": {"missing_sid": ["add_entity_task"]}},
     r"retry: unknown key 'missing_sid'.*did you mean 'missing_side'"),
    ({**GOOD, "retry": {"no_evidence": ["pray"]}},
     r"retry: no_evidence: unknown hint action 'pray'; known: add_entity_task"),
    ({**GOOD, "credibility": {"recency_floor": 2}}, r"credibility: recency_floor must be between 0 and 1"),
    ({**GOOD, "credibility": {"half_life": 3}}, r"credibility: unknown key 'half_life'"),
    ({**GOOD, "defaults": {"search": "fuzzy"}}, r"defaults: search: unknown search type 'fuzzy'"),
])
def test_invalid_configs_are_refused_with_the_fix(data, message):
    with pytest.raises(ConfigError, match=message):
        parse_router_config(data, "test.yaml", KBS)


def test_duplicate_and_reserved_rule_names_are_refused():
    rule = GOOD["rules"][0]
    with pytest.raises(ConfigError, match=r"rule 'broad': the name is already used"):
        parse_router_config({"rules": [rule, rule]}, "test.yaml", KBS)
    with pytest.raises(ConfigError, match=r"rule 'fallback'"):
        parse_router_config({"rules": [{**rule, "name": "fallback"}]}, "test.yaml", KBS)


def test_emit_errors_name_the_item_when_a_rule_has_several():
    data = copy.deepcopy(GOOD)
    data["rules"][0]["emit"].append({"kb": "manuals", "search": "fuzzy"})
    with pytest.raises(ConfigError, match=r"rule 'broad', emit #2: search: unknown search type") as err:
        parse_router_config(data, "test.yaml", KBS)
    assert err.value.field == "rules[0].emit[1].search"


def test_retry_section_is_typed():
    cfg = parse_router_config({**GOOD, "retry": {"no_evidence": ["widen", "relax_filters"], "missing_side": []}},
                              "test.yaml", KBS)
    assert cfg.retry == {"no_evidence": ("widen", "relax_filters"), "missing_side": ()}


def test_load_names_the_file_and_hashes_its_bytes(tmp_path):
    path = tmp_path / "router.yaml"
    path.write_text("rules:\n  - name: broad\n    when: {always: true}\n    emit: [{kb: '*'}]\n", encoding="utf-8")
    cfg = load_router_config(path, known_kbs=KBS)
    assert cfg.version == hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    assert cfg.source == str(path)
    path.write_text("rules: [\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"{path}: not valid YAML"):
        load_router_config(path, known_kbs=KBS)
    with pytest.raises(ConfigError, match=r"missing.yaml: cannot read the router config"):
        load_router_config(tmp_path / "missing.yaml", known_kbs=KBS)


def test_default_path_is_the_config_dir(monkeypatch, tmp_path):
    (tmp_path / "router.yaml").write_text("rules:\n  - name: r\n    when: {always: true}\n    emit: [{kb: x}]\n")
    monkeypatch.setenv("SIGHTLINE_CONFIG_DIR", str(tmp_path))
    assert load_router_config(known_kbs=["x"]).rules[0].name == "r"


def test_shipped_configs_load_with_their_credibility_section():
    cfg = load_router_config(REPO_ROOT / "config" / "router.yaml", known_kbs=KBS)
    assert cfg.source == "config/router.yaml"
    assert cfg.credibility.status["superseded"] == 0.5 and cfg.limits.max_retries == 2
    assert [r.name for r in cfg.rules][0] == "compare-per-entity"
    multihop = load_router_config(REPO_ROOT / "config" / "router.multihop.yaml", known_kbs=["multihop"])
    assert {s for r in multihop.rules for spec in r.emit for s in spec.kbs} == {"multihop"}
    credibility = multihop.credibility
    assert (credibility.half_life_days, credibility.recency_floor, credibility.status) == (3650, 0.8, {})


def test_a_config_naming_an_unserved_kb_is_refused_with_the_served_ones():
    with pytest.raises(ConfigError,
                       match=r"config/router.multihop.yaml: rule '.*': unknown kb 'multihop'; known: news"):
        load_router_config(REPO_ROOT / "config" / "router.multihop.yaml", known_kbs=["news"])


def test_a_retry_action_validation_never_suggests_for_that_kind_is_refused():
    """The shipped tables listed exclude_chunk for outside_window: validation never suggests it, so it never ran."""
    text = ("rules:\n  - name: r\n    when: {always: true}\n    emit: [{kb: x}]\n"
            "retry:\n  outside_window: [exclude_chunk]\n")
    with pytest.raises(ConfigError,
                       match="validation never suggests exclude_chunk for outside_window.*add_time_filter"):
        parse_router_config(yaml.safe_load(text), "router.yaml", ["x"])


def test_validation_suggests_exactly_the_adjustments_of_the_contract_table():
    """validation/hints.py and router/adjust.SUGGESTED are one relation: every rule's hints stay inside it."""
    import datetime as dt

    from orchestration.retrieval.scored import ScoredChunk
    from orchestration.router.adjust import SUGGESTED
    from orchestration.types import Claim
    from perception.types import Constraints, Perception, TimeWindow
    from validation.context import CheckContext
    from validation.hints import HINT_RULES, hints_for
    from validation.types import Issue

    assert set(HINT_RULES) == set(SUGGESTED)
    chunk = ScoredChunk("c1", "kb", "text", "title", {"status": "superseded", "published_at": "2001-01-01"})
    perception = Perception("q", "en", "compare", constraints=Constraints(
        time=TimeWindow(dt.date(2024, 1, 1), dt.date(2024, 12, 31), "in 2024")))
    context = CheckContext(now=dt.date(2025, 7, 1), max_age_days={"*": 365})
    for kind in SUGGESTED:
        issue = Issue("x", kind, "detail", claim=0, chunk_id="c1", entity="A320")
        produced = {h.action for h in hints_for([issue], perception, [chunk], context, [Claim("A320 [1].", [1])])}
        assert produced <= set(SUGGESTED[kind]), (kind, produced)
        assert produced or not SUGGESTED[kind], f"{kind}: validation suggests nothing the table lists"
