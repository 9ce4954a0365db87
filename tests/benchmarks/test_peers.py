"""`sightline bench peers` on a tiny corpus made here: the race, the report's JSON shape, the bootstrap,
a missing peer, and (where the peers are installed) each peer adapter. No model is loaded: queries
are embedded by a lookup, the real run needs the eval knowledge bases (docs/BENCHMARKS.md)."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from benchmarks.peers.cli import SET_SPECS, measure, parse_args, summary
from benchmarks.peers.compare import paired_bootstrap, race, report
from benchmarks.peers.systems import Corpus, HaystackSystem, TxtaiSystem, load_peers
from evaluation.datasets import EvalQuery
from evaluation.metrics import multihop_query_metrics
from evaluation.runner import score_multihop
from orchestration.kb.store import StoredChunk

TEXTS = ["the zebra crossed the river at dawn", "a lion slept under the acacia tree",
         "rain fell on the savanna all week", "the herd of elephants walked north",
         "vultures circled above the plain"]


def chunks() -> list[StoredChunk]:
    return [StoredChunk(row=i, chunk_id=f"d{i}#0", doc_id=f"d{i}", title="", section="", position=0, text=t)
            for i, t in enumerate(TEXTS)]


def unit_vectors(n: int, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(n, 16)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class Ranked:
    """A stand-in system: a fixed ranking per query; it logs the order the race calls it in."""

    def __init__(self, name: str, rankings: list[list[int]], log: list[tuple[str, int]]) -> None:
        self.name, self.version, self.settings = name, "0.0", {"kind": "fixed"}
        self.rankings, self.log = rankings, log
        self.results: dict[int, list[int]] = {}

    def search(self, i: int) -> None:
        self.log.append((self.name, i))
        self.results[i] = self.rankings[i]


QUERIES = [EvalQuery(f"q{i}", f"question {i}", facts=[TEXTS[i]]) for i in range(4)]


def test_race_interleaves_query_by_query_and_rotates_who_goes_first():
    log: list[tuple[str, int]] = []
    systems = [Ranked(n, [[0]] * 4, log) for n in ("sightline", "txtai", "haystack")]
    times = race(systems, 4)
    assert log[:3] == [("sightline", 0), ("txtai", 0), ("haystack", 0)]  # the untimed warm-up
    timed = log[3:]
    assert [i for _, i in timed] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert [timed[3 * q][0] for q in range(4)] == ["sightline", "txtai", "haystack", "sightline"]
    assert all(t.shape == (4,) and np.isfinite(t).all() for t in times.values())


def test_the_json_has_the_issue_shape_and_compares_against_the_best_peer():
    # Sightline ranks every query's evidence chunk first; txtai second; haystack misses it.
    log: list[tuple[str, int]] = []
    n = len(QUERIES)
    systems = [Ranked("sightline", [[i, (i + 1) % 5] for i in range(n)], log),
               Ranked("txtai", [[(i + 1) % 5, i] for i in range(n)], log),
               Ranked("haystack", [[(i + 1) % 5] for i in range(n)], log)]
    _, metrics = SET_SPECS["multihop"]
    embedding = Ranked("query_embedding", [[]] * n, log)
    result = measure(systems, QUERIES, chunks(), score_multihop, metrics, resamples=500, reference=[embedding])
    payload = json.loads(json.dumps(result))  # serialisable as it is
    assert set(payload["systems"]) == {"sightline", "txtai", "haystack"}
    assert set(payload["reference"]["query_embedding"]) == {"median_ms", "p95_ms", "mean_ms"}
    assert sum(1 for name, _ in log if name == "query_embedding") == n + 1  # raced with them, warm-up included
    for figures in payload["systems"].values():
        assert {"median_ms", "p95_ms", "mrr@10", "hits@10"} <= set(figures)
    assert payload["systems"]["sightline"]["mrr@10"] == 1.0
    assert payload["systems"]["txtai"]["mrr@10"] == 0.5
    assert payload["systems"]["haystack"]["hits@10"] == 0.0
    mrr = payload["quality_vs_best_peer"]["mrr@10"]
    assert mrr["best_peer"] == "txtai"
    assert (mrr["diff"], mrr["low"], mrr["high"]) == (0.5, 0.5, 0.5)
    assert mrr["significantly_below"] is False
    assert payload["targets"]["quality_not_significantly_below_best_peer"] is True
    assert payload["versions"]["haystack"] == "0.0" and payload["queries"] == n
    # the metric rows are upstream's (evaluation.metrics), not a copy
    assert multihop_query_metrics([TEXTS[1], TEXTS[0]], [TEXTS[0]])["mrr@10"] == 0.5


def test_summary_table_names_every_system_and_interval():
    log: list[tuple[str, int]] = []
    systems = [Ranked("sightline", [[i] for i in range(4)], log), Ranked("txtai", [[i] for i in range(4)], log)]
    result = measure(systems, QUERIES, chunks(), score_multihop, SET_SPECS["multihop"][1], resamples=200)
    result.update(set="multihop", k=10, corpus={"chunks": 5}, embedding="lookup", wall_seconds=0.1, commit="x",
                  skipped={"haystack": "haystack skipped: haystack is not installed"},
                  machine={"load_average_start": [0.1], "load_average_end": [0.2], "cpus": 2})
    text = summary(result)
    assert "| sightline | 0.0 |" in text and "| txtai | 0.0 |" in text
    assert "mrr@10, Sightline minus peer" in text and "txtai +0.0000 [+0.0000, +0.0000]" in text
    assert "haystack skipped: haystack is not installed" in text
    assert "txtai_speedup" in text


def test_paired_bootstrap():
    same = [0.0, 1.0, 0.5, 0.25] * 10
    assert paired_bootstrap(same, same) == {"diff": 0.0, "low": 0.0, "high": 0.0}
    rng = np.random.default_rng(1)
    theirs = rng.random(300)
    better = paired_bootstrap(theirs + 0.05 + rng.normal(0, 0.1, 300), theirs, resamples=2000, seed=3)
    assert 0.03 < better["diff"] < 0.07 and 0 < better["low"] < better["diff"] < better["high"]
    noise = paired_bootstrap(theirs + rng.normal(0, 0.1, 300) - 0.0, theirs, resamples=2000, seed=3)
    assert noise["low"] < 0 < noise["high"]
    assert paired_bootstrap(theirs, theirs[::-1], resamples=500, seed=7) == \
        paired_bootstrap(theirs, theirs[::-1], resamples=500, seed=7)  # seeded: reruns agree
    with pytest.raises(ValueError):
        paired_bootstrap([], [])


def test_significantly_below_when_the_whole_interval_is_under_zero():
    times = {"sightline": np.array([1.0, 1.0]), "haystack": np.array([40.0, 40.0])}
    scores = {"sightline": [{"ndcg@10": 0.2}, {"ndcg@10": 0.3}], "haystack": [{"ndcg@10": 0.5}, {"ndcg@10": 0.6}]}
    out = report(times, scores, ["ndcg@10"], resamples=200)
    assert out["quality_vs_best_peer"]["ndcg@10"]["significantly_below"] is True
    assert out["systems"]["haystack"]["x_sightline_median"] == 40.0
    assert out["targets"]["haystack_speedup"] == {"x": 40.0, "target": 30.0, "met": True}
    assert out["targets"]["quality_not_significantly_below_best_peer"] is False


def test_a_missing_peer_is_skipped_with_a_message():
    def missing(corpus, k, candidates):
        raise ModuleNotFoundError("No module named 'txtai'", name="txtai")

    log: list[tuple[str, int]] = []
    corpus = Corpus(TEXTS, unit_vectors(5), ["q"], embed=lambda text: unit_vectors(1)[0])
    loaded = load_peers(["txtai", "haystack"], corpus, 10, 200,
                        factories={"txtai": missing, "haystack": lambda c, k, n: Ranked("haystack", [[0]], log)})
    assert [s.name for s in loaded.systems] == ["haystack"]
    assert set(loaded.skipped) == {"txtai"}
    assert "txtai is not installed" in loaded.skipped["txtai"] and "make setup-peers" in loaded.skipped["txtai"]


def test_options():
    args = parse_args(["--set", "scifact", "--limit", "20", "--json"])
    assert (args.set_name, args.limit, args.json, args.peers) == ("scifact", 20, True, ["txtai", "haystack"])
    with pytest.raises(SystemExit):
        parse_args(["--limit", "0"])
    with pytest.raises(SystemExit):
        parse_args(["--set", "rgb"])


def test_the_cli_hands_bench_peers_to_the_peer_benchmark(capsys):
    from server.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["bench", "peers", "--help"])
    assert exit_info.value.code == 0
    assert "sightline bench peers" in capsys.readouterr().out


# --- the peer adapters, where the peers are installed -------------------------------------------

def peer_corpus(queries: list[str], query_rows: list[int]) -> Corpus:
    """Queries embedded as the stored vector of a chosen row (no model: the lookup is the embedder)."""
    vectors = unit_vectors(len(TEXTS))
    lookup = dict(zip(queries, query_rows, strict=True))
    return Corpus(list(TEXTS), vectors, queries, embed=lambda text: vectors[lookup[text]].copy())


@pytest.mark.parametrize("peer", ["txtai", "haystack"])
def test_each_peer_searches_the_stored_vectors_and_its_keyword_arm(peer):
    module = "haystack" if peer == "haystack" else "txtai"
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{peer} is not installed (the optional `peers` extra: make setup-peers)")
    # q0: only the vector points at row 4 (no word in the corpus); q1: both arms point at row 0;
    # q2: the keyword arm says row 3 (elephants), the vector says row 2
    queries = ["xyzzy plugh", "zebra river dawn", "elephants"]
    corpus = peer_corpus(queries, [4, 0, 2])
    system = TxtaiSystem(corpus, k=3) if peer == "txtai" else HaystackSystem(corpus, k=3, candidates=5)
    for i in range(3):
        system.search(i)
    assert system.results[0][0] == 4
    assert system.results[1][0] == 0
    assert set(system.results[2][:2]) == {2, 3}
    assert system.version != "unknown"
