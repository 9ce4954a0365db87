"""Training rows for the answer model: the real loop's candidates for public QA questions.

Each question goes through Perception, the router and retrieval exactly as a request would
(`AnswerLoop`'s own agents), then through the extractive composer's candidate reading and
lexical ranking; every candidate unit becomes a row of `features.FEATURES`, labelled 1 when it
holds a gold answer and comes from the gold passage, else 0. An unanswerable question's rows are
all 0, and so are an answerable question's when retrieval missed its passage: the model learns
what evidence without the answer looks like, which is what the refusal reads.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from orchestration.compose.extractive import ExtractiveComposer
from orchestration.compose.ranker import LearnedRanker, LexicalRanker
from orchestration.compose.scorer.features import FEATURES, feature_matrix
from orchestration.compose.sentences import Candidate
from orchestration.trace import Trace
from server.loop import AnswerLoop

NOW = dt.date(2024, 1, 1)


@dataclass(frozen=True)
class GoldQuestion:
    """A question with what answers it: gold texts and the passage (document id) holding them."""

    id: str
    text: str
    answers: tuple[str, ...]
    passage: str = ""   # the gold document id; "" when any passage holding an answer counts
    group: str = ""     # the article or topic, for splits and reports
    documents: tuple[str, ...] = ()  # every document holding an answer (several for a multi-hop question)

    @property
    def sources(self) -> frozenset[str]:
        """The documents a held-out copy of the question is asked without."""
        return frozenset((self.passage, *self.documents)) - {""}

    @property
    def answerable(self) -> bool:
        return bool(self.answers)


@dataclass
class Rows:
    """Feature rows of many questions, with labels and the question each row belongs to."""

    x: list[list[float]] = field(default_factory=list)
    y: list[int] = field(default_factory=list)
    question: list[str] = field(default_factory=list)
    answerable: dict[str, bool] = field(default_factory=dict)
    gold_in_evidence: dict[str, bool] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)

    def save(self, path: Path) -> Path:
        """The rows as a compressed .npz (read back by `load_rows`)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        ids = sorted(self.answerable)
        np.savez_compressed(path, x=np.array(self.x, dtype=np.float32).reshape(-1, len(FEATURES)),
                            y=np.array(self.y, dtype=np.int8), question=np.array(self.question),
                            ids=np.array(ids), answerable=np.array([self.answerable[i] for i in ids]),
                            gold_in_evidence=np.array([self.gold_in_evidence.get(i, False) for i in ids]),
                            texts=np.array(self.texts), features=np.array(FEATURES))
        return path


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def holds_answer(candidate: Candidate, gold: GoldQuestion) -> bool:
    """The unit writes a gold answer and comes from the gold passage (when one is named)."""
    if gold.passage and candidate.chunk.doc_id != gold.passage:
        return False
    text = _fold(candidate.text)
    return any(_fold(a) in text for a in gold.answers if a.strip())


def first_evidence(loop: AnswerLoop, kb: str, text: str, now: dt.date, dropped: AbstractSet[str] = frozenset()):
    """Perception's reading of `text` and the evidence of the loop's first attempt over `kb`, as a
    request gets them; without the documents in `dropped` (as if the KB did not hold them)."""
    perception = loop.perception.run(text, now=now)
    plan = loop.router.run(perception, hints=[], attempt=0, kbs=[kb], overrides={})
    return perception, [c for c in loop.executor.run(plan, Trace(), now) if c.doc_id not in dropped]


def question_units(loop: AnswerLoop, composer: ExtractiveComposer, kb: str, text: str, now: dt.date = NOW,
                   drop_doc: str | frozenset[str] = "") -> tuple[list[Candidate], list[list[float]]]:
    """The candidates the composer ranks for `text` (first attempt), as it ranks them, with their
    features; `drop_doc`: the evidence as if the KB did not hold that document."""
    perception, evidence = first_evidence(loop, kb, text, now, {drop_doc} if isinstance(drop_doc, str) else drop_doc)
    ranking, focus = composer.question_ranking(perception, evidence)
    return ranking.units, feature_matrix(ranking.units, focus, perception.language)


def collect(loop: AnswerLoop, kb: str, questions: Iterable[GoldQuestion], progress: bool = True,
            label: Callable[[Candidate, GoldQuestion], bool] | None = None,
            now: Callable[[GoldQuestion], dt.date] | None = None,
            held_out: Callable[[GoldQuestion], bool] | None = None) -> Rows:
    """Rows for every question (candidates with a lexical score of 0 are left out: never chosen).

    Args:
        label: whether a unit answers (default `holds_answer`).
        now: the reference date of a question (default NOW).
        held_out: questions asked as if the knowledge base did not hold their passage: its units
            are left out and the question counts as unanswerable (id suffixed "#held-out"). This
            is the unanswerable question users ask most: the documents never say, and the
            evidence is whatever else comes closest."""
    composer = ExtractiveComposer(ranker=LexicalRanker.name)  # rows are features of the lexically ranked units
    rows = Rows()
    questions = list(questions)
    for gold in tqdm(questions, disable=not progress, desc=kb, unit="q"):
        drop: frozenset[str] = frozenset()
        if held_out is not None and gold.answerable and gold.sources and held_out(gold):
            drop = gold.sources
            gold = GoldQuestion(f"{gold.id}#held-out", gold.text, (), gold.passage, gold.group, gold.documents)
        ranked, matrix = question_units(loop, composer, kb, gold.text, now(gold) if now else NOW, drop)
        rows.answerable[gold.id] = gold.answerable
        found = False
        for candidate, row in zip(ranked, matrix, strict=True):
            if candidate.score <= 0:
                continue
            answers = int(gold.answerable and (label or holds_answer)(candidate, gold))
            found = found or bool(answers)
            rows.x.append(row)
            rows.y.append(answers)
            rows.question.append(gold.id)
            rows.texts.append(candidate.text[:300])
        rows.gold_in_evidence[gold.id] = found
    return rows


