"""A knowledge base of N chunks (default a million) on either backend: build, disk, worker, queries, loop.

    python -m benchmarks.scale [--chunks 1000000] [--backend local|milvus] [--out DIR] [--ef-construction N]
                               [--json OUT.json]

`--backend milvus` builds and searches a milvus-lite file under the data directory (in the
worker's process, as a serving worker would with a file `uri`); the local build is written too.

What is real and what is not:
- **Text is synthetic**: documents drawn word by word from a real vocabulary, the word
  frequencies of the PEPs (../shared/docs-corpora/peps, else this repo's docs/), so term
  frequencies are Zipfian as in English; sentences of 8-28 words, a title, `##` headings, and
  now and then a number, a version or a date; a `published_at` date and a `source` per document.
  They read as word salad: no sentence means anything.
- **Vectors are random**: a stand-in embedder gives each passage a unit vector drawn from a seed
  hashed from its text (`RandomUnitEmbedder`), so the embedder's hours are skipped (MiniLM on
  2 cores: 4-16 chunks/s). It records MiniLM's name in the manifest so a worker opens the build
  as it opens a real one, and **queries are embedded by the real MiniLM query model**: the query
  cost is real, the dense arm's ranking is not (random vectors: dense quality means nothing).
- **Everything else is the product's**: the JSONL is read, chunked, tagged, stored, BM25- and
  FAISS-indexed by `orchestration.kb.ingest.ingest` (the dense index the config gives at that
  size: flat below `hnsw_threshold`, 200,000, HNSW above; `--ef-construction` overrides the
  config's 200); the worker is a fresh process holding one `AnswerLoop` and its `Retriever`
  (evaluation.builds.eval_loop: `build_loop` with the eval router, MiniLM and spaCy NER loaded),
  as a gunicorn worker of `serve --workers 2` does (FAISS on one thread).

Steps, one process at a time: generate the JSONL (streamed to disk, bounded memory), build in a
child process (its peak RSS and per-stage seconds; the ingest streams, so its peak is what the
finished indexes hold: BM25's postings, then FAISS while it is built), then a fresh worker
process: RSS after opening, keyword / dense / hybrid `Retriever.run` latency over `--queries` queries (each with the
query-vector cache emptied, so dense and hybrid include embedding the query), a keyword
self-check (a query of a stored chunk's words finds that chunk), then `AnswerLoop.answer` over
`--questions` questions; RSS (own and mapped-file pages apart) after each step. Without `--out`
the corpus and the KB go to a temporary folder, removed at the end. Prints a Markdown table;
`--json` writes the figures. Results: docs/SCALE.md "A million chunks".
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import hashlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.retrieval.systems import disk_mb
from evaluation.stats import percentile

REPO = Path(__file__).resolve().parents[1]
KB = "scale"
MILVUS_DIR = "milvus"  # the milvus-lite file's folder under the data directory (--backend milvus)
PEPS = REPO.parent / "shared" / "docs-corpora" / "peps"
VOCABULARY = 50_000  # most frequent words kept
_WORD = re.compile(r"[A-Za-z][a-z]+(?:'[a-z]+)?")
NOW = dt.date(2025, 7, 10)
SECTIONS = (4, 7)  # headings per document
SENTENCE_WORDS = (8, 28)
SECTION_WORDS = (120, 260)
QUESTION_FORMS = ("What is the {} of {}?", "How does {} affect {}?", "When was {} added to {}?",
                  "Why is {} used in {}?")  # the loop's questions, two drawn phrases each
SEARCH = {"keyword": "keyword", "dense": "vector", "hybrid": "hybrid"}  # the report's arm -> SearchRequest.search


# --- the corpus -------------------------------------------------------------------------------

def vocabulary(limit: int = VOCABULARY) -> tuple[list[str], np.ndarray]:
    """The most frequent words of the PEPs (or of docs/ when they are absent) and their counts."""
    files = sorted(PEPS.glob("*.rst")) if PEPS.is_dir() else sorted((REPO / "docs").glob("*.md"))
    counts: collections.Counter[str] = collections.Counter()
    for path in files:
        counts.update(w.lower() for w in _WORD.findall(path.read_text(encoding="utf-8", errors="replace")))
    common = counts.most_common(limit)
    return [w for w, _ in common], np.array([c for _, c in common], dtype=np.float64)


class Sampler:
    """Words drawn by their real frequency (inverse CDF over the counts)."""

    def __init__(self, words: list[str], counts: np.ndarray, seed: int) -> None:
        self.words = np.array(words, dtype=object)
        self.cdf = np.cumsum(counts) / counts.sum()
        self.rng = np.random.default_rng(seed)

    def draw(self, n: int) -> list[str]:
        picks = np.searchsorted(self.cdf, self.rng.random(n), side="right")
        return self.words[np.minimum(picks, self.cdf.size - 1)].tolist()

    def content(self, n: int, lo: int = 100, hi: int = 8000) -> list[str]:
        """`n` words of middling frequency (ranks lo..hi): what a person types into a search box."""
        return self.words[self.rng.integers(lo, min(hi, self.cdf.size), size=n)].tolist()


def _sentence(sampler: Sampler, rng: np.random.Generator) -> str:
    words = sampler.draw(int(rng.integers(SENTENCE_WORDS[0], SENTENCE_WORDS[1] + 1)))
    roll = rng.random()
    if roll < 0.08:
        words.insert(int(rng.integers(1, len(words))), f"in {int(rng.integers(1995, 2026))}")
    elif roll < 0.13:
        words.insert(int(rng.integers(1, len(words))), f"version {int(rng.integers(1, 5))}.{int(rng.integers(0, 14))}")
    elif roll < 0.17:
        day = dt.date(2015, 1, 1) + dt.timedelta(days=int(rng.integers(0, 3800)))
        words.insert(int(rng.integers(1, len(words))), f"on {day.isoformat()}")
    elif roll < 0.22:
        words.insert(int(rng.integers(1, len(words))), f"{int(rng.integers(2, 5000))} ms")
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def document(sampler: Sampler, rng: np.random.Generator, number: int) -> dict[str, Any]:
    """One synthetic document: a title, 4-7 `##` sections of 120-260 words, a date and a source."""
    parts = []
    for _ in range(int(rng.integers(SECTIONS[0], SECTIONS[1] + 1))):
        heading = " ".join(sampler.content(int(rng.integers(2, 5)))).capitalize()
        target, body = int(rng.integers(SECTION_WORDS[0], SECTION_WORDS[1] + 1)), []
        while sum(len(s.split()) for s in body) < target:
            body.append(_sentence(sampler, rng))
        parts.append(f"## {heading}\n\n" + " ".join(body))
    day = dt.date(2012, 1, 1) + dt.timedelta(days=int(rng.integers(0, 4900)))
    return {"id": f"doc-{number:07d}", "title": " ".join(sampler.content(int(rng.integers(3, 7)))).title(),
            "text": "\n\n".join(parts),
            "metadata": {"published_at": day.isoformat(), "source": f"source-{number % 40:02d}"}}


def chunks_per_document(seed: int, sample: int = 60) -> float:
    """The product's chunker's mean chunks per synthetic document, over `sample` documents."""
    from orchestration.kb.chunking import chunk_text
    from orchestration.kb.config import KBSettings

    settings = KBSettings(name=KB)
    sampler, rng = Sampler(*vocabulary(), seed=seed + 1), np.random.default_rng(seed + 1)
    counts = [len(chunk_text(document(sampler, rng, i)["text"], settings.chunk_words, settings.overlap_words))
              for i in range(sample)]
    return statistics.fmean(counts)


def write_corpus(path: Path, chunks: int, seed: int) -> dict[str, Any]:
    """Stream enough documents for about `chunks` chunks to `path` (one line each, never held whole)."""
    per_doc = chunks_per_document(seed)
    documents = max(1, round(chunks / per_doc))
    sampler, rng = Sampler(*vocabulary(), seed=seed), np.random.default_rng(seed)
    started = time.perf_counter()
    with path.open("w", encoding="utf-8") as out:
        for number in range(documents):
            out.write(json.dumps(document(sampler, rng, number), ensure_ascii=False) + "\n")
    return {"documents": documents, "chunks_per_document": round(per_doc, 2), "bytes": path.stat().st_size,
            "seconds": round(time.perf_counter() - started, 1), "vocabulary": int(sampler.cdf.size),
            "vocabulary_from": str(PEPS if PEPS.is_dir() else REPO / "docs")}


# --- the stand-in embedder ----------------------------------------------------------------------

class RandomUnitEmbedder:
    """Deterministic random unit vectors seeded by each text's hash: the embedder's cost skipped.

    It carries MiniLM's key, name and dimension, so the build is opened as a MiniLM build (and
    queried with the real MiniLM query model): the dense arm's cost is real, its ranking is not.
    """

    def __init__(self) -> None:
        from orchestration.retrieval.embedder import EMBEDDERS

        model = EMBEDDERS["minilm"]
        self.key, self.name, self.dim, self.threads = "minilm", model.name, int(model.dim), None

    @property
    def loaded(self) -> bool:
        return True

    def warm_up(self) -> None:
        return None

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
            out[i] = np.random.default_rng(seed).standard_normal(self.dim, dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._vectors(texts)

    def passages(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self._vectors(texts)


# --- the build (a child process) -------------------------------------------------------------------

def _config(data_dir: Path, ef_construction: int | None, backend: str = "local") -> Any:
    """The scale KB's config: the local backend, or `milvus` in a milvus-lite file under `data_dir`."""
    from orchestration.kb.config import KBConfig, KBSettings

    settings = KBSettings(name=KB)
    if ef_construction is not None:
        settings = replace(settings, dense=replace(settings.dense, ef_construction=ef_construction))
    config = KBConfig(data_dir=data_dir, embedder="minilm", embedder_threads=None, knowledge_bases={KB: settings})
    return config.on_milvus(data_dir, str(data_dir / MILVUS_DIR / "scale.db"), prefix="") if backend == "milvus" \
        else config


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss() -> dict[str, float]:
    """This process's resident MB: all, anonymous (its own) and file-backed (mapped index pages, the
    page cache that every worker mapping the same build shares)."""
    fields = {"VmRSS:": "total", "RssAnon:": "anon", "RssFile:": "file"}
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key = line.split(maxsplit=1)[0] if line else ""
        if key in fields:
            out[fields[key]] = round(int(line.split()[1]) / 1024, 1)
    return out


