"""Regression guard: retrieval, routing, refusal and citations on a small fixed subset of the public
sets must stay at or above the floors in evaluation/floors.yaml (measured date and commit inside).

Builds three small knowledge bases (about 400 chunks) in a temp folder with the real ingest and
runs the same scoring code as `sightline eval`. Needs ../shared/eval beside the repo.
"""

from __future__ import annotations

import pytest
import yaml

from evaluation.datasets import DEFAULT_DATA
from evaluation.guard import FLOORS, check, measure

pytestmark = pytest.mark.slow

NEEDED = ("scifact/corpus.jsonl", "multihop_rag/corpus.jsonl", "rgb/zh_refine_dev.jsonl")
missing = [p for p in NEEDED if not (DEFAULT_DATA / p).is_file()]


@pytest.fixture(scope="module")
def measured(tmp_path_factory, embedder):
    if missing:
        pytest.skip(f"evaluation data not found: {', '.join(str(DEFAULT_DATA / p) for p in missing)} "
                    f"(the public sets live in ../shared/eval beside the repo)")
    return measure(DEFAULT_DATA, tmp_path_factory.mktemp("guard"))


@pytest.fixture(scope="module")
def floors():
    return yaml.safe_load(FLOORS.read_text(encoding="utf-8"))


def test_floors_file_states_date_and_commit(floors):
    assert floors["measured_on"] and floors["commit"]
    assert floors["floors"]["scifact"] and floors["floors"]["multihop"] and floors["floors"]["rgb_zh"]


@pytest.mark.parametrize("group", ["scifact", "multihop", "rgb_zh"])
def test_figures_at_or_above_floors(measured, floors, group):
    part = {"floors": {group: floors["floors"].get(group, {})},
            "ceilings": {group: floors.get("ceilings", {}).get(group, {})}}
    failures = check(measured, part)
    assert not failures, "regression on the guard subset:\n" + "\n".join(failures) + \
        f"\nmeasured: {measured[group]}"


def test_hybrid_is_not_below_both_arms(measured):
    """Fusion must not lose to both of its arms (a broken fusion usually does)."""
    s = measured["scifact"]
    assert s["hybrid_ndcg@10"] >= min(s["bm25_ndcg@10"], s["dense_ndcg@10"])


def test_check_reports_a_drop():
    floors = {"floors": {"x": {"m": 0.5}}, "ceilings": {"x": {"false_refusal": 0.2}}}
    assert check({"x": {"m": 0.6, "false_refusal": 0.1}}, floors) == []
    failures = check({"x": {"m": 0.4, "false_refusal": 0.3}}, floors)
    assert len(failures) == 2 and "below its floor" in failures[0] and "above its ceiling" in failures[1]
    assert check({"x": {}}, floors)[0].startswith("x.m: not measured")
