"""Fitting the logistic answer model: L2-regularised logistic regression by Newton's method.

Twenty-odd features and a few hundred thousand rows: Newton's method converges in a few
iterations, exactly and deterministically, with nothing to install. Rows are weighted so that
each question counts the same whatever its number of candidates, and each source set as its
`set_weight` says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Fit:
    """A fitted model on standardised features."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    iterations: int


def fit_logistic(x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None, l2: float = 1.0,
                 max_iter: int = 50, tol: float = 1e-8) -> Fit:
    """Weights minimising the weighted log-loss plus `l2`/2 |w|^2 (the bias is not penalised).

    Args:
        x: rows x features (raw values; standardised here).
        y: 0/1 labels.
        sample_weight: a weight per row (default 1).
        l2: the penalty on the standardised weights, in units of total sample weight / 1000.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    sw = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    mean = np.average(x, axis=0, weights=sw)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=sw))
    scale[scale <= 1e-12] = 1.0
    z = np.hstack([np.ones((len(y), 1)), (x - mean) / scale])
    penalty = np.full(z.shape[1], l2 * sw.sum() / 1000.0)
    penalty[0] = 0.0
    beta = np.zeros(z.shape[1])
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is reported)
        p = 1.0 / (1.0 + np.exp(-(z @ beta)))
        gradient = z.T @ (sw * (p - y)) + penalty * beta
        hessian = (z * (sw * p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < tol:
            break
    return Fit(mean, scale, beta[1:], float(beta[0]), iterations)


def fit_monotone(x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None, signs: Sequence[int],
                 l2: float = 1.0) -> Fit:
    """`fit_logistic` with a sign constraint per feature (+1: its weight may not be negative, -1:
    not positive, 0: free): a feature whose fitted weight breaks its constraint is held at 0 and
    the rest refitted, until none does.

    Why: what says a unit answers must not count against it on another kind of data. SQuAD 2.0's
    unanswerable questions were written to share nearly every word with their paragraph, so
    unconstrained, the share of the question's terms a unit holds gets a negative weight there,
    which on real documentation refuses the answer and accepts the off-topic sentence.
    """
    x = np.asarray(x, dtype=float)
    active = np.ones(x.shape[1], dtype=bool)
    while True:
        fit = fit_logistic(x[:, active], y, sample_weight, l2=l2)
        weights = np.zeros(x.shape[1])
        weights[active] = fit.weights
        broken = [i for i, sign in enumerate(signs) if active[i] and sign * weights[i] < 0]
        if not broken:
            mean, scale = np.zeros(x.shape[1]), np.ones(x.shape[1])
            mean[active], scale[active] = fit.mean, fit.scale
            return Fit(mean, scale, weights, fit.bias, fit.iterations)
        active[min(broken, key=lambda i: signs[i] * weights[i])] = False  # the worst one first


def predict(fit: Fit, x: np.ndarray) -> np.ndarray:
    """The probabilities of rows `x` under `fit`."""
    z = fit.bias + ((np.asarray(x, dtype=float) - fit.mean) / fit.scale) @ fit.weights
    return 1.0 / (1.0 + np.exp(-z))


def question_weights(question_ids: Sequence[str]) -> np.ndarray:
    """A weight per row so that every question's rows sum to 1."""
    counts: dict[str, int] = {}
    for q in question_ids:
        counts[q] = counts.get(q, 0) + 1
    return np.array([1.0 / counts[q] for q in question_ids])


def threshold_refusing(answerable: np.ndarray, max_share: float) -> float:
    """The highest threshold under which at most `max_share` of the answerable questions' scores
    fall (refused when score < threshold); kept inside (0, 1) and rounded down to 6 places, as the
    model file writes it (rounding up could refuse a tie).

    Raises:
        ValueError: there is no answerable question to choose on.
    """
    ordered = np.sort(np.asarray(answerable, dtype=float))
    if len(ordered) == 0:
        raise ValueError("no answerable question to choose a threshold on")
    allowed = int(np.floor(max_share * len(ordered)))  # questions we may refuse
    return float(np.floor(min(max(ordered[allowed], 1e-6), 1 - 1e-6) * 1e6) / 1e6)
