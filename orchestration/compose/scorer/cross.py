"""The reader: a cross-encoder that reads a candidate unit where it stands and says how strongly it
answers a question.

all-MiniLM-L6-v2 (Apache-2.0) fine-tuned as a cross-encoder, [CLS] question [SEP] reading [SEP]
-> one logit, where the reading (`reading_of`) is the unit, its document title and headings, and
the text before it. Trained on SQuAD 2.0 train (answerable and unanswerable questions, their
tempting sentences first), hard negatives made by rule, the written documentation set's fit
corpora and SelQA (evaluation/answers/reader/: pairs, training, figures, licences); int8 weights
(`cross_encoder.onnx`, beside this file) on onnxruntime + tokenizers, no torch. Its logit is read
with the answer model's (scorer/model.py `rerank_score`).

Inputs as in training: the reading is cut to MAX_TOKENS WordPiece tokens from its end (the unit
comes first, so its context goes before it does; the question is never cut), with the
vocabulary of orchestration/retrieval/models/minilm-tokenizer.json.
Each pair runs alone, unpadded, on one intra-op thread (a thread team costs more than it saves on
short inputs, and spin-waits under contention), as the embedder's query session: a pair's logit
does not depend on the other texts of the call (int8 activations are scaled per run, so in a
padded batch it would), and 8 single runs took less time than one padded batch of 8 (44 vs 53 ms).
In a process that forks workers (`forking.held()`) no session is made and onnxruntime is not
imported: `warm_up()` leaves it to each worker, and `logits()` there raises.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import ConfigError
from orchestration.compose.sentences import Candidate, chunk_units
from orchestration.kb.units import HEADING
from orchestration.retrieval import forking
from orchestration.retrieval.embedder import TOKENIZER

MODEL = Path(__file__).with_name("cross_encoder.onnx")
UNIT_CHARS, HEADING_CHARS, BEFORE_CHARS = 300, 100, 160  # what a reading keeps of each part


def reading_of(candidate: Candidate) -> str:
    """What the cross-encoder reads of a unit: the unit, then
    where it stands: its document title and headings, and the text before it (a list item: the
    sentence introducing its list; else the unit before it in its chunk), as
    "<unit> | <title > heading > ...> | <text before>". The unit comes first so that truncation
    cuts its context, never the unit; the training pairs (evaluation/answers/reader/pairs.py)
    are made by this same function."""
    headings: list[str] = []
    for heading in (candidate.chunk.title or "", *candidate.path):
        heading = " ".join(str(heading).split())
        if heading and heading not in headings:
            headings.append(heading)
    before = candidate.lead or _text_before(candidate)
    parts = [candidate.text[:UNIT_CHARS], " > ".join(headings)[:HEADING_CHARS],
             " ".join(before.split())[-BEFORE_CHARS:]]
    return " | ".join(parts).strip(" |")


def _text_before(candidate: Candidate) -> str:
    """The text of the unit that ends last before the candidate in its chunk ("" when none)."""
    ends = [u for u in chunk_units(candidate.chunk) if u.end <= candidate.start and u.type != HEADING]
    return ends[-1].text_in(candidate.chunk.text) if ends else ""


class CrossEncoder:
    """The int8 ONNX cross-encoder; the constructor only records where the model is."""

    name = "minilm-l6-reader-int8"
    MAX_TOKENS = 160  # the pair, as in training (evaluation/answers/reader/train.py --max-len)
    CACHE_PAIRS = 4096  # (question, text) logits kept per process

    def __init__(self, model: Path = MODEL, threads: int = 1) -> None:
        self.model = Path(model)
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], float] = {}

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def warm_up(self) -> None:
        """Load the session; in a process that forks workers, nothing (each worker loads its own)."""
        if forking.held():
            return
        self._load()

    def _load(self) -> Any:
        if self._session is not None:
            return self._session
        if forking.held():
            raise RuntimeError("onnxruntime must not be loaded in a process that forks workers "
                               "(orchestration/retrieval/forking.py): score in the workers")
        with self._lock:
            if self._session is not None:
                return self._session
            try:
                import onnxruntime as ort
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise ConfigError(f"the cross-encoder needs onnxruntime and tokenizers ({exc.name} is missing); "
                                  "run `make setup`", field="cross_encoder") from exc
            if not self.model.is_file():
                raise ConfigError(f"the cross-encoder model {self.model} is missing", field="cross_encoder")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no Rayon pool to break on fork
            tokenizer = Tokenizer.from_file(str(TOKENIZER))
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=self.MAX_TOKENS, strategy="only_second")
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            options.enable_cpu_mem_arena = False
            options.log_severity_level = 3
            session = ort.InferenceSession(str(self.model), options, providers=["CPUExecutionProvider"])
            self._tokenizer = tokenizer
            self._session = session
            return session

    def logits(self, question: str, readings: Sequence[str]) -> list[float]:
        """One logit per reading (`reading_of` a unit): higher, more likely that the unit answers
        `question` (0 = even odds on the training pairs, where about 15 in 100 were positive)."""
        if not readings:
            return []
        pairs = [(question, reading) for reading in readings]
        missing = [pair for pair in dict.fromkeys(pairs) if pair not in self._cache]
        if missing:
            session = self._load()
            for pair, encoding in zip(missing, self._tokenizer.encode_batch(missing), strict=True):
                ids = np.array([encoding.ids], dtype=np.int64)
                types = np.array([encoding.type_ids], dtype=np.int64)
                logits = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                            "token_type_ids": types})[0]
                self._remember(pair, float(logits[0, 0]))
        return [self._cache[pair] for pair in pairs]

    def _remember(self, pair: tuple[str, str], logit: float) -> None:
        """Keep a pair's logit (a retry composes the same question over mostly the same evidence:
        each pair is read once); the oldest of CACHE_PAIRS go first."""
        with self._lock:
            self._cache[pair] = logit
            while len(self._cache) > self.CACHE_PAIRS:
                self._cache.pop(next(iter(self._cache)))


@functools.cache
def get_cross_encoder() -> CrossEncoder:
    """The process-wide cross-encoder (one session per process)."""
    return CrossEncoder()
