"""CMRC 2018 through the whole loop, for choosing a change to the Chinese path: each question of a
split's articles asked as a request over that split's KB (`cmrc.build_cmrc_loop`), scored as
`sightline eval squad` scores SQuAD: a gold answer text in the lead sentence, anywhere in the
answer, and the share refused. CMRC's questions are all answerable.

`python -m evaluation.answers.cmrc_loop [--split dev] [--limit 400]` prints one line of figures.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from evaluation.runner import eval_kb_config
from evaluation.squad import lead_sentence
from server.loop import AskRequest

from .cmrc import KB_OF, build_cmrc_loop, cmrc_articles
from .collect import NOW
from .splits import SPLITS


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.cmrc_loop", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "eval")
    parser.add_argument("--split", choices=SPLITS, default="dev")
    parser.add_argument("--limit", type=int, default=400, help="the split's first N questions (default 400)")
    args = parser.parse_args(argv)
    loop = build_cmrc_loop(eval_kb_config(args.data), args.data, args.split, progress=False)
    questions = [(qa["question"], [a["text"] for a in qa["answers"]])
                 for article in cmrc_articles(args.data, args.split)
                 for paragraph in article["paragraphs"] for qa in paragraph["qas"]][:args.limit]
    lead = anywhere = refused = 0
    for question, golds in questions:
        body = loop.run(AskRequest(query=question, kbs=[KB_OF[args.split]], now=NOW))
        if body["status"] == "insufficient":
            refused += 1
            continue
        lead += any(g in lead_sentence(body["answer"]) for g in golds)
        anywhere += any(g in body["answer"] for g in golds)
    n = max(len(questions), 1)
    print(f"cmrc {args.split}: {len(questions)} questions, lead {lead / n:.4f}, anywhere {anywhere / n:.4f}, "
          f"refused {refused / n:.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
