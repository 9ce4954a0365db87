import pytest

from core.errors import ConfigError
from orchestration.retrieval.fusion import Fuser, RankedList


def test_weighted_rrf_matches_the_formula():
    fused = Fuser("rrf", k=60).fuse([
        RankedList("kw", 1.0, [("a", 9.0), ("b", 5.0)]),
        RankedList("vec", 0.5, [("b", 0.9), ("c", 0.8)]),
    ])
    scores = {f.key: f.score for f in fused}
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["b"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert scores["c"] == pytest.approx(0.5 / 62)
    assert [f.key for f in fused] == ["b", "a", "c"]
    assert fused[0].ranks == {"kw": 2, "vec": 1} and fused[0].scores == {"kw": 5.0, "vec": 0.9}


def test_weighted_sum_normalises_each_list():
    fused = Fuser("weighted_sum").fuse([
        RankedList("kw", 1.0, [("a", 20.0), ("b", 10.0), ("c", 0.0)]),
        RankedList("vec", 1.0, [("c", 0.9), ("a", 0.5), ("b", 0.1)]),
    ])
    scores = {f.key: round(f.score, 6) for f in fused}
    assert scores == {"a": 1.5, "b": 0.5, "c": 1.0}


@pytest.mark.parametrize("method", ["rrf", "weighted_sum"])
def test_one_empty_arm_gives_the_other_arms_order(method):
    fused = Fuser(method).fuse([RankedList("kw", 1.0, []), RankedList("vec", 1.0, [("x", 0.3), ("y", 0.2)])])
    assert [f.key for f in fused] == ["x", "y"]


@pytest.mark.parametrize("method", ["rrf", "weighted_sum"])
def test_all_empty_gives_nothing(method):
    assert Fuser(method).fuse([RankedList("kw", 1.0, []), RankedList("vec", 1.0, [])]) == []


def test_zero_weight_list_does_not_score_but_its_ranks_are_still_shown():
    fused = Fuser().fuse([RankedList("kw", 1.0, [("a", 1.0)]), RankedList("vec", 0.0, [("a", 0.9), ("b", 0.8)])])
    assert [f.key for f in fused] == ["a"]
    assert fused[0].ranks == {"kw": 1, "vec": 1}


def test_unknown_method_lists_the_known_ones():
    with pytest.raises(ConfigError, match="known: rrf, weighted_sum"):
        Fuser("borda")


@pytest.mark.parametrize("method", ["rrf", "weighted_sum"])
def test_fuse_top_is_the_head_of_fuse_with_the_full_count(method):
    lists = [RankedList("a:keyword", 1.0, [(r, 10.0 - r / 3) for r in range(0, 40, 2)]),
             RankedList("a:vector", 0.5, [(r, 0.9 - r / 100) for r in range(0, 40, 3)]),
             RankedList("a:off", 0.0, [(r, 1.0) for r in (1, 5, 7)])]
    full = Fuser(method).fuse(lists)
    for limit in (1, 5, 10, 100):
        top, count = Fuser(method).fuse_top(lists, limit)
        assert count == len(full)
        assert [(e.key, e.score, e.ranks, e.scores) for e in top] == \
            [(e.key, e.score, e.ranks, e.scores) for e in full[:limit]]


@pytest.mark.parametrize("method", ["rrf", "weighted_sum"])
@pytest.mark.parametrize("seed", range(6))
def test_fusing_row_arrays_gives_exactly_what_fusing_pairs_gives(method, seed):
    """A search's arms are fused as arrays (RowList, `fuse_rows`) since the pairs' Python loops
    were most of a fusion's time: scores, order, ties (broken by str(row)), ranks and raw scores
    must be the very ones `fuse_top` gives for the same lists."""
    import numpy as np

    from orchestration.retrieval.fusion import RowList

    rng = np.random.default_rng(seed)
    lists = []
    for name, weight in (("t:keyword", 1.0), ("t:vector", 0.3), ("t:off", 0.0)):
        rows = rng.choice(60, size=int(rng.integers(0, 40)), replace=False)
        scores = np.sort(rng.choice([0.5, 1.0, 2.0, 3.25, 7.0], size=rows.size))[::-1]  # many ties
        lists.append(RowList(name, weight, rows, scores))
    fuser = Fuser(method, 60.0)
    for limit in (None, 1, 5, 10, 200):
        pairs, count = fuser.fuse_top([RankedList(r.name, r.weight, r.items) for r in lists], limit)
        arrays, array_count = fuser.fuse_rows(lists, limit)
        assert array_count == count
        assert [(e.key, e.score, e.ranks, e.scores) for e in arrays] == [(e.key, e.score, e.ranks, e.scores)
                                                                         for e in pairs]