def build(corpus: Path, data_dir: Path, ef_construction: int | None, backend: str = "local") -> dict[str, Any]:
    """Ingest the corpus with the product's ingest; seconds per stage, peak RSS, disk per file
    (on the milvus backend, the milvus-lite file's folder apart: `milvus_mb`)."""
    from orchestration.kb.ingest import ingest

    config = _config(data_dir, ef_construction, backend)
    marks: list[tuple[str, float]] = [("read", time.perf_counter())]
    report = ingest(config.get(KB), config.kb_dir(KB), RandomUnitEmbedder(), paths=[corpus], progress=False,
                    on_stage=lambda name: marks.append((name, time.perf_counter())))
    marks.append(("end", time.perf_counter()))
    stages = {name: round(marks[i + 1][1] - t, 1) for i, (name, t) in enumerate(marks[:-1])}
    build_dir = report.build_dir
    assert build_dir is not None
    files = {str(p.relative_to(build_dir)): p.stat().st_size for p in sorted(build_dir.rglob("*")) if p.is_file()}
    manifest = json.loads((build_dir / "manifest.json").read_text(encoding="utf-8"))
    return {"documents": report.documents, "chunks": report.chunks, "seconds": round(report.seconds, 1),
            "stages": stages, "peak_rss_mb": round(_peak_rss_mb(), 1), "dense_kind": manifest["settings"]["dense_kind"],
            "dense_params": dict(config.get(KB).dense.__dict__), "skipped": len(report.skipped),
            "disk_mb": {name: round(size / 2**20, 1) for name, size in files.items()},
            "disk_total_mb": round(sum(files.values()) / 2**20, 1), "backend": backend,
            "milvus_mb": disk_mb(data_dir / MILVUS_DIR) if backend == "milvus" else None}


