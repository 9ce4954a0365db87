"""Typed settings of the knowledge bases, loaded from config/knowledge_bases.yaml.

Errors name the file, the knowledge base, the key and the fix; unknown keys are refused
(a typo must not silently fall back to a default).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from core.errors import ConfigError, UnknownKnowledgeBase
from core.names import NAME_RULE, check_name, is_valid_name
from core.yamlconfig import parse_yaml

from .. import paths
from ..retrieval.dense import DenseParams
from ..retrieval.fusion import METHODS

ARMS = ("keyword", "vector")


@dataclass(frozen=True)
class ArmFusion:
    """How one task's keyword and vector arms are fused in this KB (across tasks: router TaskFusion)."""

    method: str = "rrf"
    k: float = 60.0
    weights: dict[str, float] = field(default_factory=lambda: {"keyword": 1.0, "vector": 1.0})


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

    def kb_dir(self, name: str) -> Path:
        """The directory holding builds of a knowledge base (RequestError for a name that is not
        letters, digits, '-' or '_': a name never escapes the data directory)."""
        return self.data_dir / "kb" / check_name(name, "knowledge base name", field="kb")


def _fail(where: str, message: str) -> ConfigError:
    return ConfigError(f"{where}: {message}", field=where)


def _check_keys(where: str, data: dict, allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")


def _number(where: str, value: Any, *, minimum: float, integer: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        raise _fail(where, f"must be {'an integer' if integer else 'a number'}, got {value!r}")
    if value < minimum:
        raise _fail(where, f"must be at least {minimum}, got {value}")
    return value


def _fusion(where: str, data: dict, base: ArmFusion) -> ArmFusion:
    _check_keys(where, data, {"method", "k", "weights"})
    method = data.get("method", base.method)
    if method not in METHODS:
        raise _fail(f"{where}.method", f"unknown method '{method}'; known: {', '.join(sorted(METHODS))}")
    k = _number(f"{where}.k", data.get("k", base.k), minimum=1)
    weights = dict(base.weights)
    for arm, weight in (data.get("weights") or {}).items():
        if arm not in ARMS:
            raise _fail(f"{where}.weights", f"unknown arm '{arm}'; arms: {', '.join(ARMS)}")
        weights[arm] = float(_number(f"{where}.weights.{arm}", weight, minimum=0))
    if not any(weights.values()):
        raise _fail(f"{where}.weights", "at least one arm needs a weight above 0")
    return ArmFusion(method=method, k=float(k), weights=weights)


def _kb(where: str, name: str, data: dict, defaults: KBSettings, base_dir: Path) -> KBSettings:
    allowed = {f.name for f in fields(KBSettings)} - {"name"}
    _check_keys(where, data, allowed)
    settings = replace(defaults, name=name)
    if "paths" in data:
        raw = data["paths"]
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not raw:
            raise _fail(f"{where}.paths", "must be a list of files or folders to ingest")
        settings = replace(settings, paths=tuple(paths.resolve(p, base_dir) for p in raw))
    for key in ("chunk_words", "overlap_words", "candidates"):
        if key in data:
            value = int(_number(f"{where}.{key}", data[key], minimum=1 if key != "overlap_words" else 0, integer=True))
            update: dict[str, Any] = {key: value}
            settings = replace(settings, **update)
    if settings.overlap_words >= settings.chunk_words:
        raise _fail(f"{where}.overlap_words", f"must be smaller than chunk_words ({settings.chunk_words})")
    if data.get("max_age_days") is not None:
        max_age_days = int(_number(f"{where}.max_age_days", data["max_age_days"], minimum=1, integer=True))
        settings = replace(settings, max_age_days=max_age_days)
    if "description" in data:
        settings = replace(settings, description=str(data["description"]))
    if "dense" in data:
        dense = data["dense"] or {}
        _check_keys(f"{where}.dense", dense, {f.name for f in fields(DenseParams)})
        for key, value in dense.items():
            _number(f"{where}.dense.{key}", value, minimum=1, integer=True)
        settings = replace(settings, dense=replace(settings.dense, **dense))
    if "fusion" in data:
        settings = replace(settings, fusion=_fusion(f"{where}.fusion", data["fusion"] or {}, settings.fusion))
    return settings


def parse_kb_config(data: Any, source: str = "knowledge_bases.yaml", base_dir: Path = paths.REPO_ROOT,
                    data_dir: Path | None = None) -> KBConfig:
    """Build a KBConfig from the parsed YAML mapping; ConfigError names file, key and fix.

    Document paths resolve against `base_dir`; the data directory always against the repo root.
    """
    if not isinstance(data, dict):
        raise _fail(source, "must be a mapping with a 'knowledge_bases' key")
    _check_keys(source, data, {"data_dir", "embedder", "defaults", "knowledge_bases"})
    embedder = data.get("embedder", {"name": "minilm"})
    if isinstance(embedder, str):
        embedder = {"name": embedder}
    _check_keys(f"{source}: embedder", embedder, {"name", "threads"})
    defaults = _kb(f"{source}: defaults", "defaults", data.get("defaults") or {}, KBSettings(name="defaults"), base_dir)
    kbs_raw = data.get("knowledge_bases")
    if not isinstance(kbs_raw, dict) or not kbs_raw:
        raise _fail(source, "'knowledge_bases' must map at least one name to its settings")
    kbs = {}
    for name, body in kbs_raw.items():
        if not is_valid_name(name):
            raise _fail(source, f"knowledge base name {ascii(name)} must be {NAME_RULE}")
        kbs[name] = _kb(f"{source}: knowledge_bases.{name}", name, body or {}, defaults, base_dir)
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
