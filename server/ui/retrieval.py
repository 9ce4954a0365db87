"""What retrieval did in one attempt, for a person: per task, what each search kept and what each
filter rejected and why; per candidate, its rank and score in every list and how its rank moved.

Only what the trace holds is shown. A trace never names or counts a chunk the caller may not
read (a search's `input_count` is what the caller may see, and the ACL is applied before any
rejection is recorded), so nothing here can either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SEARCHES = {"retrieve.keyword": "keyword", "retrieve.vector": "vector"}
AFTER_FUSION = ("fuse.tasks", "exclude", "dedupe", "budget")
_FILTER = re.compile(r"[A-Za-z_]+")


def filter_of(reason: str) -> str:
    """The filter a rejection reason names: "published_at=2021-02-10 < 2023-01-01" -> published_at."""
    match = _FILTER.match(reason)
    return match.group(0) if match else "other"


@dataclass
class Search:
    """One search of one KB for a task.

    Attributes:
        arm: keyword or vector.
        kb: the knowledge base.
        visible: candidates the caller may see (the search's input).
        kept: candidates it returned.
        ms: its time.
        rejected: {filter: [(chunk id, reason)]}: candidates that ranked but failed that filter.
    """

    arm: str
    kb: str
    visible: int
    kept: int
    ms: float
    rejected: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


@dataclass
class Task:
    """A search the plan ran (tasks differing only in their KB run as one, e.g. "t1+t3+t5").

    Attributes:
        id: the search's id.
        tasks: the plan's tasks it ran (id, kb, query, search, filters, rule, reason).
        searches: each arm on each KB.
        credibility: per KB, how credibility moved the arms (the operation's reason) and the
            chunks it weighed down {chunk id: "x0.77"}.
        fused: candidates the arms' fusion ranked (before the task's top_k).
    """

    id: str
    tasks: list[dict[str, Any]]
    searches: list[Search] = field(default_factory=list)
    credibility: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    fused: int = 0


def tasks(plan: dict[str, Any], operations: list[dict[str, Any]]) -> list[Task]:
    """The searches of one attempt (its operations), in the order they ran, with their plan tasks."""
    by_id = {task["id"]: task for task in plan.get("tasks") or []}
    out: dict[str, Task] = {}
    for op in operations:
        params = op.get("params") or {}
        search_id = params.get("task")
        if search_id is None:
            continue
        task = out.setdefault(str(search_id), Task(str(search_id), [by_id[t] for t in str(search_id).split("+")
                                                                    if t in by_id]))
        name = op.get("op")
        if name in SEARCHES:
            rejected: dict[str, list[tuple[str, str]]] = {}
            for chunk_id, reason in (op.get("rejected") or {}).items():
                rejected.setdefault(filter_of(reason), []).append((chunk_id, reason))
            task.searches.append(Search(SEARCHES[name], str(params.get("kb")), op.get("input_count", 0),
                                        op.get("output_count", 0), op.get("ms", 0.0), rejected))
        elif name == "credibility":
            task.credibility.append((str(params.get("kb")), op.get("reason", ""), params.get("down_weighted") or {}))
        elif name == "fuse.arms":
            task.fused = op.get("output_count", 0)
    return list(out.values())


@dataclass
class Candidate:
    """One piece of evidence and how it got its place.

    Attributes:
        position: its place in the evidence (1 = first).
        chunk_id, kb: which chunk.
        keyword, vector: (search, rank, score) in each arm that found it (scores after credibility).
        task: (search, rank, score) in each search's fused list.
        credibility: its multiplier.
        fused: its score in the plan's fusion of all searches.
        moved: its best rank in each list, in order, then its place: "keyword 3 → vector 1 → fused 2 → 1".
    """

    position: int
    chunk_id: str
    kb: str
    keyword: list[tuple[str, int, float]]
    vector: list[tuple[str, int, float]]
    task: list[tuple[str, int, float]]
    credibility: float
    fused: float
    moved: str


def candidates(items: list[dict[str, Any]]) -> list[Candidate]:
    """The evidence of an attempt (its `candidates`), each with its ranks and scores per list."""
    out = []
    for position, item in enumerate(items, start=1):
        ranks, scores = item.get("ranks") or {}, item.get("scores") or {}
        lists: dict[str, list[tuple[str, int, float]]] = {"keyword": [], "vector": [], "task": []}
        for name, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
            search, _, arm = name.partition(":")
            lists[arm if arm in ("keyword", "vector") else "task"].append((search, rank, scores.get(name, 0.0)))
        steps = [f"{kind} {entries[0][1]}" for kind, entries in
                 (("keyword", lists["keyword"]), ("vector", lists["vector"]), ("fused", lists["task"])) if entries]
        out.append(Candidate(position, item["chunk_id"], item.get("kb", ""), lists["keyword"], lists["vector"],
                             lists["task"], item.get("credibility", 1.0), item.get("fused", 0.0),
                             " → ".join([*steps, str(position)])))
    return out


def after_fusion(operations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The steps between the searches and the evidence (fusion of the searches, exclusions,
    near-duplicates, the budget): what each received, kept and dropped, and why."""
    return [op for op in operations if op.get("op") in AFTER_FUSION]
