"""orchestration.unwritten: the question's specific words no knowledge base writes."""

from __future__ import annotations

import datetime as dt

import pytest

from orchestration.focus import Focus
from orchestration.retrieval.bm25 import BM25Index
from orchestration.retrieval.tokenize import tokenize
from orchestration.unwritten import Vocabulary, specific_words, unwritten_words, vocabulary_of
from perception import PerceptionAgent

DOCS = ["The compression mode is one of auto, off and max.",
        "Snapshots are retained for 30 days. The government of Ohio granted land.",
        "The Sahara sends dust west; ciphertext is authenticated."]


@pytest.fixture(scope="module")
def perception():
    agent = PerceptionAgent(use_ner=False)
    agent.warm_up()
    return agent


@pytest.fixture(scope="module")
def vocabulary():
    return Vocabulary.of(t for doc in DOCS for t in tokenize(doc))


def _focus(perception, question: str) -> Focus:
    return Focus.of(perception.run(question, now=dt.date(2026, 1, 1)))


def test_specific_words_are_the_rare_ones_as_written(perception):
    words = specific_words(_focus(perception, "Which zstd level does restic's max compression mode use?"))
    assert set(words.values()) == {"zstd", "restic"}


def test_the_time_phrase_and_identifiers_are_left_to_other_checks(perception):
    words = specific_words(_focus(perception, "What did PEP 604 change in March 2024?"))
    assert not {"604", "2024", "March"} & set(words.values())


def test_chinese_questions_have_no_specific_words_yet(perception):
    assert specific_words(_focus(perception, "zstd 压缩级别是多少？")) == {}


@pytest.mark.parametrize("token, written", [
    ("compress", True),        # the same word
    ("saharan", True),         # a related form: "Sahara"
    ("cipher", True),          # a token it starts: "ciphertext"
    ("goovern", True),         # a misspelling of "govern"
    ("zstd", False),
    ("workspac", False),
    ("retent", False),         # shares four letters only ("retain")
])
def test_a_vocabulary_writes_words_their_forms_and_misspellings(vocabulary, token, written):
    assert vocabulary.writes(token) is written


def test_unwritten_words_are_those_no_vocabulary_writes(perception, vocabulary):
    focus = _focus(perception, "Which zstd level does the max compression mode use?")
    assert unwritten_words(specific_words(focus), [vocabulary]) == ["zstd"]
    assert unwritten_words(specific_words(focus), [vocabulary, Vocabulary.of(["zstd"])]) == []
    assert unwritten_words(specific_words(focus), []) == []  # nothing to read: nothing said


def test_an_index_gets_one_vocabulary_until_it_is_rebuilt():
    index = BM25Index.build([tokenize(d) for d in DOCS])
    assert vocabulary_of(index) is vocabulary_of(index)
    rebuilt = BM25Index.build([tokenize(d) for d in DOCS[:1]])
    assert not vocabulary_of(rebuilt).writes("saharan")


def test_a_replaced_index_is_not_kept_alive_by_its_vocabulary():
    import gc
    import weakref

    index = BM25Index.build([tokenize(d) for d in DOCS])
    assert vocabulary_of(index).writes("compress")
    gone = weakref.ref(index)
    del index
    gc.collect()
    assert gone() is None  # its memory maps close with it
