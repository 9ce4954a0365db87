"""Training the answer model: the sign-constrained fit, the threshold chosen on dev, the figures,
and a small sample trained through the real loop end to end (`make answer-model` at small scale)."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

import numpy as np
import pytest

from evaluation.answers.collect import collect, squad_gold
from evaluation.answers.fit import fit_logistic, fit_monotone, predict, question_weights
from evaluation.answers.splits import SQUAD_FILE, split_of, squad_articles
from evaluation.answers.train import (
    QuestionScores,
    as_arrays,
    choose_threshold,
    figures,
    reliability,
    train,
    write_model,
)
from orchestration.compose.scorer.features import FEATURES
from orchestration.compose.scorer.model import AnswerModel, read_model


def _synthetic(n: int = 4000, seed: int = 7):
    rng = np.random.default_rng(seed)
    x = rng.random((n, 3))
    logit = 4.0 * x[:, 0] - 3.0 * x[:, 1] - 2.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return x, y


def test_the_fit_recovers_the_direction_of_each_feature_and_is_deterministic():
    x, y = _synthetic()
    first, second = fit_logistic(x, y), fit_logistic(x, y)
    assert first.weights[0] > 0.5 and first.weights[1] < -0.5 and abs(first.weights[2]) < 0.1
    assert np.array_equal(first.weights, second.weights) and first.bias == second.bias
    p = predict(first, x)
    assert abs(p.mean() - y.mean()) < 0.01  # calibrated in the large


def test_a_feature_constrained_upwards_that_fits_negative_is_held_at_zero():
    x, y = _synthetic()
    fit = fit_monotone(x, y, None, signs=(1, 1, 0))
    assert fit.weights[1] == 0.0 and fit.weights[0] > 0.5


def test_question_weights_make_every_question_count_once():
    weights = question_weights(["a", "a", "a", "b"])
    assert weights.tolist() == pytest.approx([1 / 3, 1 / 3, 1 / 3, 1.0])


def test_the_threshold_refuses_at_most_the_allowed_share_of_answerable_questions():
    best = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.2, 0.04])
    answerable = np.array([True] * 10 + [False] * 2)
    scores = QuestionScores(best, np.array([True] * 12), answerable)
    threshold = choose_threshold(scores, max_false_refusal=0.1)
    assert np.mean(best[answerable] < threshold) <= 0.1
    result = figures(scores, threshold)
    assert result["false_refusal"] == 0.0 + np.mean(best[answerable] < threshold)
    assert result["unanswerable_refused"] == 0.5  # 0.04 refused, 0.2 kept


def test_reliability_bins_compare_predicted_with_observed():
    p = np.array([0.01, 0.02, 0.6, 0.65])
    y = np.array([0, 0, 1, 0])
    bins = reliability(p, y)
    assert [b["units"] for b in bins] == [2, 2]
    assert bins[1]["observed"] == 0.5 and bins[1]["predicted"] == pytest.approx(0.625)


def _article(title: str, facts: list[tuple[str, list[tuple[str, str, list[str]]]]]) -> dict:
    return {"title": title, "paragraphs": [
        {"context": context, "qas": [{"id": qid, "question": q, "is_impossible": not answers,
                                      "answers": [{"text": a, "answer_start": 0} for a in answers]}
                                     for qid, q, answers in qas]} for context, qas in facts]}


def _title(split: str, stem: str) -> str:
    return next(f"{stem}_{i}" for i in range(1000) if split_of(f"{stem}_{i}") == split)


@pytest.mark.model
def test_a_small_sample_trains_through_the_real_loop(tmp_path, embedder):
    """Rows from the real loop over a tiny article per split, a fit, a threshold, a file that loads."""
    from evaluation.runner import eval_kb_config
    from evaluation.squad import KB_OF, build_squad_kb, build_squad_loop

    facts = [("The Karelian Lighthouse was built in 1872 on Vessel Island. Its lamp was designed by the engineer "
              "Marta Holm. The tower is 41 metres tall.",
              [("q1", "Who designed the lamp of the Karelian Lighthouse?", ["Marta Holm"]),
               ("q2", "How tall is the Karelian Lighthouse tower?", ["41 metres"]),
               ("q3", "Who painted the Karelian Lighthouse?", [])]),
             ("In 1931 the lighthouse was electrified. The keeper's house became a museum in 1985.",
              [("q4", "When did the keeper's house become a museum?", ["1985"]),
               ("q5", "When was the lighthouse demolished?", [])])]
    data = [_article(_title(split, "Lighthouse"), [(c, [(f"{split}-{i}", q, a) for i, q, a in qas])
                                                   for c, qas in facts]) for split in ("train", "dev")]
    path = tmp_path / SQUAD_FILE
    path.parent.mkdir(parents=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump({"version": "v2.0", "data": data}, handle)
    config = replace(eval_kb_config(tmp_path), data_dir=tmp_path / "var")
    rows = {}
    for split in ("train", "dev"):
        build_squad_kb(config, split, progress=False, data_dir=tmp_path, corpus=tmp_path / f"{split}.jsonl")
        loop = build_squad_loop(config, split, use_ner=False)
        rows[split] = as_arrays(collect(loop, KB_OF[split], squad_gold(squad_articles(tmp_path, split)),
                                        progress=False))
    assert rows["train"]["x"].shape[1] == len(FEATURES) and rows["train"]["y"].sum() >= 3
    model = train(rows["train"], rows["dev"], l2_choices=(1.0,))
    assert model.about["dev"]["false_refusal"] <= 0.08 + 1e-9
    written = write_model(model, tmp_path / "model.json")
    again = AnswerModel.from_dict(json.loads(written.read_text(encoding="utf-8")))
    assert again == model
    assert read_model.__wrapped__(written) == model


def _outcomes(n: int = 3000, seed: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    answerable = rng.random(n) < 0.5
    best = np.clip(np.where(answerable, rng.beta(4, 3, n), rng.beta(2, 5, n)), 1e-3, 1 - 1e-3)
    rules = rng.random(n) < np.where(answerable, 0.15, 0.6)
    structural = rng.random(n) < 0.03
    return {"ids": np.array([f"q{i}" for i in range(n)]), "best": best, "answerable": answerable,
            "rules_unanswered": rules, "structural": structural}


def test_the_refusal_weighs_the_unit_probability_up_and_the_rules_verdict_down():
    from evaluation.answers.refusal import choose_refusal_threshold, fit_refusal, refusal_figures

    train_set, dev = _outcomes(seed=3), _outcomes(seed=4)
    refusal = fit_refusal(train_set)
    assert refusal["unit_logit"] > 0 and refusal["rules_unanswered"] < 0
    refusal["threshold"] = choose_refusal_threshold(refusal, dev, max_false_refusal=0.08)
    figures_dev = refusal_figures(refusal, dev)
    assert figures_dev["false_refusal"] <= 0.08 + 1e-9
    # better than chance at telling them apart, and a structural refusal is always a refusal
    assert figures_dev["unanswerable_refused"] > 0.3
    from evaluation.answers.refusal import answered
    assert np.all(answered(refusal, dev)[dev["structural"]] == 0.0)