def held_out_half(gold: GoldQuestion) -> bool:
    """Every other answerable question, by a hash of its id, is asked without its passage."""
    return int(hashlib.sha1(gold.id.encode("utf-8")).hexdigest()[:8], 16) % 2 == 1


def squad_gold(articles: Sequence[dict]) -> list[GoldQuestion]:
    """SQuAD-layout articles' questions; unanswerable ones have no answers."""
    out = []
    for article in articles:
        for i, paragraph in enumerate(article["paragraphs"]):
            for qa in paragraph["qas"]:
                answers = () if qa.get("is_impossible") else tuple(
                    dict.fromkeys(a["text"].strip() for a in qa.get("answers") or [] if a["text"].strip()))
                out.append(GoldQuestion(str(qa["id"]), qa["question"], answers, f"{article['title']}#{i}",
                                        article["title"]))
    return out


def multihop_gold(queries: Sequence) -> list[GoldQuestion]:
    """MultiHop-RAG queries (evaluation.datasets.EvalQuery): an evidence fact is the answer text a
    unit must hold (or be part of); a null query has none."""
    return [GoldQuestion(q.id, q.text, tuple(q.facts), "", q.type,
                         tuple(dict.fromkeys(e["doc_id"] for e in q.raw.get("evidence", []) if e.get("doc_id"))))
            for q in queries]


def holds_fact(candidate: Candidate, gold: GoldQuestion) -> bool:
    """A MultiHop unit answers when it is part of an evidence fact or holds one (spaces ignored)."""
    unit = re.sub(r"\s+", "", candidate.text).lower()
    if len(unit) < 20:
        return False
    facts = [re.sub(r"\s+", "", f).lower() for f in gold.answers]
    return any(unit in f or (len(f) >= 20 and f in unit) for f in facts)


@dataclass
class Outcomes:
    """Per question: what the refusal reads (the best unit's probability, the rules' verdict), and
    whether the question is answerable from its evidence."""

    ids: list[str] = field(default_factory=list)
    best: list[float] = field(default_factory=list)
    rules_unanswered: list[bool] = field(default_factory=list)
    structural: list[bool] = field(default_factory=list)
    answerable: list[bool] = field(default_factory=list)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"ids": np.array(self.ids), "best": np.array(self.best), "answerable": np.array(self.answerable),
                "rules_unanswered": np.array(self.rules_unanswered), "structural": np.array(self.structural)}


def outcomes(loop: AnswerLoop, kb: str, questions: Iterable[GoldQuestion], progress: bool = True,
             now: Callable[[GoldQuestion], dt.date] | None = None,
             held_out: Callable[[GoldQuestion], bool] | None = None) -> Outcomes:
    """Compose each question's answer with the answer model (first attempt) and read what the
    answerability check would: the best unit's probability, whether the rules say it is not
    answered, and whether a structural condition (a name or identifier never named) refuses it."""
    from dataclasses import replace

    from validation.checks import answerability
    from validation.context import CheckContext

    composer = ExtractiveComposer(ranker=LearnedRanker.name)  # each language's model is read on first use
    passes = {"bias": 50.0, "unit_logit": 0.0, "threshold": 0.5}  # a refusal that always answers
    out = Outcomes()
    for gold in tqdm(list(questions), disable=not progress, desc=kb, unit="q"):
        drop: frozenset[str] = frozenset()
        if held_out is not None and gold.answerable and gold.sources and held_out(gold):
            drop = gold.sources
            gold = GoldQuestion(f"{gold.id}#held-out", gold.text, (), gold.passage, gold.group, gold.documents)
        when = now(gold) if now else NOW
        perception, evidence = first_evidence(loop, kb, gold.text, when, drop)
        answer = composer.run(perception, evidence)
        scored = [c.probability for c in answer.claims if c.kind == "fact" and c.probability is not None]
        context = CheckContext(when)
        structural = bool(answer.scoring) and bool(answerability.check(
            perception, replace(answer, scoring=replace(answer.scoring, refusal=passes)), evidence, context))
        # the rules' verdict as the refusal reads it: on the whole answer
        ruled = bool(answerability.check(perception, replace(answer, scoring=None), evidence, context))
        out.ids.append(gold.id)
        out.best.append(max(scored) if scored else 0.0)
        out.structural.append(structural)
        out.rules_unanswered.append(ruled and not structural)
        out.answerable.append(gold.answerable)
    return out
