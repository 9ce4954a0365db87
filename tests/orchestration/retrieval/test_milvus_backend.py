"""The `milvus` search backend on real milvus-lite, against the local backend on the same build.

A small knowledge base (dated, statused, sourced, one restricted document) is built twice from
the same documents and vectors: once for the local backend, once for milvus. The vector arm is
an exact inner product on both, so its rows are equal under every filter; the keyword arm
scores Sightline's own tokens on both, with the engine's BM25 statistics (IDF over every row
of the collection, per segment in milvus-lite) against the caller's visible rows' locally.
The `milvus` extra is installed by `make setup`: these tests run in CI, on real milvus-lite.
"""

from __future__ import annotations

import datetime as dt
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.errors import ConfigError, IndexUnavailable, RequestError, SearchEngineUnavailable
from orchestration.kb import layout
from orchestration.kb.config import KBSettings, MilvusSettings, parse_kb_config
from orchestration.kb.ingest import ingest
from orchestration.kb.knowledge_base import KnowledgeBase
from orchestration.kb.milvus_build import collection_of
from orchestration.retrieval.filters import Filters
from orchestration.retrieval.milvus_backend import MilvusBackend
from orchestration.retrieval.milvus_client import connect, engine_token
from orchestration.retrieval.milvus_expr import expression
from orchestration.retrieval.search import Retriever, SearchRequest
from orchestration.trace import Trace

from .test_query_terms import _StandInEmbedder

NOW = dt.date(2025, 7, 10)


def _doc(title: str, body: str, **meta: str) -> str:
    front = "".join(f"{key}: {value}\n" for key, value in meta.items())
    return f"---\ntitle: {title}\n{front}---\n\n# {title}\n\n{body}\n"


DOCS = {
    "e4027.md": _doc("Fault E4027", "Error code E4027 is raised when the fan vibration exceeds 4 units on the LEAP-1A "
                     "engine. Inspect the fan blades.", published_at="2024-03-01", status="effective",
                     source="Airbus", doc_type="manual"),
    "e5102.md": _doc("Fault E5102", "The APU fails to start within 60 seconds. Check the starter and the fuel valve.",
                     published_at="2023-05-10", status="superseded", source="Airbus", doc_type="manual"),
    "b737.md": _doc("B737 fuel burn", "The B737 burns 2.5 tonnes of fuel per hour in cruise. Fuel valve checks "
                    "are monthly.", published_at="2025-02-01", status="effective", source="Boeing",
                    doc_type="report"),
    "draft.md": _doc("Vibration limits draft", "A draft proposes to lower the fan vibration limit to 3 units.",
                     published_at="2025-06-01", status="draft", source="Airbus", doc_type="manual"),
    "undated.md": _doc("Starter notes", "Starter motor wear shows as slow APU starts and fan vibration."),
    "hr.md": _doc("Restructuring list", "Project Nightjar closes; its fan budget moves to Kestrel. Fuel valve "
                  "supplier Brightwater is replaced.", acl="[hr]", published_at="2025-01-15", status="effective",
                  source="HR", doc_type="memo"),
}
HIDDEN_WORDS = ["Project Nightjar", "Kestrel budget", "Brightwater supplier"]


