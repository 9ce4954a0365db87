"""The reader's training and choosing pairs (issue 36, item 3): (question, unit read in its context, label).

Every unit is cut and read as serving cuts and reads it: a page or paragraph goes through the
ingest's chunker (`chunk_text`, its units and heading paths), the composer's candidates
(`chunk_candidates`, code blocks kept) and the cross-encoder's `reading_of` (the unit, its title
and headings, the text before it). Label 1: the unit holds a gold answer (SQuAD: at the gold
offset; the written documentation set: the unit that states it); 0: every other unit read, and
every unit read for an unanswerable question. A question's units are its paragraph's (SQuAD) or
its page's (documentation), the ones sharing most terms with it first, as retrieval would bring
them, plus a few at random.

Sources and what each gives (seeded samples; the same pairs on every machine):

- `fit`: SQuAD 2.0 train (441 articles, none of the dev file's): `--squad` questions, answerable
  and unanswerable in the file's share; for an unanswerable one the unit with its plausible answer
  is read first (the tempting one). Hard negatives by rule (evaluation/answers/negatives.py) of
  those answerable questions: the source's answering unit labelled 0 against the variant. The
  written documentation set's fit corpora and their hard negatives, repeated `--doc-weight` times.
  SelQA (dev + test, text without context) `--selqa` pairs.
- `choose_squad`: the dev file's choosing articles (evaluation/answers/splits.py "dev").
- `choose_docs`, `report_docs`: the written set's choose and report corpora.
- `report_squad`: the dev file's reporting articles ("test").

Each line: q (question), s (the reading), y (label), g (question id), a (1: the question is
answerable), src (where it came from). Usage:
    python -m evaluation.answers.reader.pairs --out .ce [--squad 9000] [--data ../shared/eval]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from orchestration.compose.scorer.cross import reading_of
from orchestration.compose.sentences import Candidate, chunk_candidates
from orchestration.kb.chunking import chunk_text
from orchestration.kb.documents import Document, iter_documents
from orchestration.retrieval.scored import ScoredChunk
from orchestration.textcache import term_set

from ...docsets import contains_gold, normalise
from ..negatives import Answered, negatives_for, squad_answered
from ..splits import SQUAD_TRAIN_FILE, read_squad, split_of

HARD, RANDOM = 6, 2  # units read per question: the ones sharing most terms with it, then at random


def text_candidates(title: str, text: str, doc_id: str) -> list[Candidate]:
    """A document's quotable units as the composer would see them, every chunk of it."""
    out: list[Candidate] = []
    for piece in chunk_text(text):
        chunk = ScoredChunk(chunk_id=f"{doc_id}#{piece.position}", kb="reader", text=piece.text, title=title,
                            metadata={"section": piece.section, "title": title}, units=piece.units)
        out.extend(chunk_candidates(chunk, 0, keep_code=True))
    return out


def page_candidates(page: Path) -> list[Candidate]:
    """A documentation page's units, read by the product's own document reader."""
    out: list[Candidate] = []
    for doc in iter_documents([page]):
        if isinstance(doc, Document):
            out.extend(text_candidates(doc.title, doc.text, doc.id))
    return out


def by_overlap(question: str, candidates: Sequence[Candidate], among: Sequence[int], rng: random.Random,
               hard: int = HARD, spare: int = RANDOM) -> list[int]:
    """Of the candidates at the indices `among` (in page order), the `hard` sharing most terms with
    the question (ties in page order), then `spare` more at random: their indices."""
    terms = term_set(question)
    ranked = sorted(among, key=lambda i: (-len(terms & candidates[i].tokens), i))
    rest = ranked[hard:]
    return ranked[:hard] + rng.sample(rest, min(spare, len(rest)))


def pair(question: str, candidate: Candidate, label: int, qid: str, answerable: bool, src: str) -> dict[str, Any]:
    return {"q": question, "s": reading_of(candidate), "y": label, "g": qid, "a": int(answerable), "src": src}


# --- SQuAD ------------------------------------------------------------------------------------------

