"""Train the answer model: `make answer-model` (python -m evaluation.answers.train).

Fit on the SQuAD 2.0 train articles, choose on the dev articles (the regularisation, and the
refusal threshold: the highest that keeps false refusal on dev at or under MAX_FALSE_REFUSAL),
report on the test articles (evaluation/answers/splits.py). The rows come from the real loop
(evaluation/answers/collect.py), so the features the model is fitted on are the ones it sees
when serving. Deterministic: the same data gives the same file, byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from orchestration.compose.scorer.features import FEATURES, SIGNS
from orchestration.compose.scorer.model import MODEL_DIR_ENV, AnswerModel, model_path, read_model

from .cmrc import CMRC_FILES
from .collect import GoldQuestion, Rows, collect, held_out_half, multihop_gold, outcomes, squad_gold
from .fit import Fit, fit_monotone, predict, question_weights, threshold_refusing
from .refusal import MAX_FALSE_REFUSAL
from .splits import SPLITS, SQUAD_FILE, squad_articles

MULTIHOP_FILE = Path("multihop_rag") / "queries_dev.jsonl"
L2_CHOICES = (0.1, 1.0, 10.0)
RELIABILITY_BINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0001)


@dataclass(frozen=True)
class QuestionScores:
    """Per question: the best unit's probability, whether that unit holds the answer, answerable."""

    best: np.ndarray
    correct: np.ndarray
    answerable: np.ndarray


def per_question(rows: dict[str, np.ndarray], p: np.ndarray) -> QuestionScores:
    """The best-scoring unit of each question (a question without rows scores 0)."""
    index = {q: i for i, q in enumerate(rows["ids"])}
    best = np.zeros(len(index))
    correct = np.zeros(len(index), dtype=bool)
    for q, prob, label in zip(rows["question"], p, rows["y"], strict=True):
        i = index[q]
        if prob > best[i]:
            best[i], correct[i] = prob, bool(label)
    return QuestionScores(best, correct, np.asarray(rows["answerable"], dtype=bool))


def choose_threshold(scores: QuestionScores, max_false_refusal: float = MAX_FALSE_REFUSAL) -> float:
    """The highest threshold refusing at most `max_false_refusal` of the answerable questions."""
    return threshold_refusing(scores.best[scores.answerable], max_false_refusal)


def figures(scores: QuestionScores, threshold: float) -> dict[str, float]:
    """Question-level figures at a threshold: lead unit correct, unanswerable refused, false refusal."""
    a, u = scores.answerable, ~scores.answerable
    kept = scores.best >= threshold
    return {"lead_correct": round(float(np.mean(scores.correct[a])), 4),
            "lead_correct_when_answered": round(float(np.mean(scores.correct[a & kept])), 4) if (a & kept).any()
            else 0.0,
            "unanswerable_refused": round(float(np.mean(~kept[u])), 4) if u.any() else 0.0,
            "false_refusal": round(float(np.mean(~kept[a])), 4),
            "questions": int(len(scores.best))}


def reliability(p: np.ndarray, y: np.ndarray) -> list[dict[str, float]]:
    """Calibration by probability bin: mean predicted vs observed share of answering units."""
    out = []
    for low, high in zip(RELIABILITY_BINS, RELIABILITY_BINS[1:], strict=False):
        inside = (p >= low) & (p < high)
        if inside.any():
            out.append({"bin": f"{low:.2f}-{min(high, 1.0):.2f}", "units": int(inside.sum()),
                        "predicted": round(float(p[inside].mean()), 4), "observed": round(float(y[inside].mean()), 4)})
    return out


def as_arrays(rows: Rows) -> dict[str, np.ndarray]:
    """Rows as the arrays fitting reads (the layout `Rows.save` writes)."""
    ids = sorted(rows.answerable)
    return {"x": np.array(rows.x, dtype=float).reshape(-1, len(FEATURES)), "y": np.array(rows.y),
            "question": np.array(rows.question), "ids": np.array(ids),
            "answerable": np.array([rows.answerable[i] for i in ids])}


def to_model(fit: Fit, threshold: float, about: dict[str, Any]) -> AnswerModel:
    """The serving model of a fit (rounded, so the file is stable and readable)."""
    return AnswerModel(tuple(round(float(v), 6) for v in fit.mean), tuple(round(float(v), 6) for v in fit.scale),
                       tuple(round(float(v), 6) for v in fit.weights), round(fit.bias, 6), round(threshold, 6), about)