# --- the worker (a fresh child process) ------------------------------------------------------------

def _summary(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(values, 0.5), 2), "p95_ms": round(percentile(values, 0.95), 2),
            "n": len(values)}


def worker(data_dir: Path, ef_construction: int | None, queries: int, questions: int, seed: int,
           backend: str = "local") -> dict[str, Any]:
    """Open the KB as a serving worker does (the loop and its one Retriever), then time the arms,
    a self-check and the loop (on the milvus backend each arm is a search of the milvus-lite
    collection, in this process)."""
    from evaluation.builds import eval_loop
    from orchestration.retrieval.search import SearchRequest
    from orchestration.trace import Trace
    from server.bootstrap import limit_threads

    limit_threads(2)  # one worker per core: FAISS and the embedder on one thread, as `serve --workers 2`
    config = _config(data_dir, ef_construction, backend)
    rss = {"imports": _rss()}
    started = time.perf_counter()
    loop = eval_loop(config, KB)  # maps the KB, loads MiniLM's query model and spaCy NER
    retriever = loop.retriever
    open_s = time.perf_counter() - started
    rss["opened"] = _rss()
    kb = retriever.kb(KB)
    assert kb.store is not None
    texts, rows, asked, sampler = worker_texts(kb.store.count(), queries, questions, seed)
    times: dict[str, list[float]] = {"keyword": [], "dense": [], "hybrid": []}
    embed: list[float] = []
    for i, text in enumerate(texts):
        for mode in times:
            retriever.forget_vectors()  # a new question: dense and hybrid embed it
            t0 = time.perf_counter()
            retriever.run([SearchRequest(id="q", kb=KB, query=text, search=SEARCH[mode])], Trace(), NOW)
            if i:  # the first query of each mode warms what a served worker has warm
                times[mode].append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        retriever.embedder.queries([text + " again"])
        embed.append((time.perf_counter() - t0) * 1000)
    # self-check: four of a stored chunk's rarer words find that chunk in the keyword arm's top 10
    rank = {w: r for r, w in enumerate(sampler.words.tolist())}
    hits, probes = 0, []
    for chunk in kb.store.get_rows([int(r) for r in rows]):
        words = sorted(set(_WORD.findall(chunk.text.lower())), key=lambda w: -rank.get(w, -1))[:4]
        query = " ".join(words)
        found = retriever.run([SearchRequest(id="c", kb=KB, query=query, search="keyword")], Trace(), NOW)[0]
        hit = any(s.chunk_id == chunk.chunk_id for s in found)
        hits += hit
        probes.append({"query": query, "chunk_id": chunk.chunk_id, "found": hit,
                       "top_text_has_words": bool(found) and all(w in found[0].text.lower() for w in words)})
    rss["after_queries"] = _rss()
    loop_ms = _loop_times(loop, asked)
    rss["after_loop"] = _rss()
    return {"open_s": round(open_s, 2), "rss_mb": rss, "peak_rss_mb": round(_peak_rss_mb(), 1),
            "latency": {**{mode: _summary(v) for mode, v in times.items()}, "embed_query": _summary(embed),
                        "loop": _summary(loop_ms)},
            "self_check": {"found": hits, "of": len(probes), "probes": probes[:5]},
            "dense_kind": kb.dense.kind if kb.dense is not None else None}


