"""Running search requests against knowledge bases: filter, both arms, fuse, credibility.

A `SearchRequest` is one retrieval task's query against one knowledge base. `Retriever.run`
takes all requests of a user request at once so their vector queries are embedded in one
batch per embedder: each knowledge base is searched with vectors of the model that built its
index (MiniLM for most, e5 for Chinese ones), and the trace says which model embedded what.
ACL filtering happens first, before anything is scored or logged: a chunk a caller may not
see is never named nor counted, and the keyword arm scores with the statistics of the chunks
the caller may see (bm25_visible.py), so no score, rank or count depends on a hidden chunk.
Every other rejected candidate (one that would have ranked without the filter) is named in
the trace with its reason. A KB on an engine backend (`backend: milvus`, backend.py) runs each
arm as an engine search instead; its BM25 statistics are the engine's (docs/SECURITY.md).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.errors import IndexUnavailable, RequestError, UnknownKnowledgeBase
from core.vocab import SEARCH_TYPES

from ..kb.knowledge_base import KnowledgeBase
from ..trace import Trace
from .bm25_visible import visible_to
from .credibility import CredibilityParams, credibility
from .embedder import Embedder, get_embedder, key_of_model
from .federation import KBArm, KBRow, fuse_across, shared_idf
from .filters import Filters
from .fusion import Fused, Fuser, RowList, distinct_rows
from .query_terms import query_terms
from .scored import ScoredChunk
from .tokenize import tokenize

log = logging.getLogger("sightline.retrieval")


@dataclass
class SearchRequest:
    """One query against one knowledge base, or several searched as one corpus.

    Attributes:
        id: the task id, used to name the ranked lists in ScoredChunk.ranks.
        kb: a knowledge base name, or several: their chunks are ranked together on shared
            BM25 statistics and share `top_k` by relevance (retrieval/federation.py).
        search: "keyword", "vector" or "hybrid" (both arms fused).
        candidates: how many each arm returns before fusion (None: the KB's setting).
        weights: arm weights overriding the knowledge base's fusion weights.
    """

    id: str
    kb: str | tuple[str, ...]
    query: str
    search: str = "hybrid"
    filters: Filters = field(default_factory=Filters)
    top_k: int = 10
    candidates: int | None = None
    weights: dict[str, float] | None = None

    def __post_init__(self) -> None:
        if self.search not in SEARCH_TYPES:
            raise RequestError(f"search must be one of {', '.join(SEARCH_TYPES)}, got '{self.search}'",
                               field="search")
        if self.top_k < 1:
            raise RequestError(f"top_k must be at least 1, got {self.top_k}", field="top_k")
        if not self.kbs:
            raise RequestError("a search needs at least one knowledge base", field="kb")

    @property
    def kbs(self) -> tuple[str, ...]:
        """The knowledge bases searched, in order."""
        return (self.kb,) if isinstance(self.kb, str) else tuple(self.kb)


@dataclass
class _Shared:
    """Work the searches of one `Retriever.run` call share, keyed by what determines it.

    Tasks often repeat a query text under different filters (one task per named source,
    dated and undated), and every filtered search also ranks its candidates unfiltered to
    name what the filter rejected. Per distinct query and KB, BM25 scores every row once and
    the exact dense index scans every vector once; each mask then only selects its top-k.
    Results are those of separate searches, bit for bit (the same arrays, the same selection).
    """

    tokens: dict[str, list[str]] = field(default_factory=dict)
    keyword: dict[tuple, Any] = field(default_factory=dict)  # (kb, query, query_terms, shared-IDF KBs) -> QueryScores
    dense: dict[tuple, Any] = field(default_factory=dict)       # (kb, query) -> scan, or None (HNSW)
    selected: dict[tuple, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    reasons: dict[tuple, str] = field(default_factory=dict)     # (kb, filters, row) -> why it fails them

    def tokenize(self, text: str) -> list[str]:
        """The query's tokens, tokenised once per call."""
        if text not in self.tokens:
            self.tokens[text] = tokenize(text)
        return self.tokens[text]


def _request_key(trace: Trace) -> tuple[int, str]:
    """One request's key in the vector cache: its Trace (the object, with its id: a caller may
    choose a trace id through `traceparent`, never another request's Trace object)."""
    return id(trace), trace.trace_id


class Retriever:
    """Searches knowledge bases; cheap to construct, `warm_up()` maps indexes and loads the model."""

    VECTOR_CACHE_SIZE = 2048

    def __init__(self, knowledge_bases: dict[str, KnowledgeBase], embedder: Embedder,
                 credibility_params: CredibilityParams | None = None) -> None:
        """`embedder`: the default model; a KB whose index another model built is searched with that one."""
        self.knowledge_bases = knowledge_bases
        self.embedder = embedder
        self.credibility_params = credibility_params or CredibilityParams()
        # (request, model name, query text) -> vector, oldest first; a request is its Trace
        # (`_request_key`): vectors are reused within one request, never across requests
        self._vector_cache: dict[tuple[tuple[int, str], str, str], np.ndarray] = {}

    def open(self) -> None:
        """Open every KB that can be opened (map its indexes); embedders load when first asked.

        A KB whose build is missing or damaged stays closed (it remembers why, and a request
        naming it gets that error, 503), so one damaged KB does not keep the others from being
        served; its next build is tried when a request asks for it.

        Raises:
            IndexUnavailable: no KB could be opened (the first one's reason).
        """
        failures: list[IndexUnavailable] = []
        for kb in self.knowledge_bases.values():
            try:
                kb.warm_up()
            except IndexUnavailable as exc:
                log.error("knowledge base not opened; the others are served without it: %s", exc.message,
                          extra={"event": "kb_unavailable", "kb": kb.name})
                failures.append(exc)
        if failures and len(failures) == len(self.knowledge_bases):
            raise failures[0]

    def warm_up(self) -> None:
        """Open every KB and load the embedders their indexes need (the default one when none is open)."""
        self.open()
        for embedder in (self.embedders() or {self.embedder.name: self.embedder}).values():
            embedder.warm_up()

    def load_embedders_in_background(self) -> threading.Thread | None:
        """Start loading the embedders the opened KBs need in a thread; the thread, None when loaded.

        For a one-shot command: onnxruntime releases the GIL while it builds a session (0.3-0.8 s),
        so the model loads while Perception (spaCy's import and load) and routing run, instead of
        after them at the first vector query. That query waits for the load (the embedder's lock);
        a load that fails is left to it, which raises the error as a command would without this.
        """
        pending = [e for e in self.embedders().values() if not e.loaded]
        if not pending:
            return None

        def load() -> None:
            for embedder in pending:
                try:
                    embedder.warm_up()
                except Exception:  # noqa: BLE001, S110 - the first vector query raises it again, with its message
                    pass

        thread = threading.Thread(target=load, name="embedder-load")
        thread.start()
        return thread

    def embedder_for(self, kb: KnowledgeBase) -> Embedder:
        """The embedder of the model that built the KB's open index (the default for an unknown one)."""
        key = key_of_model(kb.embedder_name)
        if key is None or key == self.embedder.key:
            return self.embedder
        return get_embedder(key, self.embedder.threads)

    def embedders(self) -> dict[str, Embedder]:
        """Model name -> embedder, for every opened KB (what readiness checks is loaded)."""
        used = (self.embedder_for(kb) for kb in self.knowledge_bases.values() if kb.ready)
        return {e.name: e for e in used}

    def _embed(self, embedder: Embedder, texts: list[str], kbs: list[str], trace: Trace
               ) -> dict[tuple[str, str], np.ndarray]:
        """Vectors of one embedder for the distinct texts: those this request embedded already
        reused, the rest embedded.

        Tasks often share a query (one task per source over the same question) and a retry
        repeats the first attempt's queries, so an attempt embeds only its new texts. Never a
        vector of another request: its reuse, shown in the trace as `cached` and in the time the
        request took, would tell a caller that someone asked the same text before.
        """
        request = _request_key(trace)
        distinct = list(dict.fromkeys(texts))
        missing = [t for t in distinct if (request, embedder.name, t) not in self._vector_cache]
        with trace.operation("embed", model=embedder.name, kbs=sorted(set(kbs)), queries=len(texts),
                             distinct=len(distinct), cached=len(distinct) - len(missing)) as op:
            if missing:
                for text, vector in zip(missing, embedder.queries(missing), strict=True):
                    self._vector_cache[(request, embedder.name, text)] = vector
                while len(self._vector_cache) > self.VECTOR_CACHE_SIZE:
                    self._vector_cache.pop(next(iter(self._vector_cache)))
            op.input_count, op.output_count = len(texts), len(missing)
        return {(embedder.name, t): self._vector_cache[(request, embedder.name, t)] for t in distinct}

    def forget_vectors(self) -> None:
        """Empty the query-vector cache (a benchmark timing the query embedding calls this)."""
        self._vector_cache.clear()

    def dense_model(self, name: str) -> str:
        """The embedder that built a knowledge base's vectors (KBs searched as one must share it)."""
        return self.embedder_for(self.kb(name)).name

    def corpus_of(self, name: str) -> str:
        """What KBs searched as one corpus must have in common: their backend. On the local
        backend their BM25 statistics are pooled (federation.py); on an engine each KB's keyword
        arm keeps its collection's own statistics, and the arms' rows are merged by raw score
        as locally (BM25 on both: the same formula over different counts)."""
        engine = self.kb(name).engine
        return "" if engine is None else engine.kind

    def public_sources(self) -> list[str]:
        """The `source` values of the public documents of every opened KB, sorted (Perception's sources)."""
        sources: set[str] = set()
        for kb in self.knowledge_bases.values():
            if kb.columns is not None and kb.changed() is None:  # never read a changed build's mapping
                sources.update(kb.columns.public_values("source"))
        return sorted(sources)

    def kb(self, name: str) -> KnowledgeBase:
        """A knowledge base by name, opened; UnknownKnowledgeBase lists the known ones."""
        if name not in self.knowledge_bases:
            raise UnknownKnowledgeBase(
                f"unknown knowledge base '{name}'; known: {', '.join(sorted(self.knowledge_bases))}", field="kb")
        kb = self.knowledge_bases[name]
        kb.warm_up()
        return kb

    def run(self, requests: Sequence[SearchRequest], trace: Trace, now: dt.date,
            acl_groups: Sequence[str] | None = (), apply_credibility: bool = True
            ) -> list[list[ScoredChunk]]:
        """Results of each request, best first, at most top_k each.

        Args:
            requests: the searches; their vector queries are embedded in one call per embedder.
            trace: receives one operation per arm, fusion and credibility step.
            now: the request's date, which recency is measured against.
            acl_groups: the caller's groups (default none: public documents only); None, given
                explicitly, disables ACL checks (an unrestricted caller or operator tool).
            apply_credibility: multiply fused scores by the credibility factor.

        Raises:
            IndexUnavailable: a searched KB's build changed on disk since it was opened (checked
                once per KB before any of its mapped arrays is read).
        """
        for name in dict.fromkeys(kb for r in requests for kb in r.kbs):
            self.kb(name).require_intact()  # a file truncated under the mapping: 503, never a SIGBUS
        # the vector queries, grouped by the model that built each request's KB
        groups: dict[str, tuple[Embedder, list[SearchRequest]]] = {}
        for r in requests:
            if r.search in ("vector", "hybrid"):  # KBs searched together share an embedder (Executor)
                embedder = self.embedder_for(self.kb(r.kbs[0]))
                groups.setdefault(embedder.name, (embedder, []))[1].append(r)
        vectors: dict[str, np.ndarray] = {}
        for model, (embedder, group) in groups.items():
            found = self._embed(embedder, [r.query for r in group], [kb for r in group for kb in r.kbs], trace)
            vectors.update({r.id: found[(model, r.query)] for r in group})
        shared = _Shared()
        return [self._run_one(r, vectors.get(r.id), trace, now, acl_groups, apply_credibility, shared)
                for r in requests]

    # --- one request -------------------------------------------------------------------

    def _run_one(self, request: SearchRequest, vector: np.ndarray | None, trace: Trace, now: dt.date,
                 acl_groups: Sequence[str] | None, apply_credibility: bool, shared: _Shared | None = None
                 ) -> list[ScoredChunk]:
        shared = shared or _Shared()
        kbs = [self.kb(name) for name in request.kbs]
        idf = None
        if len(kbs) > 1 and request.search in ("keyword", "hybrid"):
            backends = {self.corpus_of(kb.name) for kb in kbs}
            if len(backends) > 1:
                raise RequestError(f"knowledge bases {', '.join(kb.name for kb in kbs)} are on different search "
                                   f"backends, whose BM25 statistics do not compare: search them as one corpus only "
                                   f"with KBs on the same backend", field="kb")
            if backends == {""}:  # local: pooled statistics; an engine's are its own per KB
                idf = shared_idf([kb.keyword_index(acl_groups) for kb in kbs], shared.tokenize(request.query))
        arms: list[KBArm] = []
        factors: dict[KBRow, float] = {}
        for kb in kbs:
            kb_arms, kb_factors = self._arms(kb, request, vector, trace, now, acl_groups, apply_credibility, idf,
                                             shared)
            arms.extend(KBArm(kb.name, arm) for arm in kb_arms)
            own_arms = kb_arms  # the single-KB case fuses these
            factors.update(((kb.name, row), f) for row, f in kb_factors.items())
        first = kbs[0].settings.fusion
        with trace.operation("fuse.arms", task=request.id, kb=kbs[0].name if len(kbs) == 1 else [k.name for k in kbs],
                             method=first.method, weights={a.arm.name.split(":")[-1]: a.arm.weight for a in arms}
                             ) as op:
            if len(kbs) == 1:
                best, fused_count = Fuser(first.method, first.k).fuse_rows(own_arms, request.top_k)
                top = [Fused((kbs[0].name, e.key), e.score, e.ranks, e.scores) for e in best]
            else:
                fused = fuse_across(arms, first.method, first.k, [kb.name for kb in kbs])
                top, fused_count = fused[:request.top_k], len(fused)
                statistics = ("one embedder's vectors" if request.search == "vector"
                              else "shared BM25 statistics" if idf is not None
                              else "each knowledge base's BM25 statistics its own collection's")
                op.reason = (f"{len(kbs)} knowledge bases ranked as one corpus ({statistics}): "
                             f"top {request.top_k} by relevance, not per knowledge base")
            op.input_count = sum(a.arm.size for a in arms)
            op.output_count = fused_count
        by_kb = {kb.name: kb for kb in kbs}
        chunks: dict[KBRow, Any] = {}
        for kb in kbs:
            rows = [row for name, row in (e.key for e in top) if name == kb.name]
            if rows:
                assert kb.store is not None  # self.kb() opened it or raised
                chunks.update(((kb.name, c.row), c) for c in kb.store.get_rows(rows))
        results = []
        for entry in top:
            kb, chunk = by_kb[entry.key[0]], chunks[entry.key]
            assert kb.columns is not None
            multiplier, parts = (credibility(kb.columns.credibility_inputs(chunk.row), now, self.credibility_params)
                                 if entry.key in factors else (1.0, {}))
            results.append(ScoredChunk(
                chunk_id=chunk.chunk_id, kb=kb.name, text=chunk.text, title=chunk.title,
                metadata=chunk.metadata, entities=chunk.entities, units=chunk.units, score=entry.score,
                fused=entry.score, ranks=entry.ranks, scores=entry.scores, credibility=multiplier,
                credibility_factors=parts))
        return results

    def _arms(self, kb: KnowledgeBase, request: SearchRequest, vector: np.ndarray | None, trace: Trace,
              now: dt.date, acl_groups: Sequence[str] | None, apply_credibility: bool,
              idf: dict[str, float] | None, shared: _Shared) -> tuple[list[RowList], dict[int, float]]:
        """One KB's ranked arms for the request (credibility-weighed) and the multiplier per row."""
        assert kb.columns is not None and kb.store is not None  # self.kb() opened it or raised
        candidates = request.candidates or max(kb.settings.candidates, request.top_k)
        visible = kb.columns.acl_mask(acl_groups)
        if visible is not None and visible.all():  # nothing hidden: select as without ACL, with no mask to apply
            visible = None
        filtered = kb.columns.mask(request.filters)
        allowed = filtered if visible is None else (visible if filtered is None else visible & filtered)
        seen = len(kb.chunk_ids) if visible is None else int(visible.sum())
        arms: list[RowList] = []
        weights = dict(kb.settings.fusion.weights, **(request.weights or {}))
        if request.search in ("keyword", "hybrid"):
            arms.append(self._keyword(kb, request, candidates, allowed, visible, seen, weights, trace, idf, shared,
                                      acl_groups))
        if request.search in ("vector", "hybrid") and vector is not None:
            arms.append(self._vector(kb, request, vector, candidates, allowed, visible, seen, weights, trace,
                                     shared, acl_groups))
        factors: dict[int, float] = {}
        if apply_credibility:
            arms, factors = self._weigh_by_credibility(arms, kb, now, request, trace)
        return arms, factors

    def _weigh_by_credibility(self, arms: list[RowList], kb: KnowledgeBase, now: dt.date,
                              request: SearchRequest, trace: Trace) -> tuple[list[RowList], dict[int, float]]:
        """Scale each arm's raw scores by the chunk's credibility and re-rank the arm.

        Credibility scales the strength of a match, not a rank position: a strong old match
        keeps its lead over a weak fresh one, while near-ties and draft or superseded
        documents move down. (Multiplying reciprocal-rank sums instead would let a 20%
        factor override the whole ranking, since those sums differ by a few percent.)
        The inputs come from the filter columns, so no chunk is read from the store here.
        """
        assert kb.columns is not None  # only called on an opened knowledge base
        with trace.operation("credibility", task=request.id, kb=kb.name, now=now.isoformat(),
                             **self.credibility_params.__dict__) as op:
            row_array = distinct_rows([arm.rows for arm in arms])
            rows = row_array.tolist()
            per_row = kb.columns.credibility_multipliers(row_array, now, self.credibility_params)
            multipliers = dict(zip(rows, per_row.tolist(), strict=True))
            weighed = []
            for arm in arms:  # the same IEEE products and the same (-score, row) order
                arm_rows, scores = arm.rows, arm.scores
                factor = per_row[np.searchsorted(row_array, arm_rows)]
                with np.errstate(divide="ignore", invalid="ignore"):  # where() evaluates both sides
                    scaled = np.where(scores >= 0, scores * factor, scores / factor)
                order = np.lexsort((arm_rows, -scaled))
                weighed.append(RowList(arm.name, arm.weight, arm_rows[order], scaled[order]))
                moved = int(np.count_nonzero(arm_rows[order] != arm_rows))
                op.reason += f"{arm.name.split(':')[-1]}: {moved} position(s) changed; "
            op.input_count = op.output_count = len(rows)
            op.kept = [kb.chunk_ids[row] for row in rows]
            op.params["down_weighted"] = {kb.chunk_ids[row]: f"x{m:.2f}" for row, m in multipliers.items() if m < 0.9}
        return weighed, multipliers

    def _rejections(self, kb: KnowledgeBase, request: SearchRequest, unfiltered_rows: np.ndarray,
                    allowed: np.ndarray | None, shared: _Shared) -> dict[str, str]:
        """chunk_id -> reason for candidates that ranked without the filter but fail it.

        A row's reason depends on the filters only, so both arms and every task with the same
        filters ask once per row.
        """
        if allowed is None or request.filters.empty:
            return {}
        assert kb.columns is not None  # only called on an opened knowledge base
        mask_key = _mask_key(request.filters)
        failing = unfiltered_rows[~allowed[unfiltered_rows]].tolist()
        new = [row for row in failing if (kb.name, mask_key, row) not in shared.reasons]
        for row, why in zip(new, kb.columns.reasons(new, request.filters), strict=True):
            shared.reasons[(kb.name, mask_key, row)] = why
        return {kb.chunk_ids[row]: shared.reasons[(kb.name, mask_key, row)] for row in failing}

    @staticmethod
    def _record(op, kb: KnowledgeBase, rows: np.ndarray, seen: int) -> None:
        """An arm's counts and kept ids: `seen`, the chunks the caller may see, is its input (the
        trace never counts or names what the caller may not see, docs/SECURITY.md)."""
        op.input_count = seen
        op.output_count = len(rows)
        op.kept = list(map(kb.chunk_ids.__getitem__, rows.tolist()))

    def _keyword(self, kb, request, candidates, allowed, visible, seen, weights, trace, idf, shared: _Shared,
                 acl_groups: Sequence[str] | None) -> RowList:
        # KBs searched as one corpus read the query as the first one does (as they fuse like it)
        mode = self.kb(request.kbs[0]).settings.bm25.query_terms
        tokens = query_terms(shared.tokenize(request.query), mode)
        with trace.operation("retrieve.keyword", task=request.id, kb=kb.name, tokens=tokens, k=candidates,
                             filters=request.filters.to_dict(), shared_idf=idf is not None, query_terms=mode,
                             **_backend_params(kb)) as op:
            key = (kb.name, request.query, mode, request.kbs if idf is not None else None)
            if kb.engine is not None:
                engine = kb.engine

                def select(mask: np.ndarray | None, filters: Filters) -> tuple[np.ndarray, np.ndarray]:
                    return self._select_once(shared, ("keyword", *key, candidates, _mask_key(filters)),
                                             lambda: engine.keyword(tokens, filters, acl_groups, candidates))
            else:
                index = visible_to(kb.bm25, visible)  # statistics of the rows the caller may see
                if key not in shared.keyword:
                    shared.keyword[key] = index.score_query(tokens, idf)
                scored = shared.keyword[key]

                def select(mask: np.ndarray | None, filters: Filters) -> tuple[np.ndarray, np.ndarray]:
                    return self._select_once(shared, ("keyword", *key, candidates, _mask_key(filters)),
                                             lambda: index.select(scored, candidates, mask))

            rows, values = select(allowed, request.filters)
            if not request.filters.empty:
                unfiltered, _ = select(visible, Filters())
                op.rejected = self._rejections(kb, request, unfiltered, allowed, shared)
            self._record(op, kb, rows, seen)
        return RowList(f"{request.id}:keyword", weights.get("keyword", 0.0), rows, values)

    def _vector(self, kb, request, vector, candidates, allowed, visible, seen, weights, trace, shared: _Shared,
                acl_groups: Sequence[str] | None) -> RowList:
        with trace.operation("retrieve.vector", task=request.id, kb=kb.name, k=candidates,
                             index=kb.dense.kind if kb.dense is not None else kb.engine.kind,
                             filters=request.filters.to_dict(), **_backend_params(kb)) as op:
            key = (kb.name, request.query)
            if kb.engine is None and key not in shared.dense:  # an exact index scans every vector once per query
                shared.dense[key] = kb.dense.scan(vector)
            scanned = shared.dense.get(key)

            def search(mask: np.ndarray | None, filters: Filters) -> tuple[np.ndarray, np.ndarray]:
                if kb.engine is not None:
                    engine = kb.engine
                    return self._select_once(shared, ("vector", *key, candidates, _mask_key(filters)),
                                             lambda: engine.vector(vector, filters, acl_groups, candidates))
                if scanned is None:  # HNSW: a graph walk per mask
                    return kb.dense.search(vector[None, :], candidates, allowed=mask)[0]
                return self._select_once(shared, ("vector", *key, candidates, _mask_key(filters)),
                                         lambda: kb.dense.select(scanned, candidates, mask))

            rows, values = search(allowed, request.filters)
            if not request.filters.empty:
                unfiltered, _ = search(visible, Filters())
                op.rejected = self._rejections(kb, request, unfiltered, allowed, shared)
            self._record(op, kb, rows, seen)
        return RowList(f"{request.id}:vector", weights.get("vector", 0.0), rows, values)

    @staticmethod
    def _select_once(shared: _Shared, key: tuple, select) -> tuple[np.ndarray, np.ndarray]:
        """A top-k selection, made once per call for a key (the same query, KB, k and filters)."""
        if key not in shared.selected:
            shared.selected[key] = select()
        return shared.selected[key]


def _backend_params(kb: KnowledgeBase) -> dict[str, Any]:
    """An arm's trace parameter naming the engine backend it ran on (none for the local backend)."""
    return {} if kb.engine is None else {"backend": kb.engine.describe()}


def _mask_key(filters: Filters) -> str:
    """What identifies a search's mask within one call: its filters (the caller's ACL is fixed)."""
    return repr(filters.to_dict())
