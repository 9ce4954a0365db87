"""Time expressions: absolute, relative, ranges, bounds, Chinese, and what is not understood."""

from __future__ import annotations

from datetime import date

import pytest

from perception.timeexpr import TimeRules, add_months, cn_number, period_bounds

NOW = date(2025, 7, 10)


@pytest.fixture(scope="module")
def rules(cfg):
    return TimeRules(cfg)


def span(rules, text, now=NOW):
    """(start, end) ISO strings of the combined window, or None."""
    w = rules.find(text, now).window
    if w is None:
        return None
    return (w.start.isoformat() if w.start else None, w.end.isoformat() if w.end else None)


@pytest.mark.parametrize("text, expected", [
    # years
    ("focusing on data from 2023 reports", ("2023-01-01", "2023-12-31")),
    ("sales in 2023", ("2023-01-01", "2023-12-31")),
    ("2023年的销售", ("2023-01-01", "2023-12-31")),
    ("FY 2024 budget", ("2024-01-01", "2024-12-31")),
    ("in the 1990s", ("1990-01-01", "1999-12-31")),
    # quarters and halves
    ("Q2 2025", ("2025-04-01", "2025-06-30")),
    ("2025 Q3 results", ("2025-07-01", "2025-09-30")),
    ("second quarter of 2025", ("2025-04-01", "2025-06-30")),
    ("the 4th quarter 2024", ("2024-10-01", "2024-12-31")),
    ("2025年第二季度", ("2025-04-01", "2025-06-30")),
    ("2025 年第二季度", ("2025-04-01", "2025-06-30")),
    ("2025年二季度", ("2025-04-01", "2025-06-30")),
    ("2024年Q4", ("2024-10-01", "2024-12-31")),
    ("H1 2025", ("2025-01-01", "2025-06-30")),
    ("second half of 2024", ("2024-07-01", "2024-12-31")),
    ("2024年下半年", ("2024-07-01", "2024-12-31")),
    # months
    ("October 2023", ("2023-10-01", "2023-10-31")),
    ("Oct. 2023", ("2023-10-01", "2023-10-31")),
    ("2023年10月", ("2023-10-01", "2023-10-31")),
    ("2024-02", ("2024-02-01", "2024-02-29")),
    ("二〇二三年十月", ("2023-10-01", "2023-10-31")),
    # exact dates
    ("on October 7, 2023", ("2023-10-07", "2023-10-07")),
    ("on October 7th, 2023", ("2023-10-07", "2023-10-07")),
    ("7 October 2023", ("2023-10-07", "2023-10-07")),
    ("2023-10-07", ("2023-10-07", "2023-10-07")),
    ("published at '2023-10-04T20:07:42+00:00'", ("2023-10-04", "2023-10-04")),
    ("2023/10/07", ("2023-10-07", "2023-10-07")),
    ("10/07/2023", ("2023-10-07", "2023-10-07")),
    ("2023年10月7日", ("2023-10-07", "2023-10-07")),
    ("2023 年 10 月 7 号", ("2023-10-07", "2023-10-07")),
    # ranges
    ("between March and May 2024", ("2024-03-01", "2024-05-31")),
    ("from March to May 2024", ("2024-03-01", "2024-05-31")),
    ("from November to February 2024", ("2023-11-01", "2024-02-29")),
    ("between October 1, 2023 and October 31, 2023", ("2023-10-01", "2023-10-31")),
    ("from 2021 to 2023", ("2021-01-01", "2023-12-31")),
    ("2021-2023", ("2021-01-01", "2023-12-31")),
    ("2023年3月至5月", ("2023-03-01", "2023-05-31")),
    ("2023年10月到2024年3月", ("2023-10-01", "2024-03-31")),
    # bounds
    ("after October 30, 2023", ("2023-10-31", None)),
    ("before October 1, 2023", (None, "2023-09-30")),
    ("since March 2024", ("2024-03-01", None)),
    ("until June 2024", (None, "2024-06-30")),
    ("prior to 2020", (None, "2019-12-31")),
    ("2023年之前", (None, "2022-12-31")),
    ("2024年6月以后", ("2024-07-01", None)),
    ("自2023年10月以来", ("2023-10-01", None)),
    ("截至2024年6月", (None, "2024-06-30")),
    ("after October 1 and before October 31, 2023", ("2023-10-02", "2023-10-30")),
    # parts of a period
    ("early 2024", ("2024-01-01", "2024-05-01")),
    ("mid-October 2023", ("2023-10-11", "2023-10-20")),
    ("late October 2023", ("2023-10-21", "2023-10-31")),
    ("2023年底", ("2023-09-01", "2023-12-31")),
    # several phrases: the window covers all of them
    ("before October 1, 2023 and on December 5, 2023", (None, "2023-12-05")),
    ("on October 6, 2023 and October 7, 2023", ("2023-10-06", "2023-10-07")),
])
def test_absolute_expressions(rules, text, expected):
    assert span(rules, text) == expected


