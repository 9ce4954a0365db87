import pytest

from orchestration.retrieval.tokenize import is_code, tokenize


@pytest.mark.parametrize("code", ["E4027", "A320", "LEAP-1A", "GPT-4", "B737-800", "PW1100G"])
def test_codes_are_kept_whole_and_lowercased(code):
    assert tokenize(f"the {code} fault") == [code.lower(), "fault"]


def test_english_is_lowercased_stemmed_and_stopwords_removed():
    assert tokenize("The engines were Triggered by the vibrations") == ["engin", "were", "trigger", "vibrat"]


def test_plain_hyphenated_words_split_into_parts():
    assert tokenize("state-of-the-art") == ["state", "art"]


def test_numbers_are_kept():
    assert tokenize("fuel burn 2,290 kg at 87%") == ["fuel", "burn", "2290", "kg", "87"]


def test_chinese_is_segmented_by_jieba_with_stopwords_removed():
    tokens = tokenize("发票金额和合同不一致的处理流程")
    assert "发票" in tokens and "合同" in tokens and "流程" in tokens
    assert "的" not in tokens and "和" not in tokens


def test_mixed_script_keeps_codes_inside_chinese():
    tokens = tokenize("故障代码E4027如何复位")
    assert "e4027" in tokens and "复位" in tokens


def test_same_text_always_gives_same_tokens():
    text = "A320neo 燃油 consumption in 2023"
    assert tokenize(text) == tokenize(text)


@pytest.mark.parametrize("word,expected", [("A320", True), ("engine", False), ("2023", False), ("GPT-4", True)])
def test_is_code(word, expected):
    assert is_code(word) is expected


def test_thousands_separators_do_not_change_a_number():
    assert tokenize("2,290 kg") == tokenize("2290 kg")
