import datetime as dt

import pytest

from orchestration.retrieval.credibility import CredibilityParams, credibility

NOW = dt.date(2025, 7, 1)
P = CredibilityParams(half_life_days=365, recency_floor=0.5, authority_weight=0.2)


def test_recent_document_is_not_penalised():
    value, factors = credibility({"published_at": "2025-07-01T00:00:00+00:00"}, NOW, P)
    assert factors["recency"] == 1.0 and value == 1.0


def test_recency_halves_per_half_life_but_is_capped_at_the_floor():
    _, one_year = credibility({"published_at": "2024-07-01T00:00:00+00:00"}, NOW, P)
    assert one_year["recency"] == pytest.approx(0.5, abs=0.01)
    _, ten_years = credibility({"published_at": "2015-07-01T00:00:00+00:00"}, NOW, P)
    assert ten_years["recency"] == 0.5


def test_authority_and_status_multiply():
    value, factors = credibility({"authority": 5, "status": "superseded"}, NOW, P)
    assert factors == {"recency": 1.0, "authority": 1.2, "status": 0.5}
    assert value == pytest.approx(0.6)


def test_draft_ranks_below_effective_all_else_equal():
    draft, _ = credibility({"status": "draft"}, NOW, P)
    effective, _ = credibility({"status": "effective"}, NOW, P)
    assert draft < effective


@pytest.mark.parametrize("bad", [{"half_life_days": 0}, {"recency_floor": 1.5}, {"authority_weight": 1.0}])
def test_invalid_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        CredibilityParams(**bad)
