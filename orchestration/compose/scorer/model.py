"""The answer model: a logistic model over `features.FEATURES`, read from a JSON file.

The file (orchestration/compose/scorer/answer_model.json, made by `make answer-model`,
docs/ANSWER_MODEL.md) holds the feature names, each feature's mean and scale on the training
data, the weights, the bias, the refusal threshold chosen on dev and how it was trained. Each
feature's contribution to a unit's log-odds is its weight times its standardised value, so the
trace can say why a unit scored what it did.

Promises: `probabilities` is pure and deterministic; a model file whose features are not
`FEATURES` (in that order) is refused at load, naming the difference.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.errors import ConfigError

from .features import FEATURES

MODEL_PATH = Path(__file__).with_name("answer_model.json")


@dataclass(frozen=True)
class AnswerModel:
    """Weights of the logistic answer model.

    Attributes:
        mean, scale: per feature, the standardisation (value - mean) / scale.
        weights: per feature, its weight on the standardised value.
        bias: the intercept.
        threshold: the refusal threshold: an answer whose best unit scores below it is refused.
        about: how it was trained (data, sizes, dev figures), for the trace and the model card.
    """

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    about: dict[str, Any] = field(default_factory=dict)

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
        return cls(mean, tuple(s if s > 0 else 1.0 for s in scale), weights, bias, threshold,
                   dict(data.get("about") or {}))

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`from_dict` reads it back)."""
        return {"features": list(FEATURES), "mean": list(self.mean), "scale": list(self.scale),
                "weights": list(self.weights), "bias": self.bias, "threshold": self.threshold, "about": self.about}

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


@functools.lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> AnswerModel:
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