def _answer_units(candidates: Sequence[Candidate], context: str, answers: Sequence[dict[str, Any]]) -> set[int]:
    """Indices of the units holding a gold answer at its offset (the unit's text found in the paragraph)."""
    found: set[int] = set()
    for i, c in enumerate(candidates):
        start = context.find(c.text)
        for answer in answers:
            text, at = answer["text"].strip(), int(answer["answer_start"])
            if not text or normalise(text) not in normalise(c.text):
                continue
            if start < 0 or start <= at < start + len(c.text):
                found.add(i)
    return found


def squad_pairs(articles: Iterable[dict[str, Any]], src: str, rng: random.Random, limit: int | None = None,
                every_unit: bool = False) -> tuple[list[dict[str, Any]], dict[str, Candidate]]:
    """Pairs of SQuAD-layout articles (each question against its paragraph's units, and the units of
    the article's other paragraphs that share most terms with it); and each answerable question's
    answering unit by question id (for its hard negatives). `limit`: questions sampled at random;
    `every_unit`: every unit of the paragraph (choosing sets), else HARD + RANDOM of them."""
    items = [(a, p, qa) for a in articles for p in a["paragraphs"] for qa in p["qas"]]
    if limit is not None and limit < len(items):
        items = rng.sample(items, limit)
    cache: dict[int, list[Candidate]] = {}
    rows: list[dict[str, Any]] = []
    answering: dict[str, Candidate] = {}
    for article, paragraph, qa in items:
        key = id(paragraph)
        if key not in cache:
            cache[key] = text_candidates(article["title"].replace("_", " "), paragraph["context"], f"p{key}")
        candidates = cache[key]
        if not candidates:
            continue
        question, qid = qa["question"].strip(), str(qa["id"])
        answerable = not qa.get("is_impossible") and bool(qa.get("answers"))
        gold = _answer_units(candidates, paragraph["context"], qa.get("answers") or []) if answerable else set()
        if answerable and not gold:
            continue  # the answer crosses units: no unit states it alone
        tempting = _answer_units(candidates, paragraph["context"], qa.get("plausible_answers") or []) \
            if not answerable else set()
        if every_unit:
            chosen = list(range(len(candidates)))
        else:
            first = sorted(gold | tempting)
            others = [i for i in range(len(candidates)) if i not in gold and i not in tempting]
            chosen = first + by_overlap(question, candidates, others, rng, hard=2, spare=1)
        rows += [pair(question, candidates[i], int(i in gold), qid, answerable, src) for i in chosen]
        if gold:
            answering[qid] = candidates[min(gold)]
    return rows, answering


def negative_pairs(questions: Sequence[Answered], answering: dict[str, Candidate], src: str,
                   limit: int | None = None) -> list[dict[str, Any]]:
    """Each hard negative (by rule) against the unit that answered its source question: label 0."""
    negatives = [n for n in negatives_for(questions) if n.source_id in answering]
    if limit is not None:
        negatives = negatives[:limit]
    return [pair(n.text, answering[n.source_id], 0, n.id, False, src) for n in negatives]


# --- the written documentation set ------------------------------------------------------------------

def doc_pairs(split: str, rng: random.Random, every_unit: bool = False
              ) -> tuple[list[dict[str, Any]], list[Answered], dict[str, Candidate]]:
    """Pairs of the written set's corpora of one split (each question against its page's units),
    its answerable questions with their page as evidence (for hard negatives), and the unit
    answering each of them."""
    from ...doctrain import DOCTRAIN, corpus_folders, load_corpus, page_of, page_text

    rows: list[dict[str, Any]] = []
    answered: list[Answered] = []
    answering: dict[str, Candidate] = {}
    pages: dict[Path, list[Candidate]] = {}
    for folder in corpus_folders(DOCTRAIN):
        try:
            questions = [q for q in load_corpus(folder) if q.split == split]
        except ValueError as exc:
            print(f"left out {folder.name}: {exc}", file=sys.stderr)
            continue
        for q in questions:
            page = page_of(q, DOCTRAIN)
            if page not in pages:
                pages[page] = page_candidates(page)
            candidates = pages[page]
            if not candidates:
                continue
            gold: set[int] = set()
            if q.answerable:
                unit = normalise(q.unit)
                gold = {i for i, c in enumerate(candidates) if contains_gold(c.text, q.answers)
                        and (normalise(c.text) in unit or unit in normalise(c.text))}
                if not gold:
                    gold = {i for i, c in enumerate(candidates) if contains_gold(c.text, q.answers)}
                if not gold:
                    continue
            near = normalise(q.near)
            tempting = {i for i, c in enumerate(candidates)
                        if near and (normalise(c.text) in near or near in normalise(c.text))}
            if every_unit:
                chosen = list(range(len(candidates)))
            else:
                others = [i for i in range(len(candidates)) if i not in gold and i not in tempting]
                picked = set(by_overlap(q.question, candidates, others, rng))
                chosen = sorted(gold | tempting) + [i for i in others if i in picked]
            rows += [pair(q.question, candidates[i], int(i in gold), q.id, q.answerable, f"doc:{q.corpus}")
                     for i in chosen]
            if q.answerable and gold:
                answering[q.id] = candidates[min(gold)]
                product = folder.name if folder.name.isalnum() else ""
                answered.append(Answered(q.id, q.question, q.answers, page_text(page), "en", q.corpus, q.source,
                                         product))
    return rows, answered, answering


