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
    unwritten = Reason("unwritten", {"terms": ["zstd", "OIDC"]})
    assert unwritten.text("en") == ("no document you may read in the knowledge bases searched writes 'zstd', "
                                    "'OIDC', which the question asks about")
    assert unwritten.text("zh") == "在所检索的知识库中，你可以查看的文档都没有写到问题所问的 “zstd”、“OIDC”"


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


def test_a_note_about_disagreeing_sources_or_a_missing_side_reads_in_chinese_too():
    """RGB zh: a Chinese answer's note read "注意: sources disagree: '' (rgbzh_q131_pos) says ..."."""
    source = {"title": "东方-2022", "source": "新华社", "date": "2022-08-31"}
    other = {"title": "东方-2022", "source": "", "date": ""}
    reason = Reason("conflicting_sources", {"mine": source, "claim": "演习于8月31日开幕。", "other": other,
                                            "sentence": "演习于9月1日开幕。", "preferred": source, "rule": "newer"})
    assert reason.text("zh") == ("来源不一致：“东方-2022” (新华社, 2022-08-31) 说 “演习于8月31日开幕。”，"
                                 "而 “东方-2022” 说 “演习于9月1日开幕。”；"
                                 "以 “东方-2022” (新华社, 2022-08-31) 为准（更新）")
    assert reason.text("en").startswith("sources disagree: '东方-2022' (新华社, 2022-08-31) says "
                                        "\"演习于8月31日开幕。\"")
    side = Reason("missing_side", {"side": "B737", "elsewhere": ["b#0", "b#1"]})
    assert side.text("en") == ("the comparison side 'B737' is not covered by any cited claim; 2 evidence chunk(s) "
                               "mention it but are not cited (b#0, b#1)")
    assert side.text("zh") == "比较的一方 “B737” 没有任何引用的陈述覆盖；有 2 个证据片段提到它但没有被引用（b#0, b#1）"
