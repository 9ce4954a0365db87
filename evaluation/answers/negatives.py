"""Hard negatives by rule from answerable questions (issue 36, item 2): `negatives_for`.

Every answerable question (SQuAD 2.0 train, CMRC 2018, the written documentation set) gives zero
or more unanswerable variants, at most one per rule (evaluation/answers/negative_rules.py: swap the
asked entity, change the asked number or version, negate, ask for another kind of value, ask about
a neighbouring option; Chinese: the first two). Each is checked against the question's own
evidence (`unanswered`) and labelled unanswerable there. Names for a swap come from the same
corpus's questions and gold answers (`build_pool`), never invented.

The reader's training pairs (evaluation/answers/reader/pairs.py) ask each negative against the
unit that answered its source question, labelled 0. The answer model's collector
(evaluation/answers/collect.py) does not read them.

`python -m evaluation.answers.negatives [--data DIR] [--squad N] [--cmrc N] [--doctrain DIR]
[--show K]` counts the negatives per rule on a sample of SQuAD 2.0 train (whole articles in
title-hash order up to N answerable questions), of the CMRC 2018 fit articles and on the written
documentation set; docs/ANSWER_MODEL.md records the figures.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from perception.question import question_of

from .name_pool import NamePool, answer_name, chinese_names, english_names
from .negative_rules import RULE_OF, RULES, ZH_RULES, Answered, Negative, unanswered


def build_pool(questions: Iterable[Answered]) -> NamePool:
    """The names every question writes, and every gold answer that is a name, by corpus and group."""
    pool = NamePool()
    for q in questions:
        if q.language == "zh":
            named = chinese_names(" ".join((q.text, *q.answers)))
        else:
            asked = question_of(q.text)
            named = english_names(q.text, asked, q.product) + \
                [n for n in (answer_name(a, asked.slot) for a in q.answers) if n is not None]
        pool.add(q.corpus, q.group, named)
    return pool


def variants(question: Answered, pool: NamePool) -> list[Negative]:
    """The question's unanswerable variants, at most one per rule, each unanswered by its evidence."""
    asked = question_of(question.text)
    rules = ZH_RULES if question.language == "zh" else RULES
    found = (RULE_OF[rule](question, asked, pool) for rule in rules)
    return [n for n in found if n is not None and unanswered(n, question.evidence)]


def negatives_for(questions: Sequence[Answered], pool: NamePool | None = None) -> list[Negative]:
    """Every variant of every answerable question (questions without answers are passed over), in
    question order; names are drawn from `pool`, by default the questions' own (`build_pool`)."""
    answerable = [q for q in questions if q.answers]
    pool = pool if pool is not None else build_pool(answerable)
    return [n for q in answerable for n in variants(q, pool)]


def count_by_rule(negatives: Iterable[Negative]) -> dict[str, int]:
    """How many negatives each rule made, in RULES order (0 for a rule that made none)."""
    counts = Counter(n.rule for n in negatives)
    return {rule: counts[rule] for rule in RULES}


# --- sources ----------------------------------------------------------------------------------------

def squad_answered(articles: Iterable[dict[str, Any]], corpus: str, language: str = "en") -> list[Answered]:
    """The answerable questions of SQuAD-layout articles (SQuAD 2.0, CMRC 2018), each with its
    paragraph as evidence and its article as group; gold texts distinct, in file order."""
    out = []
    for article in articles:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                answers = tuple(dict.fromkeys(a["text"].strip() for a in qa.get("answers") or [] if a["text"].strip()))
                if answers and not qa.get("is_impossible"):
                    out.append(Answered(str(qa["id"]), qa["question"].strip(), answers, paragraph["context"],
                                        language, corpus, article["title"]))
    return out


