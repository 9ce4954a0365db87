"""Running a plan: all tasks' searches, cross-task fusion, exclusions, de-duplication, budget.

The Executor turns a Plan into the evidence the composer reads. Tasks that are one search
emitted for several knowledge bases run as one search of those KBs together, so the KBs share
its results by relevance (retrieval/federation.py). Each search already weighs its arms by
credibility (see Retriever); the searches are then fused by their tasks' weights.
Every decision lands in the trace: which chunks each step kept and which it dropped, with the
reason (excluded by validation, near-duplicate of another chunk, over the context budget).
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Collection, Sequence

from .kb.chunking import text_size
from .retrieval.fusion import Fuser, RankedList
from .retrieval.scored import ScoredChunk
from .retrieval.search import Retriever, SearchRequest
from .trace import Trace
from .types import Plan, RetrievalTask

_WORD = re.compile(r"\w+")
NEAR_DUPLICATE_JACCARD = 0.85


@functools.lru_cache(maxsize=4096)
def _shingles(text: str, size: int = 3) -> frozenset[tuple[str, ...]]:
    """The text's word trigrams (memoised: evidence recurs across tasks, retries and requests)."""
    words = _WORD.findall(text.lower())
    if len(words) < size:
        return frozenset({tuple(words)})
    return frozenset(tuple(words[i:i + size]) for i in range(len(words) - size + 1))


def _jaccard(a: frozenset, b: frozenset) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)  # |a | b| without building the union