def _write(folder: Path, docs: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _settings(root: Path, name: str, backend: str, folder: Path) -> KBSettings:
    milvus = MilvusSettings(uri=str(root / "milvus.db"), collection=f"sightline_{name}")
    return KBSettings(name=name, paths=(folder,), backend=backend, milvus=milvus if backend == "milvus" else None)


def _open(root: Path, settings: KBSettings, embedder) -> Retriever:
    kb = KnowledgeBase(settings, root / "kb" / settings.name, embedder.name)
    retriever = Retriever({settings.name: kb}, embedder)
    retriever.warm_up()
    return retriever


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """(local retriever, milvus retriever, root) over the same documents."""
    root = tmp_path_factory.mktemp("milvus_backend")
    folder = _write(root / "docs", DOCS)
    embedder = _StandInEmbedder()
    opened = {}
    for backend in ("local", "milvus"):
        settings = _settings(root, backend, backend, folder)
        ingest(settings, root / "kb" / backend, embedder, progress=False)
        opened[backend] = _open(root, settings, embedder)
    yield opened["local"], opened["milvus"], root
    for retriever in opened.values():
        for kb in retriever.knowledge_bases.values():
            kb.close()


NO_FILTERS = Filters()


def _run(retriever: Retriever, query: str, search: str = "hybrid", filters: Filters = NO_FILTERS,
         acl: tuple[str, ...] | None = ()) -> tuple[list, Trace]:
    kb = next(iter(retriever.knowledge_bases))
    trace = Trace()
    (results,) = retriever.run([SearchRequest("t1", kb, query, search, filters=filters, top_k=10)], trace, now=NOW,
                               acl_groups=acl)
    return results, trace


FILTERS = [
    Filters(),
    Filters(time_start=dt.date(2024, 1, 1), time_end=dt.date(2025, 3, 1)),
    Filters(time_start=dt.date(2024, 1, 1), keep_undated=True),
    Filters(status=("Effective",)),
    Filters(exclude_status=("draft", "superseded")),
    Filters(source=("airbus",), doc_type=("manual",)),
]


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f.to_dict()))
@pytest.mark.parametrize("acl", [(), ("hr",), None], ids=["public", "hr", "unrestricted"])
def test_the_vector_arm_returns_the_local_rows_under_every_filter_and_acl(both, filters, acl):
    local, milvus, _ = both
    ours, _ = _run(local, "fan vibration fuel valve", "vector", filters, acl)
    theirs, _ = _run(milvus, "fan vibration fuel valve", "vector", filters, acl)
    assert [r.chunk_id for r in theirs] == [r.chunk_id for r in ours]
    assert np.allclose([r.scores["t1:vector"] for r in theirs], [r.scores["t1:vector"] for r in ours], atol=1e-5)


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f.to_dict()))
def test_the_keyword_arm_finds_the_same_chunks_under_every_filter(both, filters):
    """The same chunks; their order may differ: a term in half the rows or more has IDF 0 or below in
    BM25Okapi (floored at 0.25 x the mean IDF), and log(1 + (N - df + 0.5)/(df + 0.5)) > 0 in the engine."""
    local, milvus, _ = both
    ours, _ = _run(local, "fan vibration fuel valve", "keyword", filters, ("hr",))
    theirs, _ = _run(milvus, "fan vibration fuel valve", "keyword", filters, ("hr",))
    assert {r.chunk_id for r in theirs} == {r.chunk_id for r in ours}
    rare_ours, _ = _run(local, "E4027 on the LEAP-1A", "keyword", filters, ("hr",))
    rare_theirs, _ = _run(milvus, "E4027 on the LEAP-1A", "keyword", filters, ("hr",))
    assert [r.chunk_id for r in rare_theirs] == [r.chunk_id for r in rare_ours]


def test_the_trace_keeps_each_arm_s_ranks_scores_and_rejections_on_the_engine(both):
    local, milvus, _ = both
    filters = Filters(status=("effective",))
    ours, our_trace = _run(local, "fan vibration", filters=filters)
    theirs, their_trace = _run(milvus, "fan vibration", filters=filters)
    assert all(set(r.ranks) == {"t1:keyword", "t1:vector"} & set(r.scores) for r in theirs)
    for op in ("retrieve.keyword", "retrieve.vector"):
        mine = next(o for o in our_trace.operations if o.op == op)
        engine = next(o for o in their_trace.operations if o.op == op)
        assert engine.params["backend"] == {"kind": "milvus", "collection": milvus.kb("milvus").engine.collection}
        assert engine.rejected == mine.rejected and engine.rejected, "status=draft / superseded named, as locally"
        assert engine.input_count == mine.input_count


def test_the_filter_expression_is_the_mask_in_milvus_words():
    filters = Filters(time_start=dt.date(2024, 1, 1), time_end=dt.date(2024, 12, 31), status=("Effective",),
                      source=('Air"bus',), exclude_status=("draft",), keep_undated=True)
    assert expression(filters, ["hr", "finance"]) == (
        '(array_contains_any(acl, ["finance", "hr"]) or array_length(acl) == 0) and '
        '((day != -2147483648 and day >= 19723 and day <= 20088) or day == -2147483648) and '
        'status in ["effective"] and source in ["air\\"bus"] and status not in ["draft"]')
    assert expression(Filters(), ()) == "array_length(acl) == 0"
    assert expression(Filters(), None) == ""
    # on a collection with the build's ACL codes: one scalar test of the codes the caller reads
    assert expression(Filters(status=("Effective",)), ["hr"], [0, 2]) == \
        'acl_code in [0, 2] and status in ["effective"]'
    assert expression(Filters(), None, None) == ""


