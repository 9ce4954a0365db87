"""CMRC 2018 through the whole loop, for choosing a change to the Chinese path: each question of a
split's articles asked as a request over that split's KB (`cmrc.build_cmrc_loop`) and scored as
`sightline eval squad` scores SQuAD (`evaluation.squad.run_squad`: a gold answer text in the lead
sentence, anywhere in the answer, refused). CMRC's questions are all answerable.

`python -m evaluation.answers.cmrc_loop [--split dev] [--limit 400]` prints one line of figures.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from evaluation.datasets import DEFAULT_DATA, EvalQuery
from evaluation.runner import eval_kb_config
from evaluation.squad import run_squad

from .cmrc import KB_OF, build_cmrc_loop, cmrc_articles
from .splits import SPLITS


def cmrc_questions(data_dir: Path, split: str) -> list[EvalQuery]:
    """Every question of the split's articles, in file order, as `run_squad` reads a question."""
    return [EvalQuery(str(qa["id"]), qa["question"], type="answerable",
                      raw={"answers": [a["text"] for a in qa["answers"]], "is_impossible": False,
                           "article": article["title"]})
            for article in cmrc_articles(data_dir, split) for paragraph in article["paragraphs"]
            for qa in paragraph["qas"]]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.cmrc_loop", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", choices=SPLITS, default="dev")
    parser.add_argument("--limit", type=int, default=400, help="the split's first N questions (default 400)")
    args = parser.parse_args(argv)
    loop = build_cmrc_loop(eval_kb_config(args.data), args.data, args.split, progress=False)
    result = run_squad(loop, KB_OF[args.split], cmrc_questions(args.data, args.split)[:args.limit], progress=False)
    metrics, counts = result["metrics"], result["counts"]
    print(f"cmrc {args.split}: {counts['questions']} questions, lead {metrics['lead_answer']:.4f}, "
          f"anywhere {metrics['answer_anywhere']:.4f}, refused {metrics['false_refusal']:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