def worker_texts(chunks: int, queries: int, questions: int, seed: int
                 ) -> tuple[list[str], np.ndarray, list[str], Sampler]:
    """What the worker stage asks of a KB of `chunks` chunks, drawn in one order from `seed`: its
    `queries` retrieval queries (2-5 words), the self-check's rows (20 at most), its `questions`
    + 1 loop questions (the first untimed) of QUESTION_FORMS, and the sampler that drew them
    (benchmarks/worker_memory.py replays the same texts over HTTP)."""
    sampler = Sampler(*vocabulary(), seed=seed + 7)
    rng = np.random.default_rng(seed + 7)
    texts = [" ".join(sampler.content(int(rng.integers(2, 6)))) for _ in range(queries)]
    rows = rng.choice(chunks, size=min(20, chunks), replace=False)
    asked = [QUESTION_FORMS[i % len(QUESTION_FORMS)].format(
        *(" ".join(sampler.content(int(rng.integers(1, 3)))) for _ in range(2))) for i in range(questions + 1)]
    return texts, rows, asked, sampler


def _loop_times(loop: Any, asked: list[str]) -> list[float]:
    """`AnswerLoop.answer` ms over the questions (the first one untimed)."""
    from server.context import RequestContext
    from server.loop import AskRequest

    out = []
    for i, question in enumerate(asked):
        loop.retriever.forget_vectors()
        t0 = time.perf_counter()
        loop.answer(AskRequest(query=question, context=RequestContext.create(NOW)))
        if i:
            out.append((time.perf_counter() - t0) * 1000)
    return out


# --- the run -----------------------------------------------------------------------------------------

def _child(stage: str, args: argparse.Namespace, **paths: Path) -> dict[str, Any]:
    """Run one stage in a fresh interpreter and return its JSON (the last line of its stdout)."""
    command = [sys.executable, "-m", "benchmarks.scale", "--stage", stage, "--chunks", str(args.chunks),
               "--queries", str(args.queries), "--questions", str(args.questions), "--seed", str(args.seed),
               "--backend", args.backend]
    if args.ef_construction is not None:
        command += ["--ef-construction", str(args.ef_construction)]
    for name, path in paths.items():
        command += [f"--{name}", str(path)]
    done = subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _rss_cell(rss: dict[str, float]) -> str:
    return f"{rss['total']:,.0f} MB ({rss['anon']:,.0f} own, {rss['file']:,.0f} mapped files)"