def test_the_acl_is_one_scalar_test_on_the_build_s_codes_and_an_older_collection_still_filters(both):
    """Found running benchmarks/scale.py on milvus: `array_length(acl) == 0` (every keyless search)
    cost milvus-lite 56-94 ms a search at 2,000 rows against 12-15 ms for a scalar test. A build's
    collection holds each row's ACL code; the codes a caller reads come from the build's columns."""
    _, milvus, _ = both
    kb = milvus.kb("milvus")
    assert kb.manifest["milvus"]["acl_field"] == "acl_code"
    hr = kb.columns.acl_groups.index(["hr"])
    public = kb.columns.acl_groups.index([])
    assert kb.engine.columns.readable_codes(()) == [public]
    assert sorted(kb.engine.columns.readable_codes(["hr", "finance"])) == sorted([public, hr])
    assert kb.engine.columns.readable_codes(None) is None
    # a collection built before the field is searched through the `acl` array, with the same rows
    older = MilvusBackend("milvus", kb.engine.settings, kb.engine.collection)
    for groups in ((), ("hr",), None):
        vector = np.asarray(milvus.embedder.queries(["fan vibration fuel valve"])[0])
        new_rows, _ = kb.engine.vector(vector, Filters(exclude_status=("draft",)), groups, 10)
        old_rows, _ = older.vector(vector, Filters(exclude_status=("draft",)), groups, 10)
        assert new_rows.tolist() == old_rows.tolist(), groups
    older.close()


@pytest.mark.parametrize("search", ["keyword", "vector", "hybrid"])
def test_a_restricted_chunk_never_reaches_an_outside_caller(both, search):
    _, milvus, _ = both
    for query in HIDDEN_WORDS + ["fan vibration fuel valve"]:
        outside, trace = _run(milvus, query, search)
        assert not any(r.chunk_id.startswith("hr") for r in outside)
        assert not any(cid.startswith("hr") for o in trace.operations for cid in (o.kept or []))
    inside, _ = _run(milvus, "Project Nightjar", search, acl=("hr",))
    assert any(r.chunk_id.startswith("hr") for r in inside), "a member of hr reads it"


def test_searching_a_milvus_kb_as_one_corpus_with_a_local_one_is_refused(both):
    local, milvus, _ = both
    retriever = Retriever({**local.knowledge_bases, **milvus.knowledge_bases}, local.embedder)
    with pytest.raises(RequestError, match="different search backends"):
        retriever.run([SearchRequest("t1", ("local", "milvus"), "fan")], Trace(), now=NOW)


def test_kbs_on_the_engine_are_searched_as_one_corpus_each_with_its_own_statistics(both, tmp_path):
    """A plan sharing its results by relevance over several milvus KBs gets one list: each KB's
    engine hits merged by raw BM25 score, as the local backend merges its KBs' rows."""
    _, milvus, _ = both
    embedder = _StandInEmbedder()
    settings = _settings(tmp_path, "milvus2", "milvus", _write(tmp_path / "docs", {
        "apu.md": _doc("APU starter", "The APU starter motor is replaced after 3000 starts. Fan blade checks are "
                       "weekly on the APU inlet."),
        "cabin.md": _doc("Cabin pressure", "Cabin pressure is tested monthly; the outflow valve is replaced yearly.")}))
    ingest(settings, tmp_path / "kb" / "milvus2", embedder, progress=False)
    second = _open(tmp_path, settings, embedder)
    retriever = Retriever({**milvus.knowledge_bases, **second.knowledge_bases}, embedder)
    query = "APU starter fan valve"
    trace = Trace()
    (pooled,) = retriever.run([SearchRequest("t1", ("milvus", "milvus2"), query, "keyword", top_k=10)], trace,
                              now=NOW, acl_groups=())
    alone = [(r.scores["t1:keyword"], r.kb, r.chunk_id)
             for name in ("milvus", "milvus2") for r in _run(Retriever({name: retriever.kb(name)}, embedder), query,
                                                             "keyword")[0]]
    expected = [(kb, cid) for _, kb, cid in sorted(alone, key=lambda a: -a[0])][:10]
    assert [(r.kb, r.chunk_id) for r in pooled] == expected
    assert {r.kb for r in pooled} == {"milvus", "milvus2"}
    [fusion] = [o for o in trace.operations if o.op == "fuse.arms"]
    assert "one corpus" in fusion.reason and "its own collection's" in fusion.reason
    second.kb("milvus2").close()


