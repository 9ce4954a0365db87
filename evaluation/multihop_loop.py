"""MultiHop-RAG through the whole agents loop: the router versus plain top-K, refusals, citations.

Runs every query through `AnswerLoop` (the code path of POST /rag) with the MultiHop-RAG
router config, and scores:
  * retrieval of the final attempt's evidence (Hits@4/@10, MAP@10, MRR@10, all-evidence@10)
    with the upstream substring rule, to set beside plain hybrid top-K on the same KB;
  * null_refusal: null queries answered `insufficient`; false_refusal: answerable ones that were;
  * source_coverage: comparison/temporal answers citing every outlet the evidence comes from;
  * citation_precision: cited chunks that contain an evidence fact of the query;
  * answer_contains_gold: inference answers containing the gold answer string;
  * latency per stage.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from orchestration.kb.config import KBConfig
from orchestration.paths import config_dir
from orchestration.router.config import load_router_config
from perception import PerceptionAgent
from server import bootstrap
from server.context import RequestContext
from server.loop import AnswerLoop, AskRequest

from .datasets import EvalQuery
from .metrics import mean_metrics, multihop_query_metrics
from .stats import latency_summary

STAGES = ("perceive", "route", "retrieve", "compose", "validate", "total")


def _squash(text: str) -> str:
    return text.replace(" ", "").replace("\n", "")


def _query_date(query: EvalQuery) -> dt.date:
    """`now` for a query: the day after its newest evidence, or the corpus end for null queries.

    MultiHop-RAG is a 2023 news corpus; answering "as of today" would make every article
    older than the KB's max age. Using the corpus period keeps freshness checks meaningful.
    """
    dates = [e.get("published_at", "")[:10] for e in query.raw.get("evidence", []) if e.get("published_at")]
    newest = max(dates) if dates else "2023-12-31"
    return dt.date.fromisoformat(newest) + dt.timedelta(days=1)


def build_loop(kb_config: KBConfig, kb_name: str) -> AnswerLoop:
    """An AnswerLoop over one eval knowledge base with the MultiHop-RAG router config."""
    router = load_router_config(config_dir() / "router.multihop.yaml", known_kbs=[kb_name])
    loop = bootstrap.build_loop(kb_config=kb_config, router_config=router, perception=PerceptionAgent())
    loop.warm_up()
    return loop


def run_loop_eval(loop: AnswerLoop, kb_name: str, queries: Sequence[EvalQuery], progress: bool = True
                  ) -> dict[str, Any]:
    """Score every query through the loop; returns metrics, per-type metrics and latency."""
    store = loop.retriever.kb(kb_name).store
    assert store is not None  # kb() opened the knowledge base or raised
    rows: list[dict[str, float]] = []
    typed: dict[str, list[dict[str, float]]] = {}
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    null_total = null_refused = answerable = false_refused = 0
    cited_total = cited_hits = 0
    coverage: list[float] = []
    gold_hits: list[float] = []
    statuses: dict[str, dict[str, int]] = {}
    for query in tqdm(queries, desc="multihop router", disable=not progress, file=sys.stderr):
        body = loop.run(AskRequest(query=query.text, context=RequestContext.create(
            _query_date(query), trace_level="summary", endpoint="eval")))
        for stage in STAGES:
            timings[stage].append(body["timing"][stage])
        refused = body["status"] == "insufficient"
        per_type = statuses.setdefault(query.type, {})
        per_type[body["status"]] = per_type.get(body["status"], 0) + 1
        if query.type == "null_query":
            null_total += 1
            null_refused += refused
            continue
        answerable += 1
        false_refused += refused
        evidence_ids = body["attempts"][-1]["evidence"] if body["attempts"] else []
        evidence = store.get_ids(evidence_ids)
        row = multihop_query_metrics([c.text for c in evidence], query.facts)
        rows.append(row)
        typed.setdefault(query.type, []).append(row)
        facts = [_squash(f) for f in query.facts]
        cited = store.get_ids([c["chunk_id"] for c in body["citations"]])
        for chunk in cited:
            cited_total += 1
            cited_hits += any(f in _squash(chunk.text) for f in facts)
        if query.type in ("comparison_query", "temporal_query"):
            wanted = {e["source"] for e in query.raw.get("evidence", [])}
            got = {c.metadata.get("source") for c in cited}
            coverage.append(float(wanted <= got))
        if query.type == "inference_query" and isinstance(query.raw.get("answer"), str):
            gold_hits.append(float(query.raw["answer"].lower() in body["answer"].lower()))
    metrics: dict[str, float | None] = {
        **mean_metrics(rows),
        "null_refusal": round(null_refused / null_total, 4) if null_total else None,
        "false_refusal": round(false_refused / answerable, 4) if answerable else None,
        "citation_precision": round(cited_hits / cited_total, 4) if cited_total else None,
        "source_coverage": round(sum(coverage) / len(coverage), 4) if coverage else None,
        "answer_contains_gold": round(sum(gold_hits) / len(gold_hits), 4) if gold_hits else None,
    }
    latency = latency_summary(timings)
    by_type = {t: mean_metrics(r) | {"queries": len(r)} for t, r in sorted(typed.items())}
    return {"metrics": metrics, "by_type": by_type, "latency": latency, "statuses": statuses}
