"""Refusal reasons as data, written in the question's language (validation/reasons.py)."""

from __future__ import annotations

import pytest

from validation.reasons import TEMPLATES, Reason


def test_each_reason_reads_in_both_languages_with_its_values():
    reason = Reason("slot_unfilled", {"slot": "duration", "head": "kept", "closest": "Logs are archived."})
    assert reason.text("en") == ("the question asks for a duration that 'kept' refers to and no cited sentence "
                                 "on its topic states one; closest: \"Logs are archived.\"")
    assert reason.text("zh") == ("问题问的是时长（与“kept”有关），但相关的引用句子都没有给出；"
                                 "最接近的是：“Logs are archived.”")
    assert Reason("unknown_source", {"sources": ["Bloomberg", "Reuters"]}).text("en").endswith("documents from them")
    assert Reason("names_missing", {"names": ["北京", "上海"]}).text("zh") == \
        "引用的来源没有提到问题所问的 “北京”、“上海”"


def test_a_model_refusal_lists_the_best_units_with_their_probability_and_the_rules_briefly():
    rules = Reason("off_topic", {"needed": 1 / 3, "closest": "Backups run nightly."})
    reason = Reason("low_probability", {"slot": "fact", "best": 0.123, "answered": 0.2, "threshold": 0.31,
                                        "rules": rules, "closest": [("Backups run nightly.", 0.123), ("B.", 0.05)]})
    en = reason.text("en")
    assert ("(best unit p=0.12, answered p=0.20, refused below 0.31); the rules add: no single cited sentence "
            "speaks to the question (each carries under 33% of its terms); "
            "closest: \"Backups run nightly.\" (p=0.12); \"B.\" (p=0.05)") in en
    assert ("规则另外指出：没有一句引用的句子针对这个问题（每句都不到问题词语的 33%）；"
            "最接近的是：“Backups run nightly.” (p=0.12)") in reason.text("zh")
    assert reason.to_dict()["values"]["rules"] == {"code": "off_topic", "values": {"needed": 1 / 3,
                                                                                    "closest": "Backups run nightly."}}


def test_every_template_has_both_languages_and_an_unknown_code_is_refused():
    assert all(len(pair) == 2 and all(pair) for pair in TEMPLATES.values())
    with pytest.raises(ValueError, match="unknown refusal reason 'nope'"):
        Reason("nope")