def test_a_serving_host_of_a_milvus_kb_needs_no_dense_index_and_one_of_a_local_kb_does(both, tmp_path):
    """Each KB's build published to a serving host without `dense/` (docs/SCALE.md): the milvus
    KB opens and answers as on the build host (the engine holds its vectors); the local one is
    refused, naming the missing file."""
    local, milvus, root = both
    embedder = _StandInEmbedder()
    opened = {}
    for name, retriever in (("local", local), ("milvus", milvus)):
        host = tmp_path / "host" / name
        shutil.copytree(root / "kb" / name, host, symlinks=True)
        build = layout.current_build(host)
        assert build is not None and (build / "dense" / "index.faiss").is_file()
        shutil.rmtree(build / "dense")
        settings = retriever.kb(name).settings
        opened[name] = KnowledgeBase(settings, host, embedder.name)
    with pytest.raises(IndexUnavailable, match=r"file dense/\S+ is missing"):
        opened["local"].warm_up()
    served = Retriever({"milvus": opened["milvus"]}, embedder)
    served.warm_up()
    assert opened["milvus"].dense is None and opened["milvus"].describe()["dense_index"] == "milvus"
    for search in ("vector", "hybrid"):
        on_host, trace = _run(served, "fan vibration limit", search)
        on_build_host, _ = _run(milvus, "fan vibration limit", search)
        assert [r.chunk_id for r in on_host] == [r.chunk_id for r in on_build_host] and on_host
    assert [o.params["index"] for o in trace.operations if o.op == "retrieve.vector"] == ["milvus"]
    opened["milvus"].close()


def test_the_engine_bm25_counts_hidden_documents_as_docs_security_says(both, tmp_path):
    """The existence oracle the local backend closes (bm25_visible.py) and the engine does not."""
    local, milvus, root = both
    without_hr = _write(tmp_path / "docs", {k: v for k, v in DOCS.items() if k != "hr.md"})
    embedder = _StandInEmbedder()
    differing = {}
    for backend, with_hr in (("local", local), ("milvus", milvus)):
        settings = replace(_settings(tmp_path, f"{backend}_nohr", backend, without_hr))
        ingest(settings, tmp_path / "kb" / settings.name, embedder, progress=False)
        without = _open(tmp_path, settings, embedder)
        differing[backend] = sum(
            [(r.chunk_id, r.scores) for r in _run(with_hr, q, "keyword")[0]]
            != [(r.chunk_id, r.scores) for r in _run(without, q, "keyword")[0]]
            for q in ["fan budget", "fuel valve supplier", "fan vibration"])
        without.kb(settings.name).close()
    assert differing == {"local": 0, "milvus": 3}


def _alias_target(settings: KBSettings) -> str:
    assert settings.milvus is not None
    client = connect(settings.name, settings.milvus)
    try:
        return client.describe_alias(settings.milvus.collection)["collection_name"]
    finally:
        client.close()


def test_a_rebuild_moves_the_alias_drops_removed_documents_and_an_interrupted_one_changes_nothing(tmp_path):
    embedder = _StandInEmbedder()
    folder = _write(tmp_path / "docs", DOCS)
    settings = _settings(tmp_path, "cycle", "milvus", folder)
    kb_dir = tmp_path / "kb" / "cycle"
    first = ingest(settings, kb_dir, embedder, progress=False)
    assert settings.milvus is not None and first.build_dir is not None
    assert _alias_target(settings) == collection_of(settings.milvus, first.build_dir)

    _write(folder, {k: v for k, v in DOCS.items() if k != "e5102.md"})  # a document removed
    second = ingest(settings, kb_dir, embedder, progress=False)
    assert second.build_dir is not None
    assert _alias_target(settings) == collection_of(settings.milvus, second.build_dir)
    results, _ = _run(_open(tmp_path, settings, embedder), "APU starter fuel valve 60 seconds", "keyword")
    assert results and not any(r.chunk_id.startswith("e5102") for r in results)

    _write(folder, DOCS)

    def interrupt(stage: str) -> None:
        if stage == "manifest":  # after the collection is written and loaded
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ingest(settings, kb_dir, embedder, progress=False, on_stage=interrupt)
    assert _alias_target(settings) == collection_of(settings.milvus, second.build_dir)
    assert layout.current_build(kb_dir).resolve() == second.build_dir.resolve()
    client = connect("cycle", settings.milvus)
    try:
        kept = sorted(c for c in client.list_collections() if c.startswith("sightline_cycle__"))
    finally:
        client.close()
    assert kept == sorted(collection_of(settings.milvus, b) for b in (first.build_dir, second.build_dir))


