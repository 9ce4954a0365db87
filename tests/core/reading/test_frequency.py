"""core.reading.frequency: how common a word is in general English (the shipped wordfreq table)."""

from __future__ import annotations

import gzip

from core.reading.frequency import BELOW_TABLE, TABLE, zipf


def test_common_words_rank_above_terms_of_art():
    assert zipf("the") > zipf("server") > zipf("cipher") > BELOW_TABLE
    assert zipf("carry") > 4.5 > zipf("expires")


def test_case_possessives_and_punctuation_do_not_change_a_word():
    assert zipf("Cipher") == zipf("cipher") == zipf("cipher?")
    assert zipf("Poetry's") == zipf("poetry")


def test_a_word_the_table_lacks_reads_below_its_floor():
    for word in ("restic", "zstd", "pyinstaller", "goovernment", "1570"):
        assert zipf(word) == BELOW_TABLE
    assert not zipf("zstd") >= 3.5
    assert zipf("talking") >= 3.5


def test_the_table_is_every_word_down_to_its_floor_in_frequency_order():
    with gzip.open(TABLE, "rt", encoding="utf-8") as lines:
        rows = [line.rstrip("\n").split("\t") for line in lines]
    values = [float(z) for _, z in rows]
    assert len(rows) > 25_000
    assert min(values) >= 3.0
    assert values == sorted(values, reverse=True)
    assert len({w for w, _ in rows}) == len(rows)
