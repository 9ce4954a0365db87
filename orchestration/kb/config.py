"""Typed settings of the knowledge bases, loaded from config/knowledge_bases.yaml.

Errors name the file, the knowledge base, the key and the fix; unknown keys are refused
(a typo must not silently fall back to a default).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from core import configfile as check
from core.configfile import Where
from core.errors import ConfigError, UnknownKnowledgeBase
from core.names import NAME_RULE, check_name, is_valid_name
from core.yamlconfig import parse_yaml

from .. import paths
from ..retrieval.dense import DenseParams
from ..retrieval.embedder import EMBEDDERS
from ..retrieval.fusion import METHODS
from ..retrieval.query_terms import COUNTED, QUERY_TERMS
from .metadata import MAPPABLE_FIELDS, MEANINGFUL_FIELDS, field_key

ARMS = ("keyword", "vector")
BACKENDS = ("local", "milvus")


@dataclass(frozen=True)
class ArmFusion:
    """How one task's keyword and vector arms are fused in this KB (across tasks: router TaskFusion)."""

    method: str = "rrf"
    k: float = 60.0
    weights: dict[str, float] = field(default_factory=lambda: {"keyword": 1.0, "vector": 1.0})


@dataclass(frozen=True)
class KeywordQuery:
    """How this KB's keyword arm reads a query (query time: no rebuild when it changes).

    query_terms: "counted" (default: a repeated term adds its weight per occurrence, as
    rank-bm25's BM25Okapi) or "unique" (each distinct term once): retrieval/query_terms.py.
    """

    query_terms: str = COUNTED


@dataclass(frozen=True)
class MilvusSettings:
    """Where a KB on the `milvus` backend lives (docs/SCALE.md).

    uri: a file path (milvus-lite in this process) or `http(s)://host:19530` (a cluster).
    collection: the alias serving the current build; each build's own collection is
        `<collection>__<build id>`.
    token_env: the environment variable holding the cluster's token (read when connecting;
        never written to config).
    """

    uri: str
    collection: str
    token_env: str | None = None


@dataclass(frozen=True)
class KBSettings:
    """One knowledge base: where its documents are and how it is chunked, indexed and fused."""

    name: str
    paths: tuple[Path, ...] = ()
    description: str = ""
    chunk_words: int = 200
    overlap_words: int = 30
    candidates: int = 100
    max_age_days: int | None = None
    dense: DenseParams = DenseParams()
    fusion: ArmFusion = ArmFusion()
    bm25: KeywordQuery = KeywordQuery()
    # field with a meaning -> the documents' own names for it (replacing its default aliases)
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the embedder of its dense arm; None: chosen at ingest from the documents' language
    embedder: str | None = None
    # where both arms search: "local" (the build's BM25 and FAISS files) or "milvus" (`milvus:`)
    backend: str = "local"
    milvus: MilvusSettings | None = None


@dataclass(frozen=True)
class KBConfig:
    """The whole file: data directory, embedder and every knowledge base."""

    data_dir: Path
    embedder: str
    embedder_threads: int | None
    knowledge_bases: dict[str, KBSettings]
    source: Path | None = None

    def get(self, name: str) -> KBSettings:
        """Settings of a knowledge base by name; UnknownKnowledgeBase lists the known ones."""
        if name not in self.knowledge_bases:
            raise UnknownKnowledgeBase(
                f"unknown knowledge base '{name}'; known: {', '.join(sorted(self.knowledge_bases)) or 'none'}",
                field="kb")
        return self.knowledge_bases[name]

    def only(self, name: str) -> KBConfig:
        """The same config restricted to one knowledge base (the others need not be built)."""
        return replace(self, knowledge_bases={name: self.get(name)})

    def on_milvus(self, data_dir: Path, uri: str, prefix: str = "sightline_") -> KBConfig:
        """The same knowledge bases on the milvus backend: builds under `data_dir`, every KB's
        collection `<prefix><name>` in the engine at `uri` (a file path runs milvus-lite here).

        A separate data directory keeps both backends' builds of a KB side by side: switching
        one KB's backend in place would rebuild it each time.
        """
        return replace(self, data_dir=Path(data_dir), knowledge_bases={
            name: replace(s, backend="milvus", milvus=MilvusSettings(uri=str(uri), collection=f"{prefix}{name}"))
            for name, s in self.knowledge_bases.items()})

    def kb_dir(self, name: str) -> Path:
        """The directory holding builds of a knowledge base (RequestError for a name that is not
        letters, digits, '-' or '_': a name never escapes the data directory)."""
        return self.data_dir / "kb" / check_name(name, "knowledge base name", field="kb")


