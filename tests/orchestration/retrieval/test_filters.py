import datetime as dt

import numpy as np
import pytest

from orchestration.kb.metadata import normalize_metadata
from orchestration.retrieval.filters import FilterColumns, Filters

META = [normalize_metadata(m) for m in [
    {"published_at": "2023-03-01", "status": "effective", "doc_type": "manual", "source": "Airbus"},
    {"published_at": "2021-06-01", "status": "superseded", "doc_type": "manual", "source": "Airbus"},
    {"published_at": "2025-05-14", "status": "closed", "doc_type": "test_report", "source": "QA Lab"},
    {"status": "draft", "doc_type": "policy", "acl": ["finance"]},
]]


@pytest.fixture()
def columns(tmp_path):
    FilterColumns.build(META).save(tmp_path / "columns")
    return FilterColumns.load(tmp_path / "columns")


def test_empty_filter_lets_everything_through(columns):
    assert columns.mask(Filters()) is None


def test_time_window_is_inclusive_and_undated_rows_fail_unless_kept(columns):
    window = Filters(time_start=dt.date(2023, 3, 1), time_end=dt.date(2025, 5, 14))
    assert columns.mask(window).tolist() == [True, False, True, False]
    kept = Filters(time_start=dt.date(2023, 3, 1), keep_undated=True)
    assert columns.mask(kept).tolist() == [True, False, True, True]


def test_categorical_filters_are_case_insensitive(columns):
    assert columns.mask(Filters(source=("airbus",))).tolist() == [True, True, False, False]
    assert columns.mask(Filters(doc_type=("Test_Report",))).tolist() == [False, False, True, False]


def test_excluded_statuses(columns):
    assert columns.mask(Filters(exclude_status=("draft", "superseded"))).tolist() == [True, False, True, False]


@pytest.mark.parametrize("row,filters,reason", [
    (1, Filters(time_start=dt.date(2023, 1, 1)), "published_at=2021-06-01 < 2023-01-01"),
    (2, Filters(time_end=dt.date(2024, 12, 31)), "published_at=2025-05-14 > 2024-12-31"),
    (3, Filters(time_start=dt.date(2023, 1, 1)), "published_at=missing, window requires a date"),
    (1, Filters(status=("effective",)), "status=superseded not in [effective]"),
    (3, Filters(exclude_status=("draft",)), "status=draft excluded"),
    (2, Filters(source=("Airbus",)), "source=qa lab not in [Airbus]"),
])
def test_every_rejection_has_a_readable_reason(columns, row, filters, reason):
    assert not columns.mask(filters)[row]
    assert columns.reason(row, filters) == reason


def test_acl_mask_shows_public_rows_and_rows_of_the_callers_groups(columns):
    assert columns.acl_mask([]).tolist() == [True, True, True, False]
    assert columns.acl_mask(["finance"]).tolist() == [True, True, True, True]
    assert columns.acl_mask(None) is None


def test_filters_round_trip_through_json_form():
    filters = Filters(time_start=dt.date(2025, 4, 1), status=("closed",), exclude_status=("draft",))
    assert Filters.from_dict(filters.to_dict()) == filters
    assert filters.to_dict() == {"time_start": "2025-04-01", "status": ["closed"], "exclude_status": ["draft"]}


@pytest.mark.parametrize("now", [dt.date(2025, 7, 10), dt.date(2035, 1, 1)])
def test_vectorised_credibility_equals_the_scalar_formula(columns, now):
    from orchestration.retrieval.credibility import CredibilityParams, credibility

    params = CredibilityParams()
    rows = np.arange(len(META))
    vectorised = columns.credibility_multipliers(rows, now, params)
    scalar = [credibility(columns.credibility_inputs(int(r)), now, params)[0] for r in rows]
    assert np.allclose(vectorised, scalar)
    assert vectorised[1] < vectorised[0], "the superseded manual ranks below the effective one"


@pytest.mark.parametrize("filters", [
    Filters(time_start=dt.date(2023, 1, 1)),
    Filters(time_start=dt.date(2022, 1, 1), time_end=dt.date(2024, 12, 31), keep_undated=True),
    Filters(time_end=dt.date(2024, 12, 31), status=("effective", "closed")),
    Filters(source=("Airbus",), doc_type=("manual", "policy")),
    Filters(exclude_status=("draft", "superseded"), source=("QA Lab", "Airbus")),
    Filters(time_start=dt.date(2030, 1, 1), exclude_status=("closed",)),
])
def test_reasons_for_many_rows_are_the_reasons_row_by_row(columns, filters):
    """Retrieval asks why each filtered-out candidate failed, ~100 rows per task: asked per row
    it cost ~1 ms a query; the vectorised answer must be the very same words, in order."""
    rows = [3, 0, 2, 1, 3]
    assert columns.reasons(rows, filters) == [columns.reason(r, filters) for r in rows]
    assert columns.reasons([], filters) == []
