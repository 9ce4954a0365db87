"""An answer-sentence cross-encoder: how strongly a candidate sentence answers a question.

all-MiniLM-L6-v2 (Apache-2.0) fine-tuned as a cross-encoder, [CLS] question [SEP] sentence [SEP]
-> one logit, on SQuAD 2.0 train articles (rows collected by the real retrieval loop, label: the
sentence holds a gold answer) and SelQA; int8 weights (`cross_encoder.onnx`, beside this file) on
onnxruntime + tokenizers, no torch. Training, export, data, licences and dev figures:
evaluation/answers/cross_encoder/README.md. The logit is one feature of the answer model; SQuAD
2.0's unanswerable questions (a plausible but wrong sentence in the paragraph) are what it is for.

Inputs as in training: the candidate is cut to its first 300 characters, the pair to 128 WordPiece
tokens (longest first), with the vocabulary of orchestration/retrieval/models/minilm-tokenizer.json.
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
from orchestration.retrieval import forking
from orchestration.retrieval.embedder import TOKENIZER

MODEL = Path(__file__).with_name("cross_encoder.onnx")


class CrossEncoder:
    """The int8 ONNX cross-encoder; the constructor only records where the model is."""

    name = "minilm-l6-cross-encoder-int8"
    MAX_TOKENS = 128  # the pair, as in training
    MAX_CHARS = 300  # the candidate, as in training (the collected rows were cut there)
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
            tokenizer.enable_truncation(max_length=self.MAX_TOKENS, strategy="longest_first")
            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            options.enable_cpu_mem_arena = False
            options.log_severity_level = 3
            session = ort.InferenceSession(str(self.model), options, providers=["CPUExecutionProvider"])
            self._tokenizer = tokenizer
            self._session = session
            return session

    def logits(self, question: str, texts: Sequence[str]) -> list[float]:
        """One logit per text: higher, more likely that the text answers `question` (0 = even odds
        on the training data, where about 3 rows in 100 were positive)."""
        if not texts:
            return []
        pairs = [(question, text[:self.MAX_CHARS]) for text in texts]
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
