"""The refusal: a question's probability of being answered, from its best unit's probability and
the rules' verdict, fitted on the train split's questions; the threshold chosen on dev so that at
most MAX_FALSE_REFUSAL of the answerable dev questions are refused (a structural refusal, a name or
identifier the evidence never names, counts as refused and is not learned: it always refuses).
A question whose answer quotes no scored unit (the composer found nothing, or answered a
comparison, which the comparison check judges) is not the refusal's to decide: it is left out.
"""

from __future__ import annotations

import numpy as np

from validation.checks.answerability import answered_probability

from .fit import fit_logistic, threshold_refusing

MAX_FALSE_REFUSAL = 0.08


def refusal_features(outcomes: dict[str, np.ndarray]) -> np.ndarray:
    """[log-odds of the best unit, the rules say unanswered] per question."""
    p = np.clip(outcomes["best"].astype(float), 1e-6, 1 - 1e-6)
    return np.column_stack([np.log(p / (1 - p)), outcomes["rules_unanswered"].astype(float)])


def answered(refusal: dict[str, float], outcomes: dict[str, np.ndarray]) -> np.ndarray:
    """The probability that each question is answered (0 where a structural condition refuses)."""
    p = np.array([answered_probability(b, bool(r), refusal)
                  for b, r in zip(outcomes["best"], outcomes["rules_unanswered"], strict=True)])
    return np.where(outcomes["structural"].astype(bool), 0.0, p)


def scored(outcomes: dict[str, np.ndarray]) -> np.ndarray:
    """The questions whose answer quotes a scored unit."""
    return outcomes["best"] > 0


def fit_refusal(train: dict[str, np.ndarray]) -> dict[str, float]:
    """The refusal's weights (no threshold yet), fitted on the scored questions no structural
    condition refuses."""
    free = ~train["structural"].astype(bool) & scored(train)
    fit = fit_logistic(refusal_features(train)[free], train["answerable"][free].astype(float), l2=0.01)
    # fit_logistic standardises: bring the weights back to raw feature units
    unit_logit, rules = fit.weights / fit.scale
    bias = fit.bias - float(np.sum(fit.weights * fit.mean / fit.scale))
    return {"bias": round(float(bias), 6), "unit_logit": round(float(unit_logit), 6),
            "rules_unanswered": round(float(rules), 6)}


def choose_refusal_threshold(refusal: dict[str, float], dev: dict[str, np.ndarray],
                             max_false_refusal: float = MAX_FALSE_REFUSAL) -> float:
    """The highest threshold refusing at most `max_false_refusal` of the answerable dev questions."""
    return threshold_refusing(answered(refusal, dev)[dev["answerable"].astype(bool) & scored(dev)],
                              max_false_refusal)


def refusal_figures(refusal: dict[str, float], outcomes: dict[str, np.ndarray]) -> dict[str, float]:
    """Unanswerable refused and false refusal at the refusal's threshold."""
    keep = scored(outcomes)
    refused = (answered(refusal, outcomes) < refusal["threshold"])[keep]
    a = outcomes["answerable"].astype(bool)[keep]
    return {"unanswerable_refused": round(float(refused[~a].mean()), 4) if (~a).any() else 0.0,
            "false_refusal": round(float(refused[a].mean()), 4), "questions": int(len(a))}
