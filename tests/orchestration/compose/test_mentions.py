"""One mention matcher for composer and validator (they once disagreed on what names a side)."""

import pytest

from core.reading.mentions import mentions
from orchestration.compose.comparison import make_side
from validation import text as tx


@pytest.mark.parametrize("name, text, expected", [
    ("A320", "The A320neo burns 2,290 kg per hour.", True),     # a code may run on in letters
    ("A320", "The A3200 prototype", False),                      # not in digits
    ("737 MAX 8", "the 737-MAX-8 fleet", True),                  # separators interchangeable
    ("B737", "The 737 MAX 8 burns more.", True),                 # letter code -> its number
    ("B737", "It carries 737 kg of cargo.", False),              # ... unless that number is a quantity
    ("Eagle", "Project Eagles budget", False),                   # a word name ends at a word end
    ("Eagle", "Project Eagle's budget", True),
    ("E51", "Fault E5102 occurred", False),                      # the validator's old substring match said True
    ("x", "x marks", False),                                     # too short to be a name
])
def test_one_rule_for_composer_and_validator(name, text, expected):
    assert mentions(name, text) is expected
    assert tx.mentions(name, text) is expected
    assert make_side(name).mentioned_in(text) is expected
