"""Score files and figures of the cross-encoder run; the int8 ONNX model against the GPU model.

Writes var/eval/answers/ce_train.npy (out-of-fold: each SQuAD train row scored by the fold model
that did not see its article), ce_dev.npy and ce_test.npy (the final model), each aligned to the
rows of squad_<split>.npz. Prints, per split: the AUC of the logit for the row label; per
question the best row's logit, and at the thresholds that refuse 8/10/15 % of the answerable
questions, the share of unanswerable questions refused (a question without rows scores -inf, as
evaluation/answers/train.py counts it); top-1: of the answerable questions with a positive row,
the share whose best row is positive. Then the serving model (orchestration/compose/scorer/cross.py)
on --check random dev rows: correlation with the GPU logits, and ms per call of 8 pairs, 1 thread.

Usage: python evaluation/answers/cross_encoder/evaluate.py --run DIR [--repo .] [--data .ce] [--check 200]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

FALSE_REFUSALS = (0.08, 0.10, 0.15)


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    """Mann-Whitney AUC with ties counted half (the GPU logits are bf16: many ties)."""
    positive = np.asarray(y) > 0
    values, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    mid = np.cumsum(counts) - (counts - 1) / 2  # the average 1-based rank of each distinct value
    ranks = mid[inverse]
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def question_figures(rows: dict[str, np.ndarray], logits: np.ndarray) -> dict[str, object]:
    index = {q: i for i, q in enumerate(rows["ids"])}
    best = np.full(len(index), -np.inf)
    best_positive = np.zeros(len(index), dtype=bool)
    has_positive = np.zeros(len(index), dtype=bool)
    for q, value, label in zip(rows["question"], logits, rows["y"], strict=True):
        i = index[q]
        has_positive[i] |= bool(label)
        if value > best[i]:
            best[i], best_positive[i] = value, bool(label)
    answerable = np.asarray(rows["answerable"], dtype=bool)
    out: dict[str, object] = {
        "row_auc": round(auc(logits, rows["y"]), 4),
        "questions": int(len(best)), "answerable": int(answerable.sum()),
        "without_rows": int(np.isinf(best).sum()),
        "top1": round(float(best_positive[answerable & has_positive].mean()), 4),
        "answerable_with_positive_row": int((answerable & has_positive).sum()),
        "question_auc_answerable_vs_not": round(auc(np.nan_to_num(best, neginf=-1e9), answerable.astype(int)), 4)}
    ranked = np.sort(best[answerable])
    for rate in FALSE_REFUSALS:
        threshold = ranked[int(np.floor(rate * len(ranked)))]
        kept = best >= threshold
        out[f"at_false_refusal_{rate:.2f}"] = {
            "threshold": round(float(threshold), 4),
            "false_refusal": round(float(1 - kept[answerable].mean()), 4),
            "unanswerable_refused": round(float(1 - kept[~answerable].mean()), 4)}
    # the same over the questions that have rows (what the reader can change)
    rowed = ~np.isinf(best)
    ranked = np.sort(best[answerable & rowed])
    for rate in FALSE_REFUSALS:
        threshold = ranked[int(np.floor(rate * len(ranked)))]
        kept = best >= threshold
        out[f"with_rows_at_false_refusal_{rate:.2f}"] = {
            "false_refusal": round(float(1 - kept[answerable & rowed].mean()), 4),
            "unanswerable_refused": round(float(1 - kept[~answerable & rowed].mean()), 4),
            "questions": int(rowed.sum()), "answerable": int((answerable & rowed).sum())}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--repo", type=Path, default=Path("."))
    parser.add_argument("--data", type=Path, default=Path(".ce"))
    parser.add_argument("--check", type=int, default=200)
    args = parser.parse_args()
    answers = args.repo / "var" / "eval" / "answers"

    train_rows = dict(np.load(answers / "squad_train.npz"))
    oof = np.full(len(train_rows["y"]), np.nan, dtype=np.float32)
    for role in ("a", "b"):
        part = np.load(args.run / f"scores_{role}.npz")
        oof[part["rows"]] = part["train"]
    if np.isnan(oof).any():
        raise RuntimeError(f"{int(np.isnan(oof).sum())} train rows have no out-of-fold score")
    final = np.load(args.run / "scores_final.npz")
    scores = {"train": oof, "dev": final["dev"].astype(np.float32), "test": final["test"].astype(np.float32)}
    report = {}
    for split, values in scores.items():
        path = answers / f"squad_{split}.npz"
        if not path.exists() or not len(values):
            continue
        rows = dict(np.load(path))
        if len(rows["y"]) != len(values):
            raise RuntimeError(f"{split}: {len(values)} scores for {len(rows['y'])} rows")
        np.save(answers / f"ce_{split}.npy", values)
        report[split] = question_figures(rows, values)
    dev_folds = {role: np.load(args.run / f"scores_{role}.npz")["dev"] for role in ("a", "b")}
    report["dev_fold_models_row_auc"] = {role: round(auc(v, np.load(answers / "squad_dev.npz")["y"]), 4)
                                         for role, v in dev_folds.items()}
    print(json.dumps(report, indent=1))

    if args.check:
        sys.path.insert(0, str(args.repo.resolve()))
        from orchestration.compose.scorer.cross import CrossEncoder

        dev = [json.loads(line) for line in gzip.open(args.data / "squad_dev.jsonl.gz", "rt", encoding="utf-8")]
        encoder = CrossEncoder()
        started = time.perf_counter()
        encoder.warm_up()
        load_ms = (time.perf_counter() - started) * 1000
        rng = np.random.default_rng(0)
        picked = rng.choice(len(dev), args.check, replace=False)
        got = np.array([encoder.logits(dev[i]["q"], [dev[i]["s"]])[0] for i in picked])
        want = scores["dev"][picked]
        print(json.dumps({"check_pairs": args.check, "pearson": round(float(np.corrcoef(got, want)[0, 1]), 5),
                          "mean_abs_diff": round(float(np.abs(got - want).mean()), 4),
                          "max_abs_diff": round(float(np.abs(got - want).max()), 4),
                          "warm_up_ms": round(load_ms, 1)}))
        by_question = defaultdict(list)
        for row in dev:
            by_question[row["q"]].append(row["s"])
        calls = [(q, texts[:8]) for q, texts in by_question.items() if len(texts) >= 8]
        calls = [calls[i] for i in rng.choice(len(calls), min(100, len(calls)), replace=False)]
        for question, texts in calls[:5]:
            encoder.logits(question, texts)
        times = []
        for question, texts in calls:
            started = time.perf_counter()
            encoder.logits(question, texts)
            times.append((time.perf_counter() - started) * 1000)
        tokens = [len(e.ids) for q, texts in calls
                  for e in encoder._tokenizer.encode_batch([(q, t[:300]) for t in texts])]
        print(json.dumps({"calls_of_8_pairs": len(times), "ms_median": round(float(np.median(times)), 1),
                          "ms_p90": round(float(np.percentile(times, 90)), 1),
                          "ms_mean": round(float(np.mean(times)), 1),
                          "tokens_per_pair_mean": round(float(np.mean(tokens)), 1)}))


if __name__ == "__main__":
    main()
