"""The reader's figures on its choosing and report pairs (pairs.py), side by side with another
cross-encoder: `python -m evaluation.answers.reader.evaluate --data .ce [--before OLD.onnx]`.

Per set: pair AUC; top-1 (answerable questions whose best-scoring unit holds the answer); question
AUC (the best unit's logit, answerable against unanswerable questions); unanswerable refused at
false refusal 0.10, the threshold chosen on the set itself (a ceiling for the refusal, not a
figure to report as held out). The model scored is the served int8 ONNX (`CrossEncoder`), one
pair at a time as serving runs it; `--before` scores an older model on the unit alone (the
reading's first part), as that model was trained.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .train import auc, read_jsonl

SETS = ("choose_squad", "choose_docs", "report_squad", "report_docs")


def figures(rows: Sequence[dict], logits: np.ndarray, false_refusal: float = 0.10) -> dict[str, float]:
    """The set's figures from its pairs and one logit per pair."""
    best: dict[str, tuple[float, int]] = {}
    answerable: dict[str, bool] = {}
    for row, logit in zip(rows, logits, strict=True):
        q = row["g"]
        answerable[q] = bool(row["a"])
        if q not in best or logit > best[q][0]:
            best[q] = (float(logit), int(row["y"]))
    ids = sorted(best)
    top = np.array([best[q][0] for q in ids])
    a = np.array([answerable[q] for q in ids])
    hit = np.array([best[q][1] for q in ids])
    threshold = np.quantile(top[a], false_refusal) if a.any() else 0.0
    labels = np.array([r["y"] for r in rows])
    return {"pairs": len(rows), "questions": len(ids), "pair_auc": round(auc(logits, labels), 4),
            "top1": round(float(hit[a].mean()), 4), "question_auc": round(auc(top, a.astype(int)), 4),
            f"refused_at_fr_{false_refusal:.2f}": round(float((top[~a] < threshold).mean()), 4) if (~a).any()
            else float("nan")}


def score(model: Path, rows: Sequence[dict], unit_only: bool) -> np.ndarray:
    from orchestration.compose.scorer.cross import CrossEncoder

    encoder = CrossEncoder(model)
    encoder.CACHE_PAIRS = 10 ** 9
    by_question: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_question.setdefault(row["q"], []).append(i)
    out = np.zeros(len(rows), dtype=np.float32)
    for question, index in by_question.items():
        texts = [rows[i]["s"].split(" | ")[0] if unit_only else rows[i]["s"] for i in index]
        out[index] = encoder.logits(question, texts)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from orchestration.compose.scorer.cross import MODEL

    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.reader.evaluate",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path(".ce"))
    parser.add_argument("--model", type=Path, default=MODEL)
    parser.add_argument("--before", type=Path, help="an older cross-encoder, read on the unit alone")
    parser.add_argument("--sets", nargs="*", default=list(SETS))
    args = parser.parse_args(argv)
    for name in args.sets:
        rows = read_jsonl(args.data / f"reader_{name}.jsonl.gz")
        line = {"set": name, "reader": figures(rows, score(args.model, rows, unit_only=False))}
        if args.before:
            line["before"] = figures(rows, score(args.before, rows, unit_only=True))
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