def _fusion(where: Where, data: Any, base: ArmFusion) -> ArmFusion:
    data = check.mapping(where, data, ("method", "k", "weights"))
    method = check.choice(where.at("method"), data.get("method", base.method), sorted(METHODS), "fusion method")
    k = check.number(where.at("k"), data.get("k", base.k), minimum=1)
    weights = dict(base.weights)
    given = check.mapping(where.at("weights"), data.get("weights"), ARMS)
    for arm, weight in given.items():
        weights[arm] = check.number(where.at("weights").at(arm), weight, minimum=0)
    if not any(weights.values()):
        raise where.at("weights").fail("at least one arm needs a weight above 0")
    return ArmFusion(method=method, k=k, weights=weights)


def _bm25(where: Where, data: Any, base: KeywordQuery) -> KeywordQuery:
    """`bm25: {query_terms: unique}`: the keyword arm's query settings, over `base`."""
    data = check.mapping(where, data, ("query_terms",))
    if "query_terms" not in data:
        return base
    return KeywordQuery(query_terms=check.choice(where.at("query_terms"), data["query_terms"], QUERY_TERMS,
                                                 "query_terms mode"))


def _fields(where: Where, data: Any, base: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """`fields: {published_at: created_at, author: [writers, by]}`: each field with a meaning and
    the documents' own names for it (first present wins); added to the defaults' mapping."""
    data = check.mapping(where, data, MAPPABLE_FIELDS)
    out = dict(base)
    for name, given in data.items():
        sources = check.strings(where.at(name), given, "document field name")
        for source in sources:
            other = next((f for f in MEANINGFUL_FIELDS if field_key(f) == field_key(source)), name)
            if other != name:
                raise where.at(name).fail(f"'{source}' is the field {other} itself; give the name your documents "
                                          f"use for {name}")
        out[name] = sources
    fed: dict[str, str] = {}
    for name, sources in out.items():
        for source in sources:
            first = fed.setdefault(field_key(source), name)
            if first != name:
                raise where.at(name).fail(f"'{source}' is mapped to both {first} and {name}; "
                                          "map each document field to one field")
    return out


def _milvus(where: Where, name: str, data: Any, base_dir: Path) -> MilvusSettings:
    """`milvus: {uri, collection, token_env}`; a uri without a scheme is a milvus-lite file
    resolved against `base_dir`; the collection defaults to `sightline_<name>`."""
    data = check.mapping(where, data, ("uri", "collection", "token_env"), required=("uri",))
    uri = str(data["uri"])
    if "://" not in uri:
        uri = str(paths.resolve(uri, base_dir))
    elif not uri.startswith(("http://", "https://")):
        raise where.at("uri").fail(f"'{uri}' must be a file path (milvus-lite) or an http(s):// address")
    collection = str(data.get("collection") or f"sightline_{name.replace('-', '_')}")
    if not collection.replace("_", "a").isalnum() or not collection[0].isalpha():
        raise where.at("collection").fail(f"'{collection}' must start with a letter and hold letters, digits, '_'")
    token_env = data.get("token_env")
    return MilvusSettings(uri=uri, collection=collection, token_env=str(token_env) if token_env else None)


def _kb(where: Where, name: str, data: Any, defaults: KBSettings, base_dir: Path) -> KBSettings:
    data = check.mapping(where, data, sorted({f.name for f in fields(KBSettings)} - {"name"}))
    settings = replace(defaults, name=name)
    if "paths" in data:
        raw = data["paths"]
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not raw:
            raise where.at("paths").fail("must be a list of files or folders to ingest")
        settings = replace(settings, paths=tuple(paths.resolve(p, base_dir) for p in raw))
    for key in ("chunk_words", "overlap_words", "candidates"):
        if key in data:
            value = check.integer(where.at(key), data[key], minimum=1 if key != "overlap_words" else 0)
            update: dict[str, Any] = {key: value}
            settings = replace(settings, **update)
    if settings.overlap_words >= settings.chunk_words:
        raise where.at("overlap_words").fail(f"must be smaller than chunk_words ({settings.chunk_words})")
    if data.get("max_age_days") is not None:
        settings = replace(settings, max_age_days=check.integer(where.at("max_age_days"), data["max_age_days"],
                                                                 minimum=1))
    if "description" in data:
        settings = replace(settings, description=str(data["description"]))
    if "dense" in data:
        dense = check.mapping(where.at("dense"), data["dense"], [f.name for f in fields(DenseParams)])
        for key, value in dense.items():
            check.integer(where.at("dense").at(key), value, minimum=1)
        settings = replace(settings, dense=replace(settings.dense, **dense))
    if "fusion" in data:
        settings = replace(settings, fusion=_fusion(where.at("fusion"), data["fusion"], settings.fusion))
    if "bm25" in data:
        settings = replace(settings, bm25=_bm25(where.at("bm25"), data["bm25"], settings.bm25))
    if "fields" in data:
        settings = replace(settings, fields=_fields(where.at("fields"), data["fields"], settings.fields))
    if data.get("embedder") is not None:
        settings = replace(settings, embedder=check.choice(where.at("embedder"), data["embedder"],
                                                           sorted(EMBEDDERS), "embedder"))
    if "backend" in data:
        settings = replace(settings, backend=check.choice(where.at("backend"), data["backend"], BACKENDS, "backend"))
    if "milvus" in data:
        if name == "defaults":
            raise where.at("milvus").fail("set milvus per knowledge base: each needs its own collection")
        settings = replace(settings, milvus=_milvus(where.at("milvus"), name, data["milvus"], base_dir))
    if settings.backend == "milvus" and settings.milvus is None and name != "defaults":
        raise where.at("milvus").fail("backend: milvus needs `milvus: {uri: ...}` (a file path or a cluster address)")
    return settings


def parse_kb_config(data: Any, source: str = "knowledge_bases.yaml", base_dir: Path = paths.REPO_ROOT,
                    data_dir: Path | None = None) -> KBConfig:
    """Build a KBConfig from the parsed YAML mapping; ConfigError names file, key and fix.

    Document paths resolve against `base_dir`; the data directory always against the repo root.
    """
    top = Where(source, "", "")
    data = check.mapping(top, data, ("data_dir", "embedder", "defaults", "knowledge_bases"),
                         required=("knowledge_bases",))
    embedder = data.get("embedder", {"name": "minilm"})
    if isinstance(embedder, str):
        embedder = {"name": embedder}
    embedder = check.mapping(top.at("embedder"), embedder, ("name", "threads"))
    defaults = _kb(top.at("defaults"), "defaults", data.get("defaults"), KBSettings(name="defaults"), base_dir)
    kbs_raw = data.get("knowledge_bases")
    if not isinstance(kbs_raw, dict) or not kbs_raw:
        raise top.at("knowledge_bases").fail("must map at least one name to its settings")
    kbs = {}
    for name, body in kbs_raw.items():
        if not is_valid_name(name):
            raise top.at("knowledge_bases").fail(f"knowledge base name {ascii(name)} must be {NAME_RULE}")
        kbs[name] = _kb(top.at("knowledge_bases").at(name), name, body, defaults, base_dir)
    root = data_dir or (paths.resolve(data["data_dir"]) if data.get("data_dir") else paths.data_dir())
    return KBConfig(data_dir=root, embedder=str(embedder.get("name", "minilm")),
                    embedder_threads=embedder.get("threads"), knowledge_bases=kbs)


def load_kb_config(path: Path | None = None) -> KBConfig:
    """Load and validate config/knowledge_bases.yaml (or `path`)."""
    path = path or paths.config_dir() / "knowledge_bases.yaml"
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})", field=str(path)) from exc
    data = parse_yaml(raw, str(path))
    env_dir = paths.data_dir() if os.environ.get("SIGHTLINE_DATA_DIR") else None
    config = parse_kb_config(data, source=str(path), data_dir=env_dir)
    return replace(config, source=path)
