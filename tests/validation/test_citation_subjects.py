"""The citation check aligns each number with the subject it is stated for (issue 22, item 11).

A reply "The A320neo burns 2,290 kg ..., about 3% less than the 737 MAX 8 [1]. Its per-seat
burn is 13.3 kg ... [1]" was judged backwards: the true first claim flagged, the false second
one passed (13.3 kg is the 737 MAX 8's figure in the cited comparison). Each case below swaps
the subjects of one claim of a reply citing the real comparison chunk; the same reply with the
subjects right must pass.
"""

from __future__ import annotations

import pytest

from orchestration.types import Claim
from validation.checks import citation

from .conftest import COMPARISON_2023, EVIDENCE, answer

FUEL = "Compare the fuel burn of the A320 and the B737 in 2023"
FIRST = "The A320neo burns 2,290 kg of fuel per block hour, about 3% less than the 737 MAX 8 [1]."

# (reply sentences, index of the claim with a swapped subject, the number that is not its own)
SWAPPED = [
    ([FIRST, "Its per-seat burn is 13.3 kg of fuel per seat per hour [1]."], 1, "13.3"),
    (["The 737 MAX 8 burns 2,360 kg of fuel per block hour [1].",
      "Its per-seat burn is 12.7 kg of fuel per seat per hour [1]."], 1, "12.7"),
    (["The A320neo burns 12.7 kg of fuel per seat per hour [1].", "It burns 2,360 kg of fuel per block hour [1]."],
     1, "2,360"),
    (["In 2023, the 737 MAX 8 burns 12.7 kg of fuel per seat per hour [1]."], 0, "12.7"),
    (["The 737 MAX 8 has 178 seats [1].", "It burns 2,290 kg of fuel per block hour [1]."], 1, "2,290"),
]
RIGHT = [
    [FIRST, "Its per-seat burn is 12.7 kg of fuel per seat per hour [1]."],
    ["The 737 MAX 8 burns 2,360 kg of fuel per block hour [1].",
     "Its per-seat burn is 13.3 kg of fuel per seat per hour [1]."],
    ["The A320neo burns 12.7 kg of fuel per seat per hour [1].", "It burns 2,290 kg of fuel per block hour [1]."],
    ["In 2023, the 737 MAX 8 burns 13.3 kg of fuel per seat per hour [1]."],
    ["The 737 MAX 8 has 178 seats [1].", "It burns 2,360 kg of fuel per block hour [1]."],
]


def _issues(perceive, context, sentences):
    claims = [Claim(text, [1]) for text in sentences]
    return citation.check(perceive(FUEL), answer(claims, [COMPARISON_2023]), EVIDENCE, context)


@pytest.mark.parametrize(("sentences", "swapped", "number"), SWAPPED, ids=[f"swap-{k}" for k in range(len(SWAPPED))])
def test_a_number_stated_for_the_other_subject_is_flagged_on_its_own_claim(perceive, context, sentences, swapped,
                                                                          number):
    issues = _issues(perceive, context, sentences)
    assert [(i.claim, i.kind) for i in issues] == [(swapped, "unsupported_number")], [i.detail for i in issues]
    assert number in issues[0].detail and "stated for" in issues[0].detail


@pytest.mark.parametrize("sentences", RIGHT, ids=[f"right-{k}" for k in range(len(RIGHT))])
def test_the_same_reply_with_the_subjects_right_passes(perceive, context, sentences):
    assert _issues(perceive, context, sentences) == []