def test_an_engine_without_the_build_s_collection_is_a_503_naming_the_kb_and_the_uri(both, tmp_path):
    local, _, root = both
    settings = _settings(root, "milvus", "milvus", root / "docs")
    elsewhere = replace(settings, milvus=MilvusSettings(uri=str(tmp_path / "other.db"), collection="sightline_milvus"))
    kb = KnowledgeBase(elsewhere, root / "kb" / "milvus", local.embedder.name)
    with pytest.raises(SearchEngineUnavailable, match=r"knowledge base 'milvus'.*other\.db") as caught:
        kb.warm_up()
    assert caught.value.http_status == 503


def test_an_unreachable_cluster_is_a_503_naming_the_kb_the_uri_and_the_token_variable():
    settings = MilvusSettings(uri="http://127.0.0.1:1", collection="sightline_x", token_env="MILVUS_TOKEN")
    with pytest.raises(SearchEngineUnavailable, match=r"'x'.*http://127\.0\.0\.1:1.*\$MILVUS_TOKEN") as caught:
        connect("x", settings)
    assert caught.value.http_status == 503 and caught.value.code == "index_unavailable"


def test_engine_tokens_keep_sightline_s_tokens_whole():
    assert engine_token("e4027") == "e4027"
    assert engine_token("leap-1a") == "x_" + b"leap-1a".hex()
    assert engine_token("发票") == "x_" + "发票".encode().hex()


def test_the_backend_is_chosen_per_knowledge_base_in_config(tmp_path):
    config = parse_kb_config({"knowledge_bases": {
        "a": {"paths": ["docs"]},
        "b": {"paths": ["docs"], "backend": "milvus",
              "milvus": {"uri": "var/milvus/b.db", "token_env": "MILVUS_TOKEN"}},
        "c": {"paths": ["docs"], "backend": "milvus", "milvus": {"uri": "https://milvus.internal:19530",
                                                                "collection": "kb_c"}}}}, base_dir=tmp_path)
    a, b, c = (config.get(n) for n in "abc")
    assert a.backend == "local" and a.milvus is None
    assert b.milvus == MilvusSettings(uri=str(tmp_path / "var/milvus/b.db"), collection="sightline_b",
                                      token_env="MILVUS_TOKEN")
    assert c.milvus is not None and c.milvus.uri == "https://milvus.internal:19530" and c.milvus.collection == "kb_c"
    with pytest.raises(ConfigError, match="backend: milvus needs"):
        parse_kb_config({"knowledge_bases": {"d": {"backend": "milvus"}}})
    with pytest.raises(ConfigError, match="backend"):
        parse_kb_config({"knowledge_bases": {"d": {"backend": "elastic"}}})
    with pytest.raises(ConfigError, match="own collection"):
        parse_kb_config({"defaults": {"milvus": {"uri": "m.db"}}, "knowledge_bases": {"d": {}}})


# --- the demo knowledge bases on both backends (MiniLM: the model lane) -------------------------

@pytest.fixture(scope="module")
def demo_on_milvus(demo_kbs, embedder, tmp_path_factory):
    """The demo KBs built again with `backend: milvus` (one milvus-lite file), from the same documents."""
    data = tmp_path_factory.mktemp("demo_milvus")
    kbs = {name: replace(s, backend="milvus", milvus=MilvusSettings(uri=str(data / "milvus.db"),
                                                                    collection=f"sightline_{name}"))
           for name, s in demo_kbs.knowledge_bases.items()}
    config = replace(demo_kbs, data_dir=data, knowledge_bases=kbs)
    for settings in kbs.values():
        ingest(settings, config.kb_dir(settings.name), embedder, progress=False)
    return config