def table(figures: dict[str, Any]) -> str:
    """The report as Markdown."""
    b, w, c = figures["build"], figures["worker"], figures["corpus"]
    lat = w["latency"]
    params = b["dense_params"]
    dense = f"{b['dense_kind']}" + (f" (M {params['hnsw_m']}, efConstruction {params['ef_construction']}, "
                                    f"efSearch {params['ef_search']})" if b["dense_kind"] == "hnsw" else "")
    engine = b.get("backend", "local")
    rows = [
        ("backend", "milvus (milvus-lite in the process: the BM25 function and a FLAT index; the local build "
                    "is written too)" if engine == "milvus" else "local (FAISS + BM25 files)"),
        ("chunks / documents", f"{b['chunks']:,} / {b['documents']:,}"),
        ("corpus", f"{c['bytes'] / 2**20:,.0f} MB JSONL, written in {c['seconds']} s; vocabulary {c['vocabulary']:,} "
                   "words by their frequency in the PEPs; vectors random (not MiniLM)"),
        ("dense index", dense),
        ("build", f"{b['seconds']:,} s ({', '.join(f'{k} {v}' for k, v in b['stages'].items())})"),
        ("build peak RSS", f"{b['peak_rss_mb']:,.0f} MB"),
        ("disk", f"{b['disk_total_mb']:,.0f} MB ("
                 + ", ".join(f"{k} {v:,.0f}" for k, v in b["disk_mb"].items() if v >= 1) + ")"
                 + (f"; milvus-lite {b['milvus_mb']:,.0f} MB" if engine == "milvus" else "")),
        ("worker open", f"{w['open_s']} s"),
        *[(f"worker RSS {when.replace('_', ' ')}", _rss_cell(w["rss_mb"][when]))
          for when in ("opened", "after_queries", "after_loop")],
        ("worker peak RSS", f"{w['peak_rss_mb']:,.0f} MB"),
        *[(f"{mode} query p50 / p95", f"{lat[mode]['p50_ms']} / {lat[mode]['p95_ms']} ms ({lat[mode]['n']} queries)")
          for mode in ("keyword", "dense", "hybrid")],
        ("query embedding alone p50 / p95", f"{lat['embed_query']['p50_ms']} / {lat['embed_query']['p95_ms']} ms"),
        ("loop (AnswerLoop.answer) p50 / p95", f"{lat['loop']['p50_ms']} / {lat['loop']['p95_ms']} ms "
                                               f"({lat['loop']['n']} questions)"),
        ("keyword self-check", f"{w['self_check']['found']} of {w['self_check']['of']} chunks found in the top 10 by "
                               "4 of their words"),
    ]
    return "\n".join(["| what | figure |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, help="work folder (corpus and KB; kept); default a temporary one")
    parser.add_argument("--ef-construction", type=int, help="HNSW efConstruction (default the config's, 200)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", choices=("local", "milvus"), default="local",
                        help="the search backend: local (default) or milvus (milvus-lite in the process)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--stage", choices=("build", "worker"), help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage == "build":
        print(json.dumps(build(args.corpus, args.data, args.ef_construction, args.backend)))
        return 0
    if args.stage == "worker":
        print(json.dumps(worker(args.data, args.ef_construction, args.queries, args.questions, args.seed,
                                args.backend)))
        return 0
    scratch = None if args.out else Path(tempfile.mkdtemp(prefix="sightline-scale-"))
    root = args.out or scratch
    assert root is not None
    root.mkdir(parents=True, exist_ok=True)
    try:
        corpus = root / "corpus.jsonl"
        print(f"writing about {args.chunks:,} chunks of synthetic text to {corpus}", file=sys.stderr)
        figures: dict[str, Any] = {"chunks_asked": args.chunks, "corpus": write_corpus(corpus, args.chunks, args.seed)}
        if (root / "data").exists():
            shutil.rmtree(root / "data")
        print(f"building ({figures['corpus']['documents']:,} documents)", file=sys.stderr)
        figures["build"] = _child("build", args, corpus=corpus, data=root / "data")
        print("opening in a fresh worker and querying", file=sys.stderr)
        figures["worker"] = _child("worker", args, data=root / "data")
        figures["machine"] = {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()]}
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    print(table(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