@pytest.mark.parametrize("text, expected", [
    ("last week", ("2025-07-03", "2025-07-10")),        # convention: [now - 7 days, now]
    ("in the past week", ("2025-07-03", "2025-07-10")),
    ("最近一周", ("2025-07-03", "2025-07-10")),
    ("近一周", ("2025-07-03", "2025-07-10")),
    ("上周", ("2025-07-03", "2025-07-10")),
    ("past 30 days", ("2025-06-10", "2025-07-10")),
    ("in the last 3 months", ("2025-04-10", "2025-07-10")),
    ("over the past two weeks", ("2025-06-26", "2025-07-10")),
    ("最近7天", ("2025-07-03", "2025-07-10")),
    ("过去三个月", ("2025-04-10", "2025-07-10")),
    ("近两年", ("2023-07-10", "2025-07-10")),
    ("this year", ("2025-01-01", "2025-07-10")),
    ("今年", ("2025-01-01", "2025-07-10")),
    ("this month", ("2025-07-01", "2025-07-10")),
    ("本季度", ("2025-07-01", "2025-07-10")),
    ("last month", ("2025-06-01", "2025-06-30")),
    ("上个月", ("2025-06-01", "2025-06-30")),
    ("last quarter", ("2025-04-01", "2025-06-30")),
    ("上季度", ("2025-04-01", "2025-06-30")),
    ("last year", ("2024-01-01", "2024-12-31")),
    ("去年", ("2024-01-01", "2024-12-31")),
    ("前年", ("2023-01-01", "2023-12-31")),
    ("today", ("2025-07-10", "2025-07-10")),
    ("昨天", ("2025-07-09", "2025-07-09")),
    ("3 days ago", ("2025-07-07", "2025-07-07")),
    ("三个月前", ("2025-04-01", "2025-04-30")),
    ("2 years ago", ("2023-01-01", "2023-12-31")),
])
def test_relative_expressions(rules, text, expected):
    assert span(rules, text) == expected


@pytest.mark.parametrize("text, now, expected", [
    ("in October", date(2025, 7, 10), ("2024-10-01", "2024-10-31")),   # most recent past October
    ("in March", date(2025, 7, 10), ("2025-03-01", "2025-03-31")),
    ("第三季度", date(2025, 7, 10), ("2025-07-01", "2025-09-30")),      # Q3 2025 has started
    ("第四季度", date(2025, 7, 10), ("2024-10-01", "2024-12-31")),      # Q4 2025 has not
    ("5月份的订单", date(2025, 7, 10), ("2025-05-01", "2025-05-31")),
    ("10月1日之后", date(2025, 7, 10), ("2024-10-02", None)),
    ("October 5 and December 7, 2023", date(2025, 7, 10), ("2023-10-05", "2023-12-07")),  # year from neighbour
])
def test_missing_year_is_inferred(rules, text, now, expected):
    assert span(rules, text, now) == expected


