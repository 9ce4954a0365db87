"""config/router.yaml as typed, read-only objects, validated at load (DESIGN.md section 6).

`load_router_config()` reads a file; `parse_router_config()` checks already-parsed YAML. Both
return a `RouterConfig` or raise `ConfigError` naming the file, the place (rule, section) and
the fix, e.g. "config/router.yaml: rule 'time-keyword': unknown kb 'regs'; known: manuals,
policies, reports". Unknown keys are refused with the list of allowed keys. The config's
`version` is the first 12 hex digits of the SHA-256 of the file bytes: every plan carries it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import configfile as schema
from core.configfile import Where
from core.errors import ConfigError
from core.vocab import ALL_ISSUE_KINDS, DOC_TYPE_VALUES, ENTITY_LABELS, SEARCH_TYPES, STATUS_VALUES, SUBJECT_LABELS
from core.yamlconfig import config_version, parse_yaml

from .. import paths
from ..retrieval.credibility import CredibilityParams
from ..retrieval.fusion import METHODS
from .adjust import ACTIONS as HINT_ACTIONS
from .adjust import SUGGESTED
from .conditions import Condition, parse_condition
from .templates import Template, parse_template

FOR_EACH = ("entity", "source")
ALL_KBS = "*"
PERCEPTION = "perception"
# entities a `for_each: entity` iterates over unless the emit lists `entity_labels`
DEFAULT_FOR_EACH_LABELS = tuple(label for label in ENTITY_LABELS if label in SUBJECT_LABELS)
RESERVED_RULE_NAMES = ("fallback",)

ACROSS_KBS = ("relevance", "per_kb")
_TOP_KEYS = ("defaults", "limits", "fusion", "credibility", "retry", "rules")
_RULE_KEYS = ("name", "enabled", "why", "when", "unless", "emit")
_EMIT_KEYS = ("kb", "search", "weight", "priority", "top_k", "query", "filters", "for_each", "cap",
              "entity_labels", "why")
_FILTER_KEYS = ("time", "time_pad_days", "keep_undated", "status", "doc_type", "source", "exclude_status")
_DEFAULT_KEYS = ("search", "weight", "priority", "top_k", "query")


@dataclass(frozen=True)
class PlanLimits:
    """Bounds on a plan.

    Attributes:
        max_tasks: most tasks in one plan (lowest priority, then lowest weight, dropped first).
        candidates_per_task: the largest top_k a task may have (after `widen` and request top_k).
        max_retries: extra attempts after validation finds issues (a request may ask for fewer).
        max_evidence: chunks the composer receives at most.
        context_budget_words: words of evidence the composer receives at most.
        for_each_cap: the default and the largest `cap` of a for_each.
    """

    max_tasks: int = 10
    candidates_per_task: int = 50
    max_retries: int = 2
    max_evidence: int = 8
    context_budget_words: int = 1200
    for_each_cap: int = 4


@dataclass(frozen=True)
class TaskFusion:
    """Cross-task fusion: method (a key of retrieval.fusion.METHODS) and the RRF constant k.

    `across_kbs`: "relevance" (one task emitted for several KBs searches them as one corpus, so
    they share its top_k by relevance) or "per_kb" (each KB's search is its own task: every KB
    gets its best chunks into the evidence however weak they are).
    """

    method: str = "rrf"
    k: float = 60.0
    across_kbs: str = "relevance"


@dataclass(frozen=True)
class FilterSpec:
    """How an emitted task's filters are built.

    Attributes:
        time: "perception" (the query's time window) or "none".
        time_pad_days: days added on both sides of the perceived window.
        keep_undated: whether undated chunks pass a time window.
        status, doc_type, source: "perception" (the query's values, no filter when it has none)
            or fixed allowed values.
        exclude_status: statuses never returned, unless the query asks for that status.
    """

    time: str = "none"
    time_pad_days: int = 0
    keep_undated: bool = False
    status: str | tuple[str, ...] = ()
    doc_type: str | tuple[str, ...] = ()
    source: str | tuple[str, ...] = ()
    exclude_status: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskSpec:
    """One `emit:` item: the template of one or more tasks.

    Attributes:
        kbs: knowledge base names, or ("*",) for every known one.
        search: "hybrid", "keyword" or "vector".
        weight: 0..1, the task's weight in cross-task fusion.
        priority: lower wins when max_tasks cuts the plan.
        top_k: results the task contributes.
        query: the query template.
        filters: how the filters are built.
        for_each: "entity", "source" or None (one task per kb).
        cap: the most tasks a for_each emits per kb.
        entity_labels: the entity labels a for_each entity (and {entities}, {topic}) counts.
        why: the reason template (falls back to the rule's, then to an automatic sentence).
    """

    kbs: tuple[str, ...]
    search: str
    weight: float
    priority: int
    top_k: int
    query: Template
    filters: FilterSpec
    for_each: str | None = None
    cap: int = 4
    entity_labels: tuple[str, ...] = DEFAULT_FOR_EACH_LABELS
    why: Template | None = None


@dataclass(frozen=True)
class Rule:
    """A routing rule: when `when` holds and `unless` does not, emit the tasks."""

    name: str
    when: Condition
    emit: tuple[TaskSpec, ...]
    unless: Condition | None = None
    why: Template | None = None
    enabled: bool = True


@dataclass(frozen=True)
class RouterConfig:
    """Everything config/router.yaml says, validated.

    Attributes:
        rules: in file order (the order tasks are emitted in before ranking).
        limits: plan bounds.
        fusion: cross-task fusion settings.
        credibility: the credibility multiplier's parameters.
        retry: issue kind -> the hint actions allowed for it (others are ignored).
        version: first 12 hex digits of the SHA-256 of the file bytes.
        source: the file it came from.
        known_kbs: the knowledge base names rules were checked against ("*" expands to these).
        defaults: the emit defaults (search, weight, priority, top_k, query) after parsing.
        text: the exact YAML text it was parsed from ("" when built from data), so nobody
            re-reads the file to show or snapshot what is serving.
    """

    rules: tuple[Rule, ...]
    limits: PlanLimits = field(default_factory=PlanLimits)
    fusion: TaskFusion = field(default_factory=TaskFusion)
    credibility: CredibilityParams = field(default_factory=CredibilityParams)
    retry: dict[str, tuple[str, ...]] = field(default_factory=dict)
    version: str = ""
    source: str = ""
    known_kbs: tuple[str, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)
    text: str = field(default="", compare=False, repr=False)


# --- sections -------------------------------------------------------------------------------

def _limits(where: Where, data: Any) -> PlanLimits:
    """The `limits` section; every value a positive integer (max_retries may be 0)."""
    names = [f.name for f in dataclasses.fields(PlanLimits)]
    data = schema.mapping(where, data, names)
    values = {name: schema.integer(where.at(name), value, minimum=0 if name == "max_retries" else 1)
              for name, value in data.items()}
    return PlanLimits(**values)


def _fusion(where: Where, data: Any) -> TaskFusion:
    """The `fusion` section: a known method and a positive k."""
    data = schema.mapping(where, data, ("method", "k", "across_kbs"))
    method = schema.choice(where.at("method"), data.get("method", "rrf"), tuple(METHODS), "fusion method")
    k = schema.number(where.at("k"), data.get("k", 60), minimum=0, exclusive_minimum=True)
    across = schema.choice(where.at("across_kbs"), data.get("across_kbs", "relevance"), ACROSS_KBS,
                           "way of sharing a task's results between knowledge bases")
    return TaskFusion(method, k, across)


def _credibility(where: Where, data: Any) -> CredibilityParams:
    """The `credibility` section (the same keys orchestration.kb.registry reads)."""
    names = [f.name for f in dataclasses.fields(CredibilityParams)]
    data = schema.mapping(where, data, names)
    if "status" in data:
        statuses = schema.mapping(where.at("status"), data["status"], STATUS_VALUES)
        for name, value in statuses.items():
            schema.number(where.at("status").at(name), value, minimum=0)
    try:
        return CredibilityParams(**data)
    except (TypeError, ValueError) as exc:
        raise where.fail(str(exc)) from exc


def _retry(where: Where, data: Any) -> dict[str, tuple[str, ...]]:
    """The `retry` section: issue kind -> allowed hint actions (an empty list allows none)."""
    data = schema.mapping(where, data, ALL_ISSUE_KINDS)
    out = {}
    for kind, actions in data.items():
        out[kind] = () if actions in (None, []) else schema.choices(where.at(kind), actions, HINT_ACTIONS,
                                                                     "hint action")
        never = [a for a in out[kind] if a not in SUGGESTED[kind]]
        if never:
            raise where.at(kind).fail(
                f"validation never suggests {', '.join(never)} for {kind}, so allowing it would do nothing; "
                f"for {kind} it suggests {', '.join(SUGGESTED[kind])}")
    return out


def _defaults(where: Where, data: Any) -> dict[str, Any]:
    """The `defaults` section: values every emit item inherits."""
    data = schema.mapping(where, data, _DEFAULT_KEYS)
    return {
        "search": schema.choice(where.at("search"), data.get("search", "hybrid"), SEARCH_TYPES, "search type"),
        "weight": schema.number(where.at("weight"), data.get("weight", 1.0), minimum=0, maximum=1),
        "priority": schema.integer(where.at("priority"), data.get("priority", 5), minimum=0),
        "top_k": schema.integer(where.at("top_k"), data.get("top_k", 10), minimum=1),
        "query": schema.text(where.at("query"), data.get("query", "{query}")),
    }


# --- rules ----------------------------------------------------------------------------------

def _values_or_perception(where: Where, value: Any, allowed: Sequence[str] | None, what: str
                          ) -> str | tuple[str, ...]:
    """"perception", or fixed values (checked against `allowed` when given)."""
    if value == PERCEPTION:
        return PERCEPTION
    values = schema.strings(where, value, what)
    for item in values:
        if allowed is not None and item not in allowed:
            raise where.fail(f"unknown {what} '{item}'; known: {schema.known(allowed)}"
                             f"{schema.suggest(item, allowed)}, or '{PERCEPTION}' for the query's own values")
    return values


def _filters(where: Where, data: Any, for_each: str | None) -> FilterSpec:
    """An emit item's `filters` mapping."""
    data = schema.mapping(where, data, _FILTER_KEYS)
    spec: dict[str, Any] = {}
    if "time" in data:
        spec["time"] = schema.choice(where.at("time"), data["time"], (PERCEPTION, "none"), "time source")
    if "time_pad_days" in data:
        spec["time_pad_days"] = schema.integer(where.at("time_pad_days"), data["time_pad_days"], minimum=0)
    if "keep_undated" in data:
        spec["keep_undated"] = schema.boolean(where.at("keep_undated"), data["keep_undated"])
    for name, allowed in (("status", STATUS_VALUES), ("doc_type", DOC_TYPE_VALUES), ("source", None)):
        if name in data:
            spec[name] = _values_or_perception(where.at(name), data[name], allowed, name)
    if "source" in data and for_each == "source":
        raise where.at("source").fail("for_each: source already filters each task to its source; remove 'source'")
    if "exclude_status" in data:
        spec["exclude_status"] = schema.choices(where.at("exclude_status"), data["exclude_status"],
                                                STATUS_VALUES, "status")
    return FilterSpec(**spec)


def _kbs(where: Where, value: Any, known_kbs: Sequence[str]) -> tuple[str, ...]:
    """`kb:` as a tuple of names, or ("*",); every name must be a known knowledge base."""
    if value == ALL_KBS:
        return (ALL_KBS,)
    names = schema.strings(where.at("kb"), value, "kb")
    here = Where(where.source, where.section, where.at("kb").field)
    for name in names:
        if name not in known_kbs:
            raise here.fail(f"unknown kb '{name}'; known: {schema.known(known_kbs)}"
                             f"{schema.suggest(name, known_kbs)} (or '*' for all)")
    return names


def _emit(where: Where, data: Any, defaults: dict[str, Any], known_kbs: Sequence[str],
          limits: PlanLimits) -> TaskSpec:
    """One emit item."""
    data = schema.mapping(where, data, _EMIT_KEYS, required=("kb",))
    for_each = (schema.choice(where.at("for_each"), data["for_each"], FOR_EACH, "for_each")
                if "for_each" in data else None)
    if "cap" in data and for_each is None:
        raise where.at("cap").fail("'cap' needs 'for_each: entity' or 'for_each: source'")
    cap = schema.integer(where.at("cap"), data.get("cap", limits.for_each_cap), minimum=1,
                         maximum=limits.for_each_cap)
    labels = DEFAULT_FOR_EACH_LABELS
    if "entity_labels" in data:
        labels = schema.choices(where.at("entity_labels"), data["entity_labels"], ENTITY_LABELS, "entity label")
    return TaskSpec(
        kbs=_kbs(where, data["kb"], known_kbs),
        search=schema.choice(where.at("search"), data.get("search", defaults["search"]), SEARCH_TYPES, "search type"),
        weight=schema.number(where.at("weight"), data.get("weight", defaults["weight"]), minimum=0, maximum=1),
        priority=schema.integer(where.at("priority"), data.get("priority", defaults["priority"]), minimum=0),
        top_k=schema.integer(where.at("top_k"), data.get("top_k", defaults["top_k"]), minimum=1,
                             maximum=limits.candidates_per_task),
        query=parse_template(where.at("query"), data.get("query", defaults["query"]), for_each),
        filters=_filters(where.at("filters"), data.get("filters"), for_each),
        for_each=for_each, cap=cap, entity_labels=labels,
        why=parse_template(where.at("why"), data["why"], for_each) if "why" in data else None,
    )


def _rule(where: Where, data: Any, names: set[str], defaults: dict[str, Any], known_kbs: Sequence[str],
          limits: PlanLimits) -> Rule:
    """One rule; `names` collects the names seen so far (they must be unique)."""
    if not isinstance(data, dict):
        raise where.fail(f"expected a mapping with keys {schema.known(_RULE_KEYS)}, got {type(data).__name__}")
    name = schema.text(where.at("name"), data.get("name")) if "name" in data else None
    if name is None:
        raise where.fail("missing key 'name'; give every rule a unique name")
    where = Where(where.source, f"rule '{name}'", where.field)
    schema.mapping(where, data, _RULE_KEYS, required=("when", "emit"))
    if name in names or name in RESERVED_RULE_NAMES or name.startswith("retry:"):
        raise where.fail("the name is already used; rule names must be unique and not 'fallback' or 'retry:...'")
    names.add(name)
    emit = data["emit"]
    if not isinstance(emit, list) or not emit:
        raise where.at("emit").fail("must be a non-empty list of task templates")
    items = []
    for i, item in enumerate(emit):
        label = where.section if len(emit) == 1 else f"{where.section}, emit #{i + 1}"
        items.append(_emit(Where(where.source, label, f"{where.field}.emit[{i}]"), item, defaults, known_kbs, limits))
    return Rule(
        name=name,
        when=parse_condition(where.at("when"), data["when"]),
        unless=parse_condition(where.at("unless"), data["unless"]) if "unless" in data else None,
        emit=tuple(items),
        why=_rule_why(where, data, items),
        enabled=schema.boolean(where.at("enabled"), data.get("enabled", True)),
    )


def _rule_why(where: Where, data: dict, items: list[TaskSpec]) -> Template | None:
    """The rule-level `why`, checked against every emit's for_each."""
    if "why" not in data:
        return None
    for_each = {item.for_each for item in items}
    return parse_template(where.at("why"), data["why"], for_each.pop() if len(for_each) == 1 else None)


# --- entry points ---------------------------------------------------------------------------

def parse_router_config(data: Any, source: str, known_kbs: Sequence[str], version: str | None = None,
                        text: str = "") -> RouterConfig:
    """Validate parsed YAML into a RouterConfig.

    Args:
        data: the YAML document (a mapping).
        source: the file name shown in errors.
        known_kbs: the knowledge base names rules may use.
        version: the content hash; by default a hash of `data` (canonical JSON).
        text: the YAML text `data` was parsed from, kept on the config.

    Raises:
        ConfigError: any problem, with the file, the place and the fix in the message.
    """
    known_kbs = tuple(known_kbs)
    top = Where(source, "", "")
    data = schema.mapping(top, data, _TOP_KEYS, required=("rules",))
    limits = _limits(top.at("limits"), data.get("limits"))
    defaults = _defaults(top.at("defaults"), data.get("defaults"))
    rules_data = data["rules"]
    if not isinstance(rules_data, list) or not rules_data:
        raise top.at("rules").fail("must be a non-empty list of rules")
    names: set[str] = set()
    rules = tuple(_rule(Where(source, f"rules[{i}]", f"rules[{i}]"), r, names, defaults, known_kbs, limits)
                  for i, r in enumerate(rules_data))
    if version is None:
        canonical = json.dumps(data, sort_keys=True, default=str, ensure_ascii=False)
        version = config_version(canonical)
    return RouterConfig(
        rules=rules, limits=limits,
        fusion=_fusion(top.at("fusion"), data.get("fusion")),
        credibility=_credibility(top.at("credibility"), data.get("credibility")),
        retry=_retry(top.at("retry"), data.get("retry")),
        version=version, source=source, known_kbs=known_kbs, defaults=defaults, text=text,
    )


def _shown(path: Path) -> str:
    """The path as operators see it: relative to the repository root when inside it."""
    try:
        return str(path.resolve().relative_to(paths.REPO_ROOT))
    except ValueError:
        return str(path)


def load_router_config(path: Path | None = None, known_kbs: Sequence[str] | None = None) -> RouterConfig:
    """Read and validate a router config file.

    Args:
        path: the YAML file; default config_dir()/"router.yaml".
        known_kbs: the knowledge base names rules may use; default the names in
            knowledge_bases.yaml.

    Raises:
        ConfigError: the file is missing, not YAML, or invalid (the message says where and how to fix).
    """
    path = Path(path) if path is not None else paths.config_dir() / "router.yaml"
    shown = _shown(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read the router config ({exc.strerror})", field=shown) from exc
    data = parse_yaml(raw, shown)
    if known_kbs is None:
        from ..kb.config import load_kb_config
        known_kbs = list(load_kb_config().knowledge_bases)
    return parse_router_config(data, shown, known_kbs, version=config_version(raw),
                               text=raw.decode("utf-8", "replace"))
