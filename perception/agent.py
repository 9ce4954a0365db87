"""The Perception agent: query + now -> Perception, deterministic and explained.

Contract (as every Sightline component): the constructor is cheap and takes plain values;
`warm_up()` loads the config, jieba and the spaCy model; `run()` returns a Perception and never
raises on any query text. Rules run first; the statistical NER (English) only adds people,
organisations and places the rules do not know. Without the spaCy model the agent runs
rules-only and logs one warning.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path

from perception.actions import ActionRules
from perception.config import PerceptionConfig, load_config
from perception.entities import EntityRules, overlaps
from perception.filters import FilterRules, distinct_values
from perception.keywords import KeywordRules
from perception.language import detect_language
from perception.ner import StatisticalNER
from perception.publications import unknown_publications
from perception.question import question_kind, read_query
from perception.slots import slot_head
from perception.timeexpr import TimeRules
from perception.types import Constraints, Entity, Perception

log = logging.getLogger(__name__)


def _as_names(names: Iterable[str]) -> tuple[str, ...]:
    """Distinct non-empty source names, in the order given."""
    return tuple(dict.fromkeys(str(n).strip() for n in names if n and str(n).strip()))


def coerce_now(now: date | datetime | str) -> date:
    """The reference date: a date as is, a datetime's UTC date, an ISO string parsed.

    There is no default: the request's date comes from its context (server/context.py), so
    every layer of one request reads the same day."""
    if isinstance(now, datetime):
        return (now.astimezone(UTC) if now.tzinfo else now).date()
    if isinstance(now, date):
        return now
    return date.fromisoformat(str(now).strip()[:10])


class PerceptionAgent:
    """Understands one query at a time; safe to share between threads after `warm_up()`."""

    def __init__(self, config_path: str | Path | None = None, use_ner: bool = True,
                 known_sources: Iterable[str] = ()) -> None:
        """Store settings only; nothing is loaded until `warm_up()` (or the first `run()`).

        Args:
            config_path: the perception YAML; None = config/perception.yaml (or
                $SIGHTLINE_CONFIG_DIR/perception.yaml).
            use_ner: add spaCy statistical NER (English) on top of the rules.
            known_sources: source names from the knowledge bases' `source` metadata.
        """
        self.config_path = Path(config_path) if config_path is not None else None
        self.use_ner = use_ner
        self.known_sources = _as_names(known_sources)
        self._lock = threading.Lock()
        self._ready = False
        self.config: PerceptionConfig | None = None

    # --- lifecycle --------------------------------------------------------------------------

    def warm_up(self, eager: bool = True) -> None:
        """Load and validate the config, compile the rules, load jieba and (if enabled) spaCy.

        Args:
            eager: load jieba's dictionary and the spaCy model now (a service, before it forks);
                False leaves them to the first query that needs them (a one-shot command: an
                English query never reads jieba's dictionary, one without a capitalised word
                outside the rule entities never loads spaCy).

        Raises:
            ConfigError: the config file is missing or invalid (message names key and fix).
        """
        if self._ready:
            return
        with self._lock:
            if self._ready:
                return
            cfg = load_config(self.config_path)
            self.config = cfg
            self._entities = EntityRules(cfg, self.known_sources)
            self._time = TimeRules(cfg)
            self._actions = ActionRules(cfg)
            self._filters = FilterRules(cfg)
            self._keywords = KeywordRules(cfg)
            if eager:
                self._keywords.warm_up()
            skip = set(cfg.stopwords_en) | set(cfg.time.months)
            self._ner = (StatisticalNER(cfg.ner_model, cfg.ner_labels, cfg.ner_context_tokens, skip)
                         if self.use_ner else None)
            if self._ner is not None and eager:
                self._ner.load()
            self._ready = True

    @property
    def ner_available(self) -> bool:
        """True when statistical NER is enabled and its model loaded."""
        self.warm_up()
        return bool(self._ner is not None and self._ner.available)

    def set_known_sources(self, names: Iterable[str]) -> None:
        """Replace the publication names recognised as sources (distinct KB `source` values)."""
        self.known_sources = names if isinstance(names, tuple) else _as_names(names)
        if self._ready:
            self._entities.set_known_sources(self.known_sources)

    # --- work -------------------------------------------------------------------------------

    def extract_entities(self, text: str) -> list[Entity]:
        """Rule entities only (codes, quoted names, glossary terms, known sources); no NER."""
        self.warm_up()
        return self._entities.extract(text if isinstance(text, str) else str(text or ""))

    def run(self, query: str, now: date | datetime | str) -> Perception:
        """Understand one query.

        Args:
            query: the user's question (any text; None is read as "").
            now: the reference date for relative times: the request's (RequestContext.now).

        Returns:
            A Perception; the same query and now always give the same Perception.
        """
        self.warm_up()
        assert self.config is not None  # warm_up loaded it or raised
        text = query if isinstance(query, str) else ("" if query is None else str(query))
        today = coerce_now(now)
        try:
            return self._run(text, today)
        except Exception as exc:  # noqa: BLE001 - a query must never fail the request
            log.exception("perception failed on a query; returning the default perception")
            return Perception(query=text, language="en", action=self.config.default_action,
                              notes=[{"rule": "perception.error", "text": f"{type(exc).__name__}: {exc}"}])

    def _run(self, text: str, now: date) -> Perception:
        """The pipeline behind `run()`."""
        cfg = self.config
        assert cfg is not None  # run() warmed up
        notes: list[dict] = []
        language = detect_language(text, cfg.zh_han_per_latin_word)
        notes.append({"rule": "language", "text": "", "produced": {"language": language}})

        # entities: rules first; time phrases (rule entities are protected: "Business Today" is a
        # source); then NER for the capitalised words neither explains
        entities = self._entities.extract(text)
        protected = tuple(e.span for e in entities if e.origin == "rule")
        found = self._time.find(text, now, (), protected)
        covered = [e.span for e in entities if e.label != "QUOTED"] + [(p.start, p.end) for p in found.phrases]
        if self._ner is not None and language == "en" and (
                self._ner.available is not None or self._ner.may_need(text, covered)):
            if self._ner.load():
                ner_entities, date_spans = self._ner.entities(
                    text, entities, [(p.start, p.end) for p in found.phrases])
                rule_spans = [e.span for e in entities if e.label != "QUOTED"]
                entities += [e for e in ner_entities if not overlaps(e.span, rule_spans)]
                if date_spans:   # NER DATE spans no rule understood -> time.not_understood
                    found = self._time.find(text, now, tuple(date_spans), protected)
            else:
                notes.append({"rule": "ner.unavailable", "text": self._ner.error})

        # time
        time_spans = [(p.start, p.end) for p in found.phrases]
        entities = [e for e in entities if e.label == "QUOTED" or not overlaps(e.span, time_spans)]
        entities.sort(key=lambda e: (e.span[0], -e.span[1], e.label))
        for p in found.phrases:
            notes.append({"rule": p.rule, "span": [p.start, p.end], "text": p.text,
                          "produced": {"start": p.lo.isoformat() if p.lo else None,
                                       "end": p.hi.isoformat() if p.hi else None}})
        for start, end, phrase in found.not_understood:
            notes.append({"rule": "time.not_understood", "span": [start, end], "text": phrase,
                          "produced": None})

        # filters
        names = [e.span for e in entities if e.label == "SOURCE"]   # "Sporting News article"
        statuses = [h for h in self._filters.statuses(text) if not overlaps((h.start, h.end), names)]
        doc_types = [h for h in self._filters.doc_types(text, statuses) if not overlaps((h.start, h.end), names)]
        quant = [h for h in self._filters.quantitative(text) if not overlaps((h.start, h.end), names)]
        notes += [h.note() for h in statuses + doc_types]
        if quant:
            notes.append(quant[0].note())
        sources: list[str] = []
        for e in entities:
            if e.label == "SOURCE":
                hit_sources = self._source_targets(e)
                sources += hit_sources
                notes.append({"rule": "source", "span": list(e.span), "text": e.text,
                              "produced": {"source": hit_sources}})
        for e in entities:
            if e.label != "SOURCE":
                notes.append({"rule": f"entity.{e.origin}", "span": list(e.span), "text": e.text,
                              "produced": {"label": e.label, "normalized": e.normalized}})

        action, action_notes = self._actions.classify(text, entities)
        notes += action_notes
        source_spans = [e.span for e in entities if e.label == "SOURCE"]
        keywords = self._keywords.keywords(text, language, entities, time_spans + source_spans)
        constraints = Constraints(time=found.window, status=distinct_values(statuses),
                                  doc_type=distinct_values(doc_types),
                                  source=list(dict.fromkeys(sources)), quantitative=bool(quant),
                                  unknown_sources=self._unknown_sources(text))
        row = question_kind(cfg.question_kinds, text, action, constraints.quantitative)
        if row is not None and row.kind == "meaning" and quant:
            # "What does SLA mean?" asks for a definition: its "mean" is no average
            constraints = replace(constraints, quantitative=False)
            notes = [n for n in notes if n != quant[0].note()]
        slot = row.slot if row else "fact"
        head = slot_head(text, slot)
        question = read_query(cfg, text, action, constraints.quantitative, head)
        notes.append({"rule": f"slot.{row.rule if row else 'default'}", "text": text,
                      "produced": {"slot": slot, "kind": question.kind, **({"head": head} if head else {}),
                                   **({"unit": question.unit} if question.unit else {})}})
        return Perception(query=text, language=language, action=action, entities=entities,
                          constraints=constraints, keywords=keywords, notes=notes, question=question)

    def _unknown_sources(self, text: str) -> list[str]:
        """Publications the query cites that no known source covers (perception/publications.py)."""
        def covers(name: str) -> bool:  # a known source or alias is the whole name ("The" and "'s" aside)
            bare = re.sub(r"['’]s$", "", name)
            return any(h.start == 0 and h.end >= len(text) for text in (bare, re.sub(r"^[Tt]he\s+", "", bare))
                       for h in self._entities.find_sources(text))

        return unknown_publications(text, self.known_sources, covers)

    def _source_targets(self, entity: Entity) -> list[str]:
        """The KB source names a SOURCE entity stands for (several for an ambiguous alias)."""
        for hit in self._entities.find_sources(entity.text):
            if hit.start == 0 and hit.end == len(entity.text):
                return list(hit.sources)
        return [entity.normalized]


# --- module-level conveniences ------------------------------------------------------------------
# Stateless: the source names are an argument, never a module global (an agent is the one
# place that holds state; these cache agents by their settings).


@functools.lru_cache(maxsize=8)
def default_agent(use_ner: bool = True, config_path: str | None = None,
                  known_sources: tuple[str, ...] = ()) -> PerceptionAgent:
    """A warmed agent per (use_ner, config_path, known_sources), shared by `parse()`."""
    agent = PerceptionAgent(config_path=config_path, use_ner=use_ner, known_sources=known_sources)
    agent.warm_up()
    return agent


def parse(query: str, now: date | datetime | str, **kw) -> Perception:
    """`PerceptionAgent(**kw).run(query, now)` with a cached agent.

    Args:
        query: the question.
        now: the reference date of relative times.
        **kw: use_ner (default True), config_path, known_sources (the KBs' source names).
    """
    config_path = kw.get("config_path")
    return default_agent(kw.get("use_ner", True), str(config_path) if config_path is not None else None,
                         _as_names(kw.get("known_sources", ()))).run(query, now)


@functools.lru_cache(maxsize=8)
def _entity_rules(config_path: str | None, known_sources: tuple[str, ...]) -> EntityRules:
    """Cached rule-only entity extractor for `extract_entities` (no spaCy, no jieba)."""
    return EntityRules(load_config(config_path), known_sources)


def extract_entities(text: str, config_path: str | Path | None = None,
                     known_sources: Iterable[str] = ()) -> list[Entity]:
    """Fast rule-only entities for ingest: codes, quoted names, glossary terms, known sources.

    Never loads spaCy or jieba; well under a millisecond for a 200-word chunk.

    Args:
        text: a chunk or any text.
        config_path: a perception YAML other than the default.
        known_sources: source names to recognise as SOURCE entities.

    Returns:
        Entities ordered by span.
    """
    rules = _entity_rules(str(config_path) if config_path is not None else None, _as_names(known_sources))
    return rules.extract(text if isinstance(text, str) else str(text or ""))
