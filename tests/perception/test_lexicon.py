"""Token-based phrase lexicons: longest match, whole words, Chinese anywhere, plurals, unless."""

from __future__ import annotations

import pytest

from perception.lexicon import PhraseLexicon, plural_variants, tokenize


def found(lexicon, text):
    return [(m.text, m.value) for m in lexicon.finditer(text)]


def test_longest_match_wins():
    lex = PhraseLexicon([("Business World", "bw", "r"), ("Music Business Worldwide", "mbw", "r")])
    assert found(lex, "Music Business Worldwide and Business World") == [
        ("Music Business Worldwide", "mbw"), ("Business World", "bw")]


@pytest.mark.parametrize("text, hits", [
    ("open the ticket", [("open", "x")]),
    ("OpenAI released", []),
    ("reopened", []),
    ("OPEN items", [("OPEN", "x")]),
])
def test_latin_phrases_match_whole_words_any_case(text, hits):
    assert found(PhraseLexicon([("open", "x", "r")]), text) == hits


def test_chinese_matches_inside_words_and_ignores_spaces():
    lex = PhraseLexicon([("发票", "invoice", "r"), ("测试报告", "tr", "r")])
    assert found(lex, "发票金额与测 试报告") == [("发票", "invoice"), ("测 试报告", "tr")]


@pytest.mark.parametrize("phrase, plurals", [
    ("ticket", ["tickets"]), ("policy", ["policies"]), ("day", ["days"]), ("box", ["boxes"]),
    ("tickets", []), ("工单", []),
])
def test_plural_variants(phrase, plurals):
    assert plural_variants(phrase) == plurals


def test_unless_cancels_matches_inside():
    lex = PhraseLexicon([("open", "open", "r")], unless=["open source"])
    assert found(lex, "open source and open tickets") == [("open", "open")]


def test_match_carries_rule_and_tokens():
    m = next(PhraseLexicon([("how to", "how_to", "action.how_to")]).finditer("so how to do it"))
    assert (m.start, m.end, m.rule, m.first, m.last) == (3, 9, "action.how_to", 1, 3)


def test_tokenize_splits_han_and_keeps_codes():
    spans, tokens = tokenize("空客A350的LEAP-1A")
    assert tokens == ("空", "客", "a350", "的", "leap", "-", "1a")
