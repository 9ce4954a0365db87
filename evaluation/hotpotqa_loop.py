"""HotpotQA through the whole loop with the generic router config (config/router.eval.yaml).

Comparison questions ("Are X and Y both film directors?") are where per-entity routing should
pay: the `compare-per-entity` rule gives each side its own search. The score is the same as
for plain retrieval (both gold paragraphs among the first 2 / 5 documents of the final
attempt's evidence, in evidence order), so `router` sits beside `hybrid` top-K.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from orchestration.kb.config import KBConfig
from orchestration.paths import config_dir
from orchestration.router.config import load_router_config
from perception import PerceptionAgent
from server.bootstrap import build_loop
from server.context import RequestContext
from server.loop import AskRequest

from .datasets import EvalQuery
from .metrics import mean_metrics
from .stats import latency_summary

STAGES = ("perceive", "route", "retrieve", "compose", "validate", "total")


def run_hotpotqa_loop(kb_config: KBConfig, kb_name: str, queries: Sequence[EvalQuery], progress: bool = True
                      ) -> dict[str, Any]:
    router = load_router_config(config_dir() / "router.eval.yaml", known_kbs=[kb_name])
    # The service default perception (spaCy NER on): names like "Sathish Kalathil" need it to be
    # seen as compared entities, and 100 queries afford it.
    loop = build_loop(kb_config=kb_config, router_config=router, perception=PerceptionAgent())
    loop.warm_up()
    store = loop.retriever.kb(kb_name).store
    assert store is not None  # kb() opened the knowledge base or raised
    rows: list[dict[str, float]] = []
    typed: dict[str, list[dict[str, float]]] = {}
    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    for query in tqdm(queries, desc="hotpotqa router", disable=not progress, file=sys.stderr):
        body = loop.run(AskRequest(query=query.text, kbs=[kb_name],
                                   context=RequestContext.create(trace_level="summary", endpoint="eval")))
        for stage in STAGES:
            timings[stage].append(body["timing"][stage])
        evidence_ids = body["attempts"][-1]["evidence"] if body["attempts"] else []
        ranking: list[str] = []
        for chunk in store.get_ids(evidence_ids):
            if chunk.doc_id not in ranking:
                ranking.append(chunk.doc_id)
        gold = set(query.relevance)
        row = {"r@2": float(gold <= set(ranking[:2])), "r@5": float(gold <= set(ranking[:5]))}
        rows.append(row)
        typed.setdefault(query.type or "all", []).append(row)
    return {"metrics": mean_metrics(rows), "latency": latency_summary(timings),
            "by_type": {t: mean_metrics(r) | {"queries": len(r)} for t, r in sorted(typed.items())}}
