"""The readers a comparison uses to say what a figure is of: its year and the variant it names."""

from __future__ import annotations

import datetime as dt

import pytest

from core.reading.periods import HEADING, UNIT, figure_dating
from core.reading.variants import named_variant

REPORT = ("Fuel Efficiency Comparison 2023: A320neo vs Boeing 737 MAX 8", "Hourly fuel burn")


def dating_of(text: str, figure: str, path=()):
    start = text.index(figure)
    return figure_dating(text, (start, start + len(figure)), path)


@pytest.mark.parametrize("text, figure, path, years, where", [
    ("In 2023, the 737 MAX 8 burns 2,360 kg of fuel per block hour.", "2,360", (), {2023}, UNIT),
    ("The 737-800 burns 2,600 kg of fuel per block hour.", "2,600", REPORT, {2023}, HEADING),
    ("The 737-800 burns 2,600 kg of fuel per block hour.", "2,600", ("Hourly fuel burn",), set(), ""),
    ("In 2022 the K7 ran 17 hours; in 2024 the K7 XL ran 21 hours.", "21 hours", (), {2024}, UNIT),
    ("The K7 ships with a 2000 mAh battery.", "2000", ("K7 notes 2022",), {2022}, HEADING),
])
def test_a_figure_is_dated_by_its_unit_first_then_its_heading(text, figure, path, years, where):
    dating = dating_of(text, figure, path)
    assert (set(dating.years), dating.where) == (years, where)


def test_a_dating_fits_a_window_or_says_it_cannot_tell():
    in_2023 = (dt.date(2023, 1, 1), dt.date(2023, 12, 31))
    assert dating_of("In 2023, the K7 ran 17 hours.", "17 hours").within(*in_2023) is True
    assert dating_of("In 2019, the K7 ran 17 hours.", "17 hours").within(*in_2023) is False
    assert dating_of("The K7 ran 17 hours.", "17 hours").within(*in_2023) is None


@pytest.mark.parametrize("text, at, variant", [
    ("In 2023, the 737 MAX 8 burns 2,360 kg of fuel per block hour.", None, "737 MAX 8"),
    ("The 737-800 burns 2,600 kg of fuel per block hour.", None, "737-800"),
    ("The 737 MAX 8 burns 240 kg per hour less than the 737-800, which is 9.2% less.", 60, "737-800"),
    ("| 737 MAX 8 | LEAP-1B28 | 178 | 2,360 |", None, "737 MAX 8"),
    ("The 737 MAX 10, launched later, seats more.", None, "737 MAX 10"),
    ("The B737 burns 2,500 kg per hour.", None, None),
    ("The 737 burns 2,500 kg per hour.", None, None),
    ("2023 年，737 MAX 8 每小时油耗 2,360 公斤。", None, "737 MAX 8"),
])
def test_the_variant_is_the_designation_written_at_the_side_s_mention(text, at, variant):
    assert named_variant(["B737"], text, at) == variant


def test_letters_run_on_a_code_make_its_variant():
    assert named_variant(["A320"], "In 2023, the A320neo burns 2,290 kg.") == "A320neo"
    assert named_variant(["A320"], "The A320 burns 2,290 kg.") is None