class Executor:
    """Runs plans against a Retriever. Cheap to construct; the retriever holds the heavy state."""

    def __init__(self, retriever: Retriever) -> None:
        self.retriever = retriever

    def warm_up(self) -> None:
        self.retriever.warm_up()

    def run(self, plan: Plan, trace: Trace, now: dt.date, acl_groups: Sequence[str] | None = (),
            candidates: int | None = None) -> list[ScoredChunk]:
        """The evidence for a plan, best first, within plan.max_evidence and the word budget,
        without plan.excluded_chunks (what validation ruled out in an earlier attempt).

        Args:
            plan: the router's tasks and budgets.
            trace: receives the search, fusion, credibility, dedupe and budget operations.
            now: the date recency is measured against.
            acl_groups: the caller's groups (default none: public documents only; None, given
                explicitly, disables the ACL filter for an unrestricted caller).
            candidates: results per arm before fusion (None: each KB's setting).
        """
        if not plan.tasks:
            return []
        groups = self._group(plan)
        requests = [SearchRequest(id="+".join(t.id for t in group), kb=tuple(t.kb for t in group),
                                  query=group[0].query, search=group[0].search, filters=group[0].filters,
                                  top_k=group[0].top_k, candidates=candidates) for group in groups]
        per_group = self.retriever.run(requests, trace, now=now, acl_groups=acl_groups)
        fused = self._fuse(plan, groups, requests, per_group, trace)
        fused = self._exclude(fused, set(plan.excluded_chunks), trace)
        fused = self._dedupe(fused, trace, enough=plan.max_evidence)
        return self._budget(plan, fused, trace)

    def _group(self, plan: Plan) -> list[list[RetrievalTask]]:
        """The plan's tasks as searches: tasks that differ only in their KB form one search of
        those KBs as one corpus (when the plan shares results by relevance, one embedder built
        them all, so their dense scores compare, and one backend searches them, so their BM25
        scores do: `Retriever.corpus_of`); every other task stays alone."""
        if plan.across_kbs != "relevance":
            return [[task] for task in plan.tasks]
        groups: dict[tuple, list[RetrievalTask]] = {}
        for task in plan.tasks:
            key = (task.rule, task.query, task.search, task.weight, task.priority, task.top_k, task.entity,
                   repr(task.filters.to_dict()), self.retriever.dense_model(task.kb),
                   self.retriever.corpus_of(task.kb))
            twin = 0  # the same search twice on one KB stays two searches
            while any(t.kb == task.kb for t in groups.get((*key, twin), ())):
                twin += 1
            groups.setdefault((*key, twin), []).append(task)
        return list(groups.values())

    def _fuse(self, plan: Plan, groups: list[list[RetrievalTask]], requests: list[SearchRequest],
              per_group: list[list[ScoredChunk]], trace: Trace) -> list[ScoredChunk]:
        """Weighted fusion across searches; a chunk found by several keeps all its ranks."""
        with trace.operation("fuse.tasks", method=plan.fusion_method, k=plan.fusion_k, across_kbs=plan.across_kbs,
                             weights={r.id: g[0].weight for g, r in zip(groups, requests, strict=True)}) as op:
            by_key: dict[tuple[str, str], ScoredChunk] = {}
            lists = []
            for request, group, results in zip(requests, groups, per_group, strict=True):
                for chunk in results:
                    key = (chunk.kb, chunk.chunk_id)
                    if key in by_key:
                        by_key[key].ranks.update(chunk.ranks)
                        by_key[key].scores.update(chunk.scores)
                    else:
                        by_key[key] = chunk
                lists.append(RankedList(request.id, group[0].weight, [((c.kb, c.chunk_id), c.fused) for c in results]))
            fused = Fuser(plan.fusion_method, plan.fusion_k).fuse(lists)
            out = []
            for entry in fused:
                chunk = by_key[entry.key]
                chunk.ranks.update(entry.ranks)
                chunk.scores.update(entry.scores)
                chunk.fused = chunk.score = entry.score
                out.append(chunk)
            op.input_count = sum(len(r) for r in per_group)
            op.output_count = len(out)
            op.kept = [c.chunk_id for c in out]
        return out

    def _exclude(self, chunks: list[ScoredChunk], excluded: Collection[str], trace: Trace) -> list[ScoredChunk]:
        if not excluded:
            return chunks
        with trace.operation("exclude", chunk_ids=sorted(excluded)) as op:
            kept = [c for c in chunks if c.chunk_id not in excluded]
            op.rejected = {c.chunk_id: "excluded: validation rejected it in an earlier attempt"
                           for c in chunks if c.chunk_id in excluded}
            op.input_count, op.output_count = len(chunks), len(kept)
            op.kept = [c.chunk_id for c in kept]
        return kept

    def _dedupe(self, chunks: list[ScoredChunk], trace: Trace, enough: int | None = None) -> list[ScoredChunk]:
        """Drop chunks whose text nearly repeats a better-ranked one (word-trigram Jaccard).

        Stops comparing once `enough` distinct chunks are kept: the budget drops the rest anyway,
        and shingling every candidate of ten tasks cost more than the search itself.
        """
        with trace.operation("dedupe", jaccard=NEAR_DUPLICATE_JACCARD) as op:
            kept: list[tuple[ScoredChunk, frozenset]] = []
            rest: list[ScoredChunk] = []
            for position, chunk in enumerate(chunks):
                if enough is not None and len(kept) >= enough:
                    rest = chunks[position:]
                    break
                shingles = _shingles(chunk.text)
                twin = next((k for k, s in kept if _jaccard(shingles, s) >= NEAR_DUPLICATE_JACCARD), None)
                if twin is None:
                    kept.append((chunk, shingles))
                else:
                    op.rejected[chunk.chunk_id] = f"near-duplicate of {twin.chunk_id}"
            op.input_count, op.output_count = len(chunks), len(kept) + len(rest)
            op.kept = [c.chunk_id for c, _ in kept]
            if rest:
                op.reason = f"{len(rest)} lower-ranked chunk(s) not compared: {enough} distinct already kept"
        return [c for c, _ in kept] + rest

    def _budget(self, plan: Plan, chunks: list[ScoredChunk], trace: Trace) -> list[ScoredChunk]:
        """Keep the best chunks up to max_evidence and the context word budget."""
        with trace.operation("budget", max_evidence=plan.max_evidence, words=plan.context_budget_words) as op:
            kept: list[ScoredChunk] = []
            words = 0.0  # text_size counts a Han character as half a word
            for chunk in chunks:
                if len(kept) >= plan.max_evidence:
                    op.rejected[chunk.chunk_id] = f"over max_evidence ({plan.max_evidence})"
                    continue
                size = text_size(chunk.text)
                if kept and words + size > plan.context_budget_words:
                    op.rejected[chunk.chunk_id] = f"over the context budget ({plan.context_budget_words} words)"
                else:
                    kept.append(chunk)
                    words += size
            op.input_count, op.output_count = len(chunks), len(kept)
            op.kept = [c.chunk_id for c in kept]
        return kept
