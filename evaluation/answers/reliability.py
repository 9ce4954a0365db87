"""The reliability plot of the model card: predicted against observed share of answering units per
probability bin, from the dev table each model file records (`about.reliability_dev`).

`python -m evaluation.answers.reliability [--out docs/answer_model_reliability.png]`
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from orchestration.compose.scorer.model import LANGUAGES, load_model


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.reliability",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs") / "answer_model_reliability.png")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5, 5))
    axis.plot([0, 1], [0, 1], linestyle=":", color="grey", label="calibrated")
    for language in LANGUAGES:
        bins = load_model(language).about.get("reliability_dev") or []
        axis.plot([b["predicted"] for b in bins], [b["observed"] for b in bins], marker="o",
                  label=f"{language} (dev units: {sum(b['units'] for b in bins):,})")
    axis.set_xlabel("predicted probability (mean per bin)")
    axis.set_ylabel("observed share of units holding the answer")
    axis.set_title("Answer model, stage 1, dev split")
    axis.legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(args.out, dpi=100)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
