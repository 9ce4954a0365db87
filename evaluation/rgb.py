"""RGB (Chen et al., AAAI 2024) through the whole loop: answer accuracy, negative rejection and
counterfactual passages.

Each query's passages become one document each in a knowledge base per language
(`rgb_zh`, `rgb_en`), tagged with metadata `source` = `rgb<lang>_q<id>_<role>` (role `pos`,
`neg`, `wrong`). A request filters on the sources of its own query, so one build serves every
query and every setting; the corpus JSONL is written under var/eval/rgb/ (never into the repo:
RGB is CC BY-NC-SA, evaluation only). Settings, each one run of `AnswerLoop.run`:

  accuracy            positive + negative passages; correct when every gold answer element is
                      in the answer text (an element that is a list: any one of it), upstream rule.
  negative_rejection  negative passages only; correct when the status is `insufficient`.
  en_fact only:
  conflict_flagged    positive + positive_wrong passages (true and counterfactual versions of the
                      same facts): share of answers the loop did not return as plainly `answered`
                      (validation raised an issue, status partial/insufficient).
  counterfactual_*    positive_wrong passages only (upstream's counterfactual setting): share of
                      answers containing the fake answer, and share flagged.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from orchestration.kb.config import KBConfig
from server.context import RequestContext
from server.loop import AnswerLoop, AskRequest

from .builds import build_eval_kb, eval_loop
from .datasets import EvalQuery, read_jsonl
from .stats import latency_summary

ROLES = {"positive": "pos", "negative": "neg", "positive_wrong": "wrong"}
LANG_FILES = {"zh": "zh_refine_dev.jsonl", "en": "en_fact.jsonl"}
KB_OF = {"zh": "rgb_zh", "en": "rgb_en"}
# RGB's news is from 2021-2023; passages carry no dates, so `now` only has to sit after them.
RGB_NOW = dt.date(2023, 12, 31)
STAGES = ("perceive", "route", "retrieve", "compose", "validate", "total")


def language_of(path: Path, records: Sequence[dict]) -> str:
    """`zh` or `en` for an RGB query file: from its name, else from the script of its queries."""
    if path.name.startswith("zh"):
        return "zh"
    if path.name.startswith("en"):
        return "en"
    sample = "".join(str(r.get("query", "")) for r in records[:20])
    return "zh" if re.search(r"[\u4e00-\u9fff]", sample) else "en"


def source_tag(lang: str, qid: Any, role: str) -> str:
    return f"rgb{lang}_q{qid}_{ROLES[role]}"


def rgb_queries(records: Sequence[dict], lang: str) -> list[EvalQuery]:
    return [EvalQuery(str(r["id"]), r["query"], type=f"rgb_{lang}", raw=r) for r in records]


def write_corpus(records: Sequence[dict], lang: str, path: Path) -> Path:
    """Every passage of every query as one JSONL document; rewritten only when it changed."""
    lines = []
    for r in records:
        for role in ROLES:
            for i, passage in enumerate(r.get(role) or []):
                if isinstance(passage, str) and passage.strip():
                    lines.append(json.dumps({"id": f"{source_tag(lang, r['id'], role)}_{i}", "title": "",
                                             "text": passage,
                                             "metadata": {"source": source_tag(lang, r["id"], role)}},
                                            ensure_ascii=False))
    body = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path


def build_rgb_kb(kb_config: KBConfig, lang: str, records: Sequence[dict], corpus_path: Path,
                 progress: bool) -> dict[str, Any]:
    """Write the passages, ingest them (cached by checksum) into the language's KB."""
    write_corpus(records, lang, corpus_path)
    return build_eval_kb(kb_config, KB_OF[lang], [corpus_path], progress)


def build_rgb_loop(kb_config: KBConfig, lang: str) -> AnswerLoop:
    return eval_loop(kb_config, KB_OF[lang], use_ner=False)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().lower()


def contains_answer(text: str, answer: Any) -> bool:
    """RGB's rule: every element of `answer` is in the text; an element that is a list: any one of it."""
    hay = _fold(text)
    elements = answer if isinstance(answer, list) else [answer]
    if not elements:
        return False
    for element in elements:
        options = element if isinstance(element, list) else [element]
        if not any(_fold(o) and _fold(o) in hay for o in options):
            return False
    return True


