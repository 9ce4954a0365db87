"""The answer model: a logistic model over `features.FEATURES`, read from a JSON file.

One file per language (orchestration/compose/scorer/answer_model.<language>.json, made by
`make answer-model`, docs/ANSWER_MODEL.md) holds the feature names, each feature's mean and
scale on the training data, the weights, the bias, the refusal (the weights that read a
question's probability of being answered from its best unit and the rules' verdict, and the
threshold chosen on dev) and how it was trained. Each
feature's contribution to a unit's log-odds is its weight times its standardised value, so the
trace can say why a unit scored what it did.

Promises: `probabilities` is pure and deterministic; a model file whose features are not
`FEATURES` (in that order) is refused at load, naming the difference.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import ConfigError

from .features import FEATURES

MODEL_DIR = Path(__file__).parent
LANGUAGES = ("en", "zh")


MODEL_DIR_ENV = "SIGHTLINE_ANSWER_MODEL_DIR"  # another folder of model files (a retrain being checked)


def model_path(language: str) -> Path:
    """Where the model of a language lives (SIGHTLINE_ANSWER_MODEL_DIR, else beside this module)."""
    return Path(os.environ.get(MODEL_DIR_ENV) or MODEL_DIR) / f"answer_model.{language}.json"


@dataclass(frozen=True)
class AnswerModel:
    """Weights of the logistic answer model.

    Attributes:
        mean, scale: per feature, the standardisation (value - mean) / scale.
        weights: per feature, its weight on the standardised value.
        bias: the intercept.
        threshold: the unit-level threshold (the refusal's when it has none of its own).
        about: how it was trained (data, sizes, dev figures), for the trace and the model card.
        rerank: {"top", "model", "cross"}: the `top` most probable units are read again by the
            cross-encoder (scorer/cross.py) and scored `rerank_score`; empty: no second reading.
        refusal: {"bias", "unit_logit", "rules_unanswered", "threshold"}: a question is answered
            with probability sigmoid(bias + unit_logit * logit(best unit p) + rules_unanswered *
            [the rules say it is not]) and refused below the threshold (validation/checks/answerability.py).
    """

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    about: dict[str, Any] = field(default_factory=dict)
    refusal: dict[str, float] = field(default_factory=dict)
    rerank: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "answer model") -> AnswerModel:
        """A model from its JSON form.

        Raises:
            ConfigError: the features differ from FEATURES, or a field is missing or malformed.
        """
        names = tuple(data.get("features") or ())
        if names != FEATURES:
            missing = [n for n in FEATURES if n not in names]
            extra = [n for n in names if n not in FEATURES]
            raise ConfigError(f"{source}: its features do not match this version's (missing {missing}, "
                              f"unknown {extra}); retrain it with `make answer-model`")
        try:
            vectors = [tuple(float(v) for v in data[key]) for key in ("mean", "scale", "weights")]
            bias, threshold = float(data["bias"]), float(data["threshold"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: malformed ({exc}); retrain it with `make answer-model`") from exc
        if any(len(v) != len(FEATURES) for v in vectors) or not 0.0 < threshold < 1.0:
            raise ConfigError(f"{source}: vectors must have {len(FEATURES)} values and the threshold lie in (0, 1)")
        mean, scale, weights = vectors
        refusal = {str(k): float(v) for k, v in (data.get("refusal") or {}).items()}
        if refusal and not 0.0 < refusal.get("threshold", -1.0) < 1.0:
            raise ConfigError(f"{source}: the refusal's threshold must lie in (0, 1)")
        rerank = {str(k): float(v) for k, v in (data.get("rerank") or {}).items()}
        return cls(mean, tuple(s if s > 0 else 1.0 for s in scale), weights, bias, threshold,
                   dict(data.get("about") or {}), refusal, rerank)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`from_dict` reads it back)."""
        return {"features": list(FEATURES), "mean": list(self.mean), "scale": list(self.scale),
                "weights": list(self.weights), "bias": self.bias, "threshold": self.threshold,
                "refusal": dict(self.refusal), "rerank": dict(self.rerank), "about": self.about}

    def logit(self, row: Sequence[float]) -> float:
        """The log-odds that the unit with these features answers the question."""
        return self.bias + sum(w * (x - m) / s for w, x, m, s in zip(self.weights, row, self.mean, self.scale,
                                                                     strict=True))

    def probability(self, row: Sequence[float]) -> float:
        """The probability that the unit answers the question."""
        z = self.logit(row)
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def contributions(self, row: Sequence[float], top: int = 3) -> list[tuple[str, float]]:
        """The `top` features moving this unit's log-odds most, with their signed contribution."""
        parts = [(name, w * (x - m) / s) for name, w, x, m, s in zip(FEATURES, self.weights, row, self.mean,
                                                                     self.scale, strict=True)]
        return sorted(parts, key=lambda p: -abs(p[1]))[:top]


def rerank_score(rerank: dict[str, float], p: float, cross_logit: float) -> float:
    """A unit's probability after the cross-encoder's reading: sigmoid of the mix of the model's
    log-odds and the cross-encoder's logit, weighted as `rerank` says."""
    p = min(max(p, 1e-6), 1 - 1e-6)
    z = rerank.get("model", 0.5) * math.log(p / (1 - p)) + rerank.get("cross", 0.5) * cross_logit
    return 1.0 / (1.0 + math.exp(-z))


def load_model(language: str = "en") -> AnswerModel:
    """The answer model of a language (read once per process).

    Raises:
        ConfigError: the file is missing or malformed (the message says how to rebuild it).
    """
    return read_model(model_path(language))


@functools.lru_cache(maxsize=8)
def read_model(path: Path) -> AnswerModel:
    """The answer model at `path` (read once per process).

    Raises:
        ConfigError: the file is missing or malformed (the message says how to rebuild it).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"answer model {path} is missing; build it with `make answer-model`") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"answer model {path} is not JSON ({exc}); rebuild it with `make answer-model`") from exc
    return AnswerModel.from_dict(data, source=str(path))
