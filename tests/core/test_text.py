"""One reader of citation markers and Chinese text for every layer."""

import pytest

from core.text import has_han, strip_markers


@pytest.mark.parametrize("text, stripped", [
    ("The A320neo burns 2,290 kg/h [1].", "The A320neo burns 2,290 kg/h."),
    ("Both say so [1, 2].", "Both say so."),       # the loop's old regex left "[1, 2]" in place
    ("两份文件一致 [1，2]。", "两份文件一致。"),
    ("See [ 3 ] and [4、5] here", "See and here"),
    ("No markers [a] here", "No markers [a] here"),
])
def test_strip_markers_removes_single_and_grouped_markers(text, stripped):
    assert " ".join(strip_markers(text).split()) == stripped


def test_has_han_sees_chinese_and_compatibility_ideographs_only():
    assert has_han("发票") and has_han("\uf900") and not has_han("A320 fuel") and not has_han("")