def doctrain_answered(root: Path) -> tuple[list[Answered], list[str]]:
    """The answerable questions of the written documentation set under `root`, each with its
    whole source page as evidence, its page as group and its corpus's name as product (when it
    is one word); and the corpora left out because they do not pass the checks, with why."""
    from ..doctrain import corpus_folders, load_corpus, page_of, page_text

    out, skipped = [], []
    for folder in corpus_folders(root):
        try:
            questions = load_corpus(folder)
        except ValueError as exc:
            skipped.append(f"{folder.name}: {exc}")
            continue
        product = folder.name if re.fullmatch(r"[a-z][a-z0-9]*", folder.name) else ""
        out += [Answered(q.id, q.question, q.answers, page_text(page_of(q, root)), "en", q.corpus, q.source, product)
                for q in questions if q.answerable]
    return out, skipped


def sample_articles(articles: Sequence[dict[str, Any]], corpus: str, limit: int, language: str = "en"
                    ) -> list[Answered]:
    """Up to `limit` answerable questions of whole articles taken in title-hash order (a sample
    that keeps each article's questions together, the same on every machine)."""
    out: list[Answered] = []
    for article in sorted(articles, key=lambda a: hashlib.sha1(a["title"].encode("utf-8")).hexdigest()):
        if len(out) >= limit:
            break
        out += squad_answered([article], corpus, language)
    return out[:limit]


# --- the measurement --------------------------------------------------------------------------------

def _row(name: str, questions: Sequence[Answered], show: int) -> str:
    """One line of the table: the set, its questions, the negatives per rule and in all."""
    started = time.perf_counter()
    negatives = negatives_for(questions)
    counts = count_by_rule(negatives)
    sources = len({n.source_id for n in negatives})
    asked = {q.id: q.text for q in questions}
    for rule in RULES:
        for n in [n for n in negatives if n.rule == rule][:show]:
            print(f"  {rule}: {asked[n.source_id]!r} -> {n.text!r}", file=sys.stderr)
    return (f"| {name} | {len(questions):,} | " + " | ".join(f"{counts[r]:,}" for r in RULES) +
            f" | {len(negatives):,} | {sources:,} | {time.perf_counter() - started:.1f} s |")


def main(argv: Sequence[str] | None = None) -> int:
    """Count the negatives per rule on the sets asked for and print them as a Markdown table."""
    from ..datasets import DEFAULT_DATA
    from ..doctrain import DOCTRAIN
    from .splits import SQUAD_TRAIN_FILE, read_squad

    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.negatives", description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the public evaluation data (../shared/eval)")
    parser.add_argument("--squad", type=int, default=2000, help="SQuAD 2.0 train answerable questions (0: none)")
    parser.add_argument("--cmrc", type=int, default=1000, help="CMRC 2018 fit-split answerable questions (0: none)")
    parser.add_argument("--doctrain", type=Path, default=DOCTRAIN, help="the written documentation set's folder")
    parser.add_argument("--show", type=int, default=0, help="print this many examples per rule to stderr")
    args = parser.parse_args(argv)
    print("| set | answerable questions | " + " | ".join(RULES) + " | negatives | questions with one | time |")
    print("|---|---:|" + "---:|" * (len(RULES) + 3))
    if args.squad:
        questions = sample_articles(read_squad(args.data, SQUAD_TRAIN_FILE), "squad_train", args.squad)
        print(_row("SQuAD 2.0 train (sample)", questions, args.show), flush=True)
    if args.cmrc:
        from .cmrc import cmrc_articles

        questions = sample_articles(cmrc_articles(args.data, "train"), "cmrc", args.cmrc, "zh")
        print(_row("CMRC 2018 fit articles (sample)", questions, args.show), flush=True)
    documents, skipped = doctrain_answered(args.doctrain)
    for line in skipped:
        print(f"left out (does not pass its checks): {line}", file=sys.stderr)
    if documents:
        corpora = len({q.corpus for q in documents})
        print(_row(f"written documentation ({corpora} corpora)", documents, args.show), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
