"""The split-word measure of a PDF text layer (evaluation/pdf_split_words.py) on tiny texts."""

from __future__ import annotations

from pathlib import Path

from evaluation.pdf_split_words import glued_words, main, split_words, word_count

VOCAB = frozenset({"ticket", "kept", "tick", "for", "days", "the", "into", "way", "schedule", "mon", "win",
                   "provides", "provide", "logs", "are", "line", "see", "article", "word", "holding"})
PDF = Path(__file__).resolve().parents[1] / "data" / "formats" / "dmca-summary-page1.pdf"


def test_a_word_cut_in_two_is_one_split_word_each_time():
    text = "Logs are k ept for 35 days. Open a tick et. It provide s the (tick et)."
    assert split_words(text, VOCAB) == [("k", "ept"), ("tick", "et"), ("provide", "s"), ("tick", "et")]
    assert word_count(text) == 16


def test_two_words_on_their_own_are_never_a_split_word():
    # "in to" and "a way" join into words, but each part is a word: the text may mean them apart
    assert split_words("Walk in to the hall, a way out.", VOCAB) == []


def test_labels_variables_and_punctuation_between_are_not_split_words():
    assert split_words("See Schedule D for a J and line M on the word w in article.", VOCAB) == []
    assert split_words("It is a tick, et cetera; k. ept", VOCAB) == []  # punctuation between the parts


def test_a_document_word_seen_whole_twice_is_known():
    text = "Federal withholding applies. The withholding rate is 30%. Report the withh olding."
    assert split_words(text, VOCAB) == [("withh", "olding")]
    assert split_words("Report the withh olding.", VOCAB) == []  # "withholding" never seen whole


def test_glued_words_are_two_known_words_run_together():
    assert glued_words("the ticket for days: fordays, theticket, tickets", VOCAB) == ["fordays", "theticket"]


def test_the_command_prints_a_row_per_extractor(capsys):
    assert main([str(PDF), "--extractors", "pypdf", "ingest (formats/pdf.py)", "--show", "3"]) == 0
    out = capsys.readouterr().out
    rows = {line.split(" | ")[1]: line.split(" | ")[2:5] for line in out.splitlines() if line.startswith("| dmca")}
    assert rows["pypdf"][1:] == ["5", "17.67"] and rows["ingest (formats/pdf.py)"][1:] == ["0", "0.00"]
    assert "dmca-summary-page1.pdf / pypdf: WIP O, Assuranc e, th e" in out