def combine(*row_sets: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Row sets of several sources as one (question ids must not collide across sources)."""
    return {key: np.concatenate([r[key] for r in row_sets]) if key != "x" else np.vstack([r["x"] for r in row_sets])
            for key in ("x", "y", "question", "ids", "answerable")}


def train(train_rows: dict[str, np.ndarray], dev_rows: dict[str, np.ndarray],
          test_rows: dict[str, np.ndarray] | None = None, l2_choices: Sequence[float] = L2_CHOICES,
          sources: dict[str, Any] | None = None) -> AnswerModel:
    """Fit one model per L2 choice on `train_rows` (sign-constrained, `fit.fit_monotone`), keep the
    one whose dev lead-unit accuracy plus unanswerable refusal (at the threshold it gets) is
    highest, and record dev and test figures in `about`."""
    weights = question_weights(list(train_rows["question"]))
    best: tuple[float, Fit, float, dict] | None = None
    for l2 in l2_choices:
        fit = fit_monotone(train_rows["x"], train_rows["y"], weights, SIGNS, l2=l2)
        dev_p = predict(fit, dev_rows["x"])
        scores = per_question(dev_rows, dev_p)
        threshold = choose_threshold(scores)
        dev = figures(scores, threshold)
        key = dev["lead_correct"] + dev["unanswerable_refused"]
        if best is None or key > best[0] + 1e-12:
            best = (key, fit, threshold, dev | {"l2": l2})
    assert best is not None
    _, fit, threshold, dev = best
    dev_p = predict(fit, dev_rows["x"])
    about: dict[str, Any] = {
        "trained_by": "make answer-model (python -m evaluation.answers.train)",
        "data": sources or {},
        "rows": {"train": int(len(train_rows["y"])), "dev": int(len(dev_rows["y"]))},
        "questions": {"train": int(len(train_rows["ids"])), "dev": int(len(dev_rows["ids"]))},
        "max_false_refusal": MAX_FALSE_REFUSAL,
        "dev": dev,
        "reliability_dev": reliability(dev_p, np.asarray(dev_rows["y"], dtype=float)),
    }
    if test_rows is not None:
        about["test"] = figures(per_question(test_rows, predict(fit, test_rows["x"])), threshold)
        about["questions"]["test"] = int(len(test_rows["ids"]))
    return to_model(fit, threshold, about)


def squad_rows(data_dir: Path, split: str, limit: int | None = None, progress: bool = True) -> dict[str, np.ndarray]:
    """Rows of one SQuAD split through the real loop (its KB built when needed): every question as
    written, and every other answerable one again without its paragraph (`collect.held_out_half`)."""
    from evaluation.runner import eval_kb_config
    from evaluation.squad import KB_OF, build_squad_kb, build_squad_loop

    config = eval_kb_config(data_dir)
    build_squad_kb(config, split, progress=progress, data_dir=data_dir)
    loop = build_squad_loop(config, split)
    questions = squad_gold(squad_articles(data_dir, split))[:limit]
    return combine(as_arrays(collect(loop, KB_OF[split], questions, progress=progress)),
                   held_out_rows(loop, KB_OF[split], questions, progress))


def cmrc_rows(data_dir: Path, split: str, limit: int | None = None, progress: bool = True) -> dict[str, np.ndarray]:
    """Rows of one CMRC 2018 split (Chinese; every question answerable as written), with every
    other question again without its paragraph."""
    from evaluation.runner import eval_kb_config

    from .cmrc import KB_OF, build_cmrc_loop, cmrc_articles

    loop = build_cmrc_loop(eval_kb_config(data_dir), data_dir, split, progress)
    questions = squad_gold(cmrc_articles(data_dir, split))[:limit]
    return combine(as_arrays(collect(loop, KB_OF[split], questions, progress=progress)),
                   held_out_rows(loop, KB_OF[split], questions, progress))


def held_out_rows(loop, kb: str, questions: Sequence[GoldQuestion], progress: bool) -> dict[str, np.ndarray]:
    """Rows of the held-out half of the answerable questions, asked without their passage."""
    chosen = [q for q in questions if q.answerable and held_out_half(q)]
    return as_arrays(collect(loop, kb, chosen, progress=progress, held_out=lambda q: True))


def multihop_rows(data_dir: Path, split: str, limit: int | None = None, progress: bool = True
                  ) -> dict[str, np.ndarray]:
    """Rows of one split of the MultiHop-RAG dev queries (`splits.query_split`) through the real
    loop with the MultiHop router: a unit answers when it is part of an evidence fact."""
    from evaluation.datasets import load_queries, set_folder
    from evaluation.multihop_loop import _query_date, build_loop
    from evaluation.runner import eval_kb_config

    from .collect import holds_fact, multihop_gold
    from .splits import query_split

    config = eval_kb_config(data_dir).only("multihop")
    from evaluation.builds import build_eval_kb
    build_eval_kb(config, "multihop", progress=progress)
    loop = build_loop(config, "multihop")
    queries = [q for q in load_queries("multihop", set_folder("multihop", data_dir)) if query_split(q.id) == split]
    queries = queries[:limit]
    dates = {q.id: _query_date(q) for q in queries}
    return as_arrays(collect(loop, "multihop", multihop_gold(queries), progress=progress, label=holds_fact,
                             now=lambda g: dates[g.id]))


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_model(model: AnswerModel, path: Path) -> Path:
    """The model as indented JSON (stable key order, so a retrain of the same data is identical)."""
    path.write_text(json.dumps(model.to_dict(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def combine_outcomes(*sets: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Question outcomes of several sources as one."""
    return {key: np.concatenate([o[key] for o in sets]) for key in sets[0]}


def _with_held_out(loop, kb: str, questions: Sequence[GoldQuestion], progress: bool) -> dict[str, np.ndarray]:
    """Outcomes of the questions as written and of the held-out half asked without their passage."""
    chosen = [q for q in questions if q.answerable and held_out_half(q)]
    return combine_outcomes(outcomes(loop, kb, questions, progress=progress).arrays(),
                            outcomes(loop, kb, chosen, progress=progress, held_out=lambda q: True).arrays())


def squad_outcomes(data_dir: Path, split: str, limit: int | None = None, progress: bool = True):
    from evaluation.runner import eval_kb_config
    from evaluation.squad import KB_OF, build_squad_loop

    loop = build_squad_loop(eval_kb_config(data_dir), split)
    return _with_held_out(loop, KB_OF[split], squad_gold(squad_articles(data_dir, split))[:limit], progress)


def cmrc_outcomes(data_dir: Path, split: str, limit: int | None = None, progress: bool = True):
    from evaluation.runner import eval_kb_config

    from .cmrc import KB_OF, build_cmrc_loop, cmrc_articles

    loop = build_cmrc_loop(eval_kb_config(data_dir), data_dir, split, progress)
    return _with_held_out(loop, KB_OF[split], squad_gold(cmrc_articles(data_dir, split))[:limit], progress)


def multihop_outcomes(data_dir: Path, split: str, limit: int | None = None, progress: bool = True):
    from evaluation.datasets import load_queries, set_folder
    from evaluation.multihop_loop import _query_date, build_loop
    from evaluation.runner import eval_kb_config

    from .splits import query_split

    loop = build_loop(eval_kb_config(data_dir).only("multihop"), "multihop")
    queries = [q for q in load_queries("multihop", set_folder("multihop", data_dir))
               if query_split(q.id) == split][:limit]
    dates = {q.id: _query_date(q) for q in queries}
    return outcomes(loop, "multihop", multihop_gold(queries), progress=progress, now=lambda g: dates[g.id]).arrays()


def doc_outcomes(data_dir: Path, split: str, limit: int | None = None, progress: bool = True):
    """Outcomes of the written documentation set's corpora of a split (dev: its choosing corpora,
    test: its reporting ones), each asked over its own KB (evaluation/doctrain_loop.py)."""
    from evaluation.doctrain_loop import corpus_loops, kb_name

    parts = []
    for name, loop, questions in corpus_loops({"dev": "choose", "test": "report"}[split], data_dir=data_dir,
                                              progress=progress):
        gold = [GoldQuestion(q.id, q.question, q.answers if q.answerable else (), group=name) for q in questions]
        parts.append(outcomes(loop, kb_name(name), gold[:limit], progress=progress).arrays())
    return combine_outcomes(*parts)


OUTCOMES = {"en": (squad_outcomes, multihop_outcomes, doc_outcomes), "zh": (cmrc_outcomes,)}
# what each language's model is fitted on (RGB and WikiQA never: their licences forbid shipped weights)
SOURCES = {"en": (squad_rows, multihop_rows), "zh": (cmrc_rows,)}


def source_files(data_dir: Path, language: str) -> dict[str, Any]:
    """The data a language's model was fitted on, with hashes and licences (for the model card)."""
    if language == "zh":
        return {"cmrc2018": {"files": [str(f) for f in CMRC_FILES],
                             "sha256": [file_sha256(data_dir / f) for f in CMRC_FILES],
                             "licence": "CC BY-SA 4.0", "split": "by article, splits.split_of"}}
    return {"squad2": {"file": str(SQUAD_FILE), "sha256": file_sha256(data_dir / SQUAD_FILE),
                       "licence": "CC BY-SA 4.0", "split": "by article, evaluation/answers/splits.py"},
            "multihop_rag": {"file": str(MULTIHOP_FILE), "sha256": file_sha256(data_dir / MULTIHOP_FILE),
                             "licence": "ODC-BY 1.0", "split": "dev queries by id hash, splits.query_split"}}


# The second reading (en): the 3 most probable units by the cross-encoder, its logit and the
# model's log-odds weighed equally (on SQuAD dev, 0.5/0.5 refused as many unanswerable questions
# at false refusal 0.08 as 0.7/0.3 and more than either alone; top 3 as many as top 5).
RERANK = {"en": {"top": 3.0, "model": 0.5, "cross": 0.5}}


def with_refusal(model: AnswerModel, outcomes: dict[str, dict[str, np.ndarray]]) -> AnswerModel:
    """The model with its refusal: a Platt scaling of the best unit's log-odds and the rules'
    verdict on the whole answer, fitted on the dev questions (the cross-encoder has read the train
    articles, so their scores are optimistic), the threshold chosen on dev, the test figures
    recorded. Both languages read the rules: on the whole answer they refused more unanswerable
    dev questions at the same false refusal (docs/EVALUATION.md, "Settings chosen from the figures")."""
    from .refusal import choose_refusal_threshold, fit_refusal, refusal_figures

    dev = outcomes["dev"]
    refusal = fit_refusal(dev)
    refusal["threshold"] = choose_refusal_threshold(refusal, dev)
    about = dict(model.about, refusal_dev=refusal_figures(refusal, dev),
                 refusal_test=refusal_figures(refusal, outcomes["test"]),
                 refusal_fitted_on="dev questions (Platt scaling)")
    return replace(model, refusal=refusal, about=about)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.train", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "eval",
                        help="folder holding the public sets (default ../shared/eval)")
    parser.add_argument("--language", choices=sorted(SOURCES), action="append",
                        help="fit only this language's model (repeatable; default all)")
    parser.add_argument("--limit", type=int, help="only the first N questions of each split (a quick run)")
    parser.add_argument("--out-dir", type=Path, help="write the model files here (default: beside the scorer, "
                                                     "where the service reads them)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--refusal-only", action="store_true",
                        help="keep each model's unit weights; set its second reading (RERANK) and refit its refusal")
    args = parser.parse_args(argv)
    if not (args.data / SQUAD_FILE).is_file():
        print(f"train: {args.data / SQUAD_FILE} not found; pass --data DIR (the folder with squad2/)", file=sys.stderr)
        return 2
    progress = not args.quiet
    for language in args.language or sorted(SOURCES):
        if args.refusal_only:
            model = read_model(model_path(language))
        else:
            rows = {split: combine(*(read(args.data, split, args.limit, progress) for read in SOURCES[language]))
                    for split in SPLITS}
            model = train(rows["train"], rows["dev"], rows["test"], sources=source_files(args.data, language))
        model = replace(model, rerank=dict(RERANK.get(language, {})))
        path = write_model(model, model_path(language) if args.out_dir is None
                           else args.out_dir / model_path(language).name)
        if args.out_dir is not None:  # the refusal's outcomes are composed with the model just fitted
            os.environ[MODEL_DIR_ENV] = str(args.out_dir)
        read_model.cache_clear()
        outcomes = {split: combine_outcomes(*(read(args.data, split, args.limit, progress)
                                              for read in OUTCOMES[language])) for split in ("dev", "test")}
        model = with_refusal(model, outcomes)
        write_model(model, path)
        print(json.dumps({"model": str(path), "refusal": model.refusal, "dev": model.about["refusal_dev"],
                          "test": model.about["refusal_test"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
