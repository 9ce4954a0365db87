"""The trained reader as int8 ONNX (with torch + transformers + onnxruntime).

Reads the fp16 weights that train.py saved (weights.000.. and the layout in scores_final.npz),
rebuilds BertForSequenceClassification (eager attention, fp32), exports it to ONNX (opset 17;
inputs input_ids / attention_mask / token_type_ids of shape [batch, sequence], output logits
[batch, 1]) and quantizes the weights to int8 (onnxruntime quantize_dynamic, QInt8, per channel).
Checks the fp32 ONNX against torch on a few pairs.

Usage: python evaluation/answers/reader/export.py --run DIR --data .ce \
           --out orchestration/compose/scorer/cross_encoder.onnx
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from encoder_pack import build_model  # noqa: E402


def load_final(run: Path, data: Path):
    import torch

    layout = json.loads(str(np.load(run / "scores_final.npz")["index"]))
    blob = b"".join((run / f"weights.{i:03d}").read_bytes() for i in range(layout["pieces"]))
    if len(blob) != layout["bytes"]:
        raise RuntimeError(f"weights: {len(blob)} bytes, the layout says {layout['bytes']}")
    model = build_model(data, attn="eager")
    state = {}
    for spec in layout["tensors"]:
        count = int(np.prod(spec["shape"])) if spec["shape"] else 1
        value = np.frombuffer(blob, dtype=np.float16, count=count, offset=spec["offset"]).reshape(spec["shape"])
        state[spec["name"]] = torch.from_numpy(value.astype(np.float32))
    result = model.load_state_dict(state, strict=False)
    params = {name for name, _ in model.named_parameters()}
    missing = [k for k in result.missing_keys if k in params]
    if missing or result.unexpected_keys:
        raise RuntimeError(f"missing {missing}, unexpected {result.unexpected_keys}")
    model.eval()
    return model, layout["max_len"]


def main() -> None:
    import onnx
    import onnxruntime as ort
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer

    parser = argparse.ArgumentParser()
    parser.add_argument("--run", type=Path, required=True, help="the files train.py wrote on the device")
    parser.add_argument("--data", type=Path, default=Path(".ce"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    model, max_len = load_final(args.run, args.data)
    tokenizer = Tokenizer.from_file(str(args.data / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=max_len)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    pairs = [("What is the capital of France?", "Paris is the capital and most populous city of France."),
             ("When did the war end?", "The weather was mild that spring."),
             ("Who wrote Hamlet?", "Hamlet is a tragedy by William Shakespeare, written between 1599 and 1601.")]
    enc = tokenizer.encode_batch(pairs)
    feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
    inputs = tuple(torch.from_numpy(feed[k]) for k in ("input_ids", "attention_mask", "token_type_ids"))
    with torch.no_grad():
        reference = model(*inputs).logits.numpy()
    longer = pairs + [("Why?", "Because " * 80), ("Q", "A short one.")]
    enc = tokenizer.encode_batch(longer)
    batch = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
             "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64),
             "token_type_ids": np.array([e.type_ids for e in enc], dtype=np.int64)}
    alone = []
    for e in enc:
        n = sum(e.attention_mask)
        with torch.no_grad():
            alone.append(float(model(input_ids=torch.tensor([e.ids[:n]]),
                                     attention_mask=torch.tensor([e.attention_mask[:n]]),
                                     token_type_ids=torch.tensor([e.type_ids[:n]])).logits[0, 0]))

    class Wrapper(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).logits

    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / "cross_encoder.fp32.onnx"
        axes = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                "token_type_ids": {0: "batch", 1: "sequence"}, "logits": {0: "batch"}}
        torch.onnx.export(Wrapper(model), inputs, str(fp32), opset_version=17, dynamo=False,
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["logits"], dynamic_axes=axes, do_constant_folding=True)
        onnx.checker.check_model(str(fp32))
        session = ort.InferenceSession(str(fp32), providers=["CPUExecutionProvider"])
        got = session.run(None, feed)[0]
        print("torch logits", reference.ravel(), "fp32 onnx", got.ravel(),
              "max abs diff", float(np.abs(got - reference).max()))
        if np.abs(got - reference).max() > 1e-3:
            raise RuntimeError("the fp32 ONNX model does not match torch")
        # other batch sizes and widths, padded, against each pair alone in torch (computed before the
        # export: the model is not used after it)
        got = session.run(None, batch)[0].ravel()
        print("shape", batch["input_ids"].shape, "padded onnx", got, "unpadded torch", np.array(alone))
        if np.abs(got - np.array(alone)).max() > 1e-3:
            raise RuntimeError("the fp32 ONNX model does not handle other shapes or padding")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        quantize_dynamic(str(fp32), str(args.out), weight_type=QuantType.QInt8, per_channel=True)
    session = ort.InferenceSession(str(args.out), providers=["CPUExecutionProvider"])
    print("int8 onnx", session.run(None, feed)[0].ravel(), f"size {args.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