def selqa_pairs(data: Path, limit: int, rng: random.Random) -> list[dict[str, Any]]:
    """SelQA (Apache-2.0) dev + test pairs, the sentence alone (SelQA gives no headings)."""
    rows = []
    for split in ("dev", "test"):
        with gzip.open(data / "selqa" / f"selqa-ass-{split}.json.gz", "rt", encoding="utf-8") as handle:
            for item in json.load(handle):
                gold = set(item["answers"])
                for index, sentence in enumerate(item["candidates"]):
                    if sentence.strip():
                        rows.append({"q": item["question"], "s": sentence[:300], "y": int(index in gold),
                                     "g": f"selqa-{split}-{item.get('article', '')}-{item['question'][:40]}",
                                     "a": int(bool(gold)), "src": "selqa"})
    return rng.sample(rows, min(limit, len(rows)))


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    positives = sum(r["y"] for r in rows)
    print(f"{path.name}: {len(rows):,} pairs, {positives:,} positive, {len({r['g'] for r in rows}):,} questions",
          file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from ...datasets import DEFAULT_DATA

    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.reader.pairs",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(".ce"))
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--squad", type=int, default=9000, help="SQuAD 2.0 train questions sampled")
    parser.add_argument("--negatives", type=int, default=3000, help="SQuAD hard negatives at most")
    parser.add_argument("--selqa", type=int, default=6000, help="SelQA pairs sampled")
    parser.add_argument("--doc-weight", type=int, default=3, help="times the documentation pairs are repeated")
    parser.add_argument("--no-fit", action="store_true", help="only the choosing and report pairs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(36)
    if not args.no_fit:
        write_jsonl(args.out / "reader_fit.jsonl.gz", fit_pairs(args, rng))
    dev_file = read_squad(args.data)
    for split, name in (("dev", "choose"), ("test", "report")):
        rows, _ = squad_pairs([a for a in dev_file if split_of(a["title"]) == split], f"squad_{split}", rng,
                              every_unit=True)
        write_jsonl(args.out / f"reader_{name}_squad.jsonl.gz", rows)
        rows, _, _ = doc_pairs(name, rng, every_unit=False)
        write_jsonl(args.out / f"reader_{name}_docs.jsonl.gz", rows)
    return 0


def fit_pairs(args: argparse.Namespace, rng: random.Random) -> list[dict[str, Any]]:
    """The training pairs, shuffled (module docstring, `fit`)."""
    train = read_squad(args.data, SQUAD_TRAIN_FILE)
    fit, answering = squad_pairs(train, "squad_train", rng, args.squad)
    asked = {r["g"] for r in fit}
    answered = [q for q in squad_answered(train, "squad_train") if q.id in asked and q.id in answering]
    fit += negative_pairs(answered, answering, "squad_negative", args.negatives)
    docs, doc_answered, doc_answering = doc_pairs("fit", rng)
    docs += negative_pairs(doc_answered, doc_answering, "doc_negative")
    fit += docs * args.doc_weight
    fit += selqa_pairs(args.data, args.selqa, rng)
    rng.shuffle(fit)
    return fit


if __name__ == "__main__":
    sys.exit(main())
