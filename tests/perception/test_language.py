"""Language detection."""

from __future__ import annotations

import pytest

from perception.language import detect_language


@pytest.mark.parametrize("text, language", [
    ("How is error code E4027 triggered?", "en"),
    ("查询 2025 年第二季度状态为已关闭的测试报告", "zh"),
    ("A320和B737的油耗对比", "zh"),
    ("What does 发票 mean in this contract?", "en"),
    ("", "en"),
    ("12345 !!!", "en"),
    ("😀", "en"),
])
def test_detect_language(text, language):
    assert detect_language(text) == language