def test_the_demo_questions_get_the_same_statuses_and_answers_on_both_backends(demo_kbs, demo_on_milvus):
    """8 of 8 statuses equal, 7 of 8 answers whole. The manuals comparison searches the three KBs
    as one corpus on both backends (Retriever.corpus_of) and states the same relation; one of
    its supporting sentences differs, since the keyword arm's statistics are pooled over the
    three KBs locally and each collection's own on milvus."""
    from benchmarks.backend_latency import QUESTIONS, answers

    local, milvus = answers(demo_kbs), answers(demo_on_milvus)
    assert [a["status"] for a in milvus] == [a["status"] for a in local]
    differing = [q for q, a, b in zip(QUESTIONS, local, milvus, strict=True) if a["text"] != b["text"]]
    assert differing == ["Compare the A320neo and 737 MAX 8 manuals: which was effective earlier?"]
    compared = QUESTIONS.index(differing[0])
    relation = local[compared]["text"].split("\n")[0]
    assert relation.startswith("The A320neo date (2023-04-01 [1]") and "is earlier than the 737 MAX 8 date" in relation
    assert milvus[compared]["text"].split("\n")[0] == relation


def test_no_restricted_demo_chunk_reaches_an_anonymous_caller_on_milvus(demo_on_milvus, embedder):
    from orchestration.kb.registry import open_knowledge_bases

    retriever = Retriever(open_knowledge_bases(demo_on_milvus), embedder)
    retriever.warm_up()
    restricted = {(name, cid) for name, kb in retriever.knowledge_bases.items() if kb.columns is not None
                  for row, cid in enumerate(kb.chunk_ids) if kb.columns.acl_groups[int(kb.columns.acl_code[row])]}
    assert restricted, "the demo has restricted documents (salary bands, an incident review)"
    for name in retriever.knowledge_bases:
        for query in ("salary bands grade pay", "incident review findings", "fuel burn"):
            results, trace = _run(Retriever({name: retriever.kb(name)}, embedder), query)
            leaked = {(name, r.chunk_id) for r in results} | {
                (name, cid) for o in trace.operations for cid in (o.kept or [])}
            assert not leaked & restricted
    for kb in retriever.knowledge_bases.values():
        kb.close()


BUILD_OR_SEARCH = """
import datetime as dt, sys
from pathlib import Path
from orchestration.kb.config import KBSettings, MilvusSettings
from orchestration.kb.ingest import ingest
from orchestration.kb.knowledge_base import KnowledgeBase
from orchestration.retrieval.search import Retriever, SearchRequest
from orchestration.trace import Trace
from tests.orchestration.retrieval.test_query_terms import _StandInEmbedder
step, root, folder = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
settings = KBSettings(name="fresh", paths=(folder,), backend="milvus",
                      milvus=MilvusSettings(uri=str(root / "milvus.db"), collection="sightline_fresh"))
embedder = _StandInEmbedder()
if step == "build":
    ingest(settings, root / "kb" / "fresh", embedder, progress=False)
    raise SystemExit(0)
retriever = Retriever({"fresh": KnowledgeBase(settings, root / "kb" / "fresh", embedder.name)}, embedder)
retriever.warm_up()
(found,) = retriever.run([SearchRequest("t1", "fresh", "fan vibration E4027", "keyword", top_k=3)], Trace(),
                         now=dt.date(2025, 7, 10), acl_groups=())
print(" ".join(s.chunk_id for s in found))
"""


def test_a_collection_built_by_an_ingest_is_searched_by_a_fresh_serving_process(tmp_path):
    """Found running benchmarks/scale.py on milvus: a serving process opening a collection another
    process built (`sightline ingest`, then `sightline serve`) failed every search: milvus-lite
    starts a collection released in a new process ("call load() before search"), as a cluster
    does after a restart. The backend loads the build's collection when it connects."""
    import subprocess
    import sys

    folder = _write(tmp_path / "docs", DOCS)
    repo = Path(__file__).resolve().parents[3]
    for step in ("build", "search"):  # two processes, as `sightline ingest` and then `sightline serve`
        done = subprocess.run([sys.executable, "-c", BUILD_OR_SEARCH, step, str(tmp_path), str(folder)], cwd=repo,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0].startswith("e4027"), done.stdout
