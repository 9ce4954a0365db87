"""The retrieval benchmark's harness: the interleaved race and the figures drawn from it."""

from __future__ import annotations

import numpy as np

from benchmarks.retrieval.harness import Lane, race, ratio, stats


class _Recorder:
    def __init__(self, name: str, calls: list[tuple[str, int]]) -> None:
        self.name = name
        self._calls = calls

    def search(self, i: int) -> None:
        self._calls.append((self.name, i))


def test_race_warms_up_once_each_then_rotates_who_goes_first():
    calls: list[tuple[str, int]] = []
    times = race([Lane(_Recorder("a", calls), 2, 2), Lane(_Recorder("b", calls), 2, 2)], repeats=2)
    assert calls == [("a", 0), ("b", 0),  # untimed warm-up
                     ("a", 0), ("b", 0), ("b", 1), ("a", 1),  # repeat 0
                     ("b", 0), ("a", 0), ("a", 1), ("b", 1)]  # repeat 1
    assert all(np.isfinite(ms).all() and ms.shape == (2, 2) for ms in times.values())


def test_race_leaves_the_cells_a_lane_does_not_run_nan():
    calls: list[tuple[str, int]] = []
    times = race([Lane(_Recorder("a", calls), 3, 2), Lane(_Recorder("b", calls), 1, 1)], repeats=2)
    assert calls.count(("b", 0)) == 2 and len(calls) == 2 + 6 + 1  # warm-ups, a's full grid, b's one cell
    assert times["a"].shape == times["b"].shape == (2, 3)
    assert np.isfinite(times["a"]).all()
    assert np.isfinite(times["b"]).sum() == 1 and np.isfinite(times["b"][0, 0])


def test_stats_and_ratio_read_only_the_cells_that_ran():
    peer = np.array([[2.0, 4.0, np.nan]])
    ours = np.array([[1.0, 2.0, 100.0]])
    assert stats(peer) == {"median": 3.0, "p95": 3.9, "mean": 3.0, "n": 2}
    assert ratio(peer, ours) == 2.0  # medians over the two shared cells: 3 / 1.5