@pytest.mark.parametrize("text", [
    "A320 costs 2000 dollars",
    "May I ask about the B737?",
    "We will march to the office",
    "Error code E4027 appears on the A350",
    "Compare LEAP-1A and GPT-4",
    "",
    "版本 3.2 的说明",
])
def test_no_false_time(rules, text):
    assert span(rules, text) is None


@pytest.mark.parametrize("text, fragment", [
    ("February 30, 2023", "February 30, 2023"),
    ("what happened on the same date", "same date"),
    ("a fortnight ago", "fortnight"),
    ("reports from last spring", "spring"),
])
def test_not_understood_is_reported(rules, text, fragment):
    result = rules.find(text, NOW)
    assert result.window is None
    assert any(fragment in t for _s, _e, t in result.not_understood)


def test_phrases_carry_rule_and_span(rules):
    text = "Compare Q2 2025 with last week"
    result = rules.find(text, NOW)
    assert [(p.rule, text[p.start:p.end]) for p in result.phrases] == [
        ("time.quarter", "Q2 2025"), ("time.relative", "last week")]
    assert result.window.text == "Q2 2025; last week"


def test_protected_spans_are_not_time(rules):
    text = "Business Today says"
    assert rules.find(text, NOW).window is not None
    assert rules.find(text, NOW, protected=((0, 14),)).window is None


@pytest.mark.parametrize("day, months, expected", [
    (date(2025, 3, 31), -1, date(2025, 2, 28)),
    (date(2024, 3, 31), -1, date(2024, 2, 29)),
    (date(2025, 1, 15), -13, date(2023, 12, 15)),
])
def test_add_months_clamps(day, months, expected):
    assert add_months(day, months) == expected


@pytest.mark.parametrize("unit, expected", [
    ("day", (date(2025, 7, 10), date(2025, 7, 10))),
    ("week", (date(2025, 7, 7), date(2025, 7, 13))),
    ("month", (date(2025, 7, 1), date(2025, 7, 31))),
    ("quarter", (date(2025, 7, 1), date(2025, 9, 30))),
    ("year", (date(2025, 1, 1), date(2025, 12, 31))),
])
def test_period_bounds(unit, expected):
    assert period_bounds(NOW, unit) == expected


@pytest.mark.parametrize("text, value", [("十二", 12), ("二十三", 23), ("二〇二三", 2023), ("两", 2), ("7", 7),
                                         ("百", 100), ("x", None)])
def test_cn_number(text, value):
    assert cn_number(text) == value


@pytest.mark.parametrize("text, expected", [
    ("Which regulation applies from 1 January 2024?", ("2024-01-01", None)),
    ("rules effective from March 1, 2024", ("2024-03-01", None)),
    ("the directive in force from 2023-07-01", ("2023-07-01", None)),
    ("starting 1 January 2024", ("2024-01-01", None)),
    ("starting in Q2 2024", ("2024-04-01", None)),
    ("since 1 January 2024", ("2024-01-01", None)),
    ("the rule takes effect on 1 March 2024", ("2024-03-01", None)),
    ("from 2024 onwards", ("2024-01-01", None)),
    ("自2024年1月1日起施行的法规", ("2024-01-01", None)),
    ("从2024年1月1日起", ("2024-01-01", None)),
    # still closed windows
    ("on October 7, 2023", ("2023-10-07", "2023-10-07")),
    ("reports from 2023", ("2023-01-01", "2023-12-31")),
    ("from March to May 2024", ("2024-03-01", "2024-05-31")),
    ("Was the policy more effective in 2023?", ("2023-01-01", "2023-12-31")),
])
def test_open_ended_from(rules, text, expected):
    assert span(rules, text) == expected


def test_the_package_reexports_its_modules_public_names():
    import perception.timeexpr as package
    from perception.timeexpr import calendar, numerals, recognise, types
    for name in package.__all__:
        owner = next(m for m in (calendar, numerals, recognise, types) if hasattr(m, name))
        assert getattr(package, name) is getattr(owner, name)