def ask(loop: AnswerLoop, kbs: Sequence[str], lang: str, query: EvalQuery, roles: Sequence[str]) -> dict[str, Any]:
    """One run of the loop over the passages of `roles` of this query only, searching `kbs`."""
    sources = [source_tag(lang, query.id, role) for role in roles]
    return loop.run(AskRequest(query=query.text, kbs=list(kbs), filters={"source": sources},
                               context=RequestContext.create(RGB_NOW, trace_level="summary", endpoint="eval")))


def _has_passages(query: EvalQuery, roles: Sequence[str]) -> bool:
    return any(query.raw.get(role) for role in roles)


def run_rgb_lang(loop: AnswerLoop, lang: str, queries: Sequence[EvalQuery], progress: bool = True,
                 kb: str | Sequence[str] | None = None) -> dict[str, Any]:
    """Every setting for one language; metrics, per-setting counts, latency per stage, examples.

    `kb`: the knowledge base(s) searched (default the language's RGB KB; several are searched together).
    """
    kbs = [kb] if isinstance(kb, str) else list(kb or [KB_OF[lang]])
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    counts: dict[str, list[float]] = {}
    statuses: dict[str, dict[str, int]] = {}
    examples: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []  # every question's status per setting, to compare two runs

    def record(setting: str, body: dict[str, Any], query: EvalQuery) -> None:
        for stage in STAGES:
            timings[stage].append(body["timing"][stage])
        statuses.setdefault(setting, {}).setdefault(body["status"], 0)
        statuses[setting][body["status"]] += 1
        rows.append({"id": query.id, "setting": setting, "status": body["status"], "answer": body["answer"][:200]})

    for query in tqdm(queries, desc=f"rgb {lang}", disable=not progress, file=sys.stderr):
        answer = query.raw.get("answer")
        if _has_passages(query, ["positive"]):
            body = ask(loop, kbs, lang, query, ["positive", "negative"])
            record("accuracy", body, query)
            ok = body["status"] != "insufficient" and contains_answer(body["answer"], answer)
            counts.setdefault("accuracy", []).append(float(ok))
            counts.setdefault("false_refusal", []).append(float(body["status"] == "insufficient"))
            if not ok and len(examples) < 3:
                examples.append({"setting": "accuracy", "query": query.text, "gold": answer,
                                 "status": body["status"], "answer": body["answer"][:300]})
        if _has_passages(query, ["negative"]):
            body = ask(loop, kbs, lang, query, ["negative"])
            record("negative_rejection", body, query)
            counts.setdefault("negative_rejection", []).append(float(body["status"] == "insufficient"))
        if lang == "en" and _has_passages(query, ["positive_wrong"]):
            fake = query.raw.get("fakeanswer")
            body = ask(loop, kbs, lang, query, ["positive", "positive_wrong"])
            record("conflict", body, query)
            counts.setdefault("conflict_flagged", []).append(float(body["status"] != "answered"))
            counts.setdefault("conflict_answer_true", []).append(float(contains_answer(body["answer"], answer)))
            counts.setdefault("conflict_answer_fake", []).append(
                float(bool(fake) and contains_answer(body["answer"], fake)))
            body = ask(loop, kbs, lang, query, ["positive_wrong"])
            record("counterfactual", body, query)
            counts.setdefault("counterfactual_flagged", []).append(float(body["status"] != "answered"))
            repeated = bool(fake) and contains_answer(body["answer"], fake)
            counts.setdefault("counterfactual_answer_fake", []).append(float(repeated))
            # the target: the fake answer stated as a plain, unflagged answer
            counts.setdefault("counterfactual_fake_unflagged", []).append(
                float(repeated and body["status"] == "answered"))
    metrics = {k: round(sum(v) / len(v), 4) for k, v in counts.items() if v}
    return {"metrics": metrics, "statuses": statuses, "latency": latency_summary(timings),
            "examples": examples, "rows": rows, "queries": len(queries)}


def load_rgb(folder: Path, queries: Path | None) -> dict[str, tuple[Path, list[dict]]]:
    """language -> (query file, records): both files by default, or the one `--queries` names."""
    if queries is not None:
        records = read_jsonl(queries)
        return {language_of(queries, records): (queries, records)}
    return {lang: (folder / name, read_jsonl(folder / name)) for lang, name in LANG_FILES.items()}
