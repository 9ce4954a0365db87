"""Train the reader: all-MiniLM-L6-v2 fine-tuned as a cross-encoder on the pairs of pairs.py, on
the CPU (bf16 autocast, what these cores run fastest) or one GPU, in one process.

Input [CLS] question [SEP] reading [SEP] (the reading: `cross.reading_of`, the unit first), cut to
--max-len WordPiece tokens from the reading's end (the question is never cut). BCE on the logit,
AdamW (weight decay 0.01, none on biases and LayerNorm), 6 % linear warm-up then linear decay,
gradient norm clipped at 1; batches of similar lengths (sorted within blocks of 50 batches, then
shuffled) so padding costs little. --train-seconds bounds the run: the schedule is planned from
the time of steps 20-60, so the learning rate still decays to 0 in time.

Output (--out): scores.npz (the logits of every reader_<name>.jsonl.gz scored), scores_final.npz
and weights.000.. in the layout export.py reads,
log.txt.

Usage: python evaluation/answers/reader/train.py --data .ce [--model-dir DIR] --out RUN [--cpu]
(without --model-dir the encoder comes from .ce/minilm_int8.npz: encoder_pack.py)
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

CHUNK = 16_000_000  # bytes per weights piece (the device returns files under 16 MiB)
SCORED = ("choose_squad", "choose_docs", "report_squad", "report_docs")


def log(out: Path, *parts) -> None:
    line = f"[{time.strftime('%H:%M:%S')}] " + " ".join(str(p) for p in parts)
    print(line, flush=True)
    with open(out / "log.txt", "a") as handle:
        handle.write(line + "\n")


def read_jsonl(path: Path, limit: int | None = None) -> list[dict]:
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


class Encoded:
    """Token ids of (question, reading) pairs, padded to one width, with their lengths and labels."""

    def __init__(self, tokenizer, rows: list[dict]) -> None:
        encodings = tokenizer.encode_batch([(r["q"], r["s"]) for r in rows]) if rows else []
        self.lengths = np.array([len(e.ids) for e in encodings], dtype=np.int64)
        width = int(self.lengths.max()) if rows else 1
        self.ids = np.zeros((len(rows), width), dtype=np.int64)
        self.types = np.zeros((len(rows), width), dtype=np.int64)
        for i, e in enumerate(encodings):
            self.ids[i, :len(e.ids)] = e.ids
            self.types[i, :len(e.ids)] = e.type_ids
        self.y = np.array([r.get("y", 0) for r in rows], dtype=np.float32)


def batches(lengths: np.ndarray, batch: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Batches of rows of similar length: a random order, sorted by length within blocks of 50
    batches, the batches shuffled."""
    order = rng.permutation(len(lengths))
    out = []
    block = batch * 50
    for start in range(0, len(order), block):
        part = order[start:start + block]
        part = part[np.argsort(lengths[part], kind="stable")]
        out += [part[i:i + batch] for i in range(0, len(part), batch)]
    rng.shuffle(out)
    return out


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    pos, neg = scores[y > 0], scores[y <= 0]
    if not len(pos) or not len(neg):
        return float("nan")
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def load_model(args):
    from transformers import BertForSequenceClassification

    if args.model_dir:
        return BertForSequenceClassification.from_pretrained(str(args.model_dir), num_labels=1)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from encoder_pack import build_model  # the int8 pack (encoder_pack.py) the device machine gets

    return build_model(args.data)


def main() -> int:
    import torch
    from tokenizers import Tokenizer

    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path(".ce"))
    parser.add_argument("--model-dir", type=Path, help="all-MiniLM-L6-v2 (model.safetensors, config.json)")
    parser.add_argument("--tokenizer", type=Path, default=Path("orchestration/retrieval/models/minilm-tokenizer.json"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-len", type=int, default=160)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--limit", type=int, default=None, help="fit pairs (a smoke test)")
    parser.add_argument("--train-seconds", type=float, default=2400.0)
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    device = torch.device("cuda" if torch.cuda.is_available() and not args.cpu else "cpu")
    torch.manual_seed(36)
    rng = np.random.default_rng(36)
    tokenizer = Tokenizer.from_file(str(args.tokenizer))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=args.max_len, strategy="only_second")
    fit = Encoded(tokenizer, read_jsonl(args.data / "reader_fit.jsonl.gz", args.limit))
    log(args.out, f"torch {torch.__version__} on {device}, {torch.get_num_threads()} threads; fit pairs "
        f"{len(fit.y):,} ({int(fit.y.sum()):,} positive), mean {fit.lengths.mean():.1f} tokens, "
        f"at the cap {(fit.lengths >= args.max_len).mean():.4f}; {time.time() - started:.1f} s")

    model = load_model(args).to(device)
    decay = [p for n, p in model.named_parameters() if not (n.endswith("bias") or "LayerNorm" in n)]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)
    plan = {"total": max(1, int(math.ceil(len(fit.y) / args.batch) * args.epochs))}
    warmup = max(1, int(0.06 * plan["total"]))

    def lr_at(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (plan["total"] - step) / max(1, plan["total"] - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    deadline = started + args.train_seconds
    model.train()
    step, t0, running = 0, time.time(), []
    while step < plan["total"]:
        for rows in batches(fit.lengths, args.batch, rng):
            if step >= plan["total"] or time.time() > deadline:
                break
            width = int(fit.lengths[rows].max())
            ids = torch.from_numpy(fit.ids[rows, :width]).to(device)
            types = torch.from_numpy(fit.types[rows, :width]).to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16):
                logits = model(input_ids=ids, attention_mask=(ids != 0).long(), token_type_ids=types).logits
            loss = loss_fn(logits.float().squeeze(-1), torch.from_numpy(fit.y[rows]).to(device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            running.append(loss.item())
            if step == 20:
                t20 = time.time()
            if step == 60:
                per_step = (time.time() - t20) / 40
                affordable = int((deadline - time.time()) / per_step * 0.95) + step
                log(args.out, f"{per_step * 1000:.0f} ms a step; plan {plan['total']} steps"
                    + (f", shrunk to {affordable} to end in time" if affordable < plan["total"] else ""))
                plan["total"] = max(min(plan["total"], affordable), step + 1)
            if step % 200 == 0:
                log(args.out, f"step {step}/{plan['total']} loss {np.mean(running[-200:]):.4f} "
                    f"{(time.time() - t0) / step:.2f} s/step")
        if time.time() > deadline:
            break
    log(args.out, f"trained {step} steps ({step * args.batch / len(fit.y):.2f} epochs) in {time.time() - t0:.0f} s")

    model.eval()

    @torch.no_grad()
    def score(enc: Encoded) -> np.ndarray:
        out = np.zeros(len(enc.y), dtype=np.float32)
        order = np.argsort(enc.lengths)
        for start in range(0, len(order), 256):
            rows = order[start:start + 256]
            width = int(enc.lengths[rows].max())
            ids = torch.from_numpy(enc.ids[rows, :width]).to(device)
            types = torch.from_numpy(enc.types[rows, :width]).to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16):
                logits = model(input_ids=ids, attention_mask=(ids != 0).long(), token_type_ids=types).logits
            out[rows] = logits.float().squeeze(-1).cpu().numpy()
        return out

    scored = {}
    for name in SCORED:
        path = args.data / f"reader_{name}.jsonl.gz"
        if path.exists():
            enc = Encoded(tokenizer, read_jsonl(path))
            scored[name] = score(enc)
            log(args.out, f"{name}: {len(enc.y):,} pairs, AUC {auc(scored[name], enc.y):.4f}")
    np.savez(args.out / "scores.npz", **scored)
    index, buffer, offset = [], [], 0
    for name, tensor in model.state_dict().items():
        if not tensor.is_floating_point():
            continue
        value = tensor.detach().float().cpu().numpy().astype(np.float16)
        index.append({"name": name, "shape": list(value.shape), "offset": offset})
        buffer.append(value.tobytes())
        offset += value.nbytes
    blob = b"".join(buffer)
    pieces = [blob[i:i + CHUNK] for i in range(0, len(blob), CHUNK)]
    np.savez(args.out / "scores_final.npz", steps=np.array(step),
             index=np.array(json.dumps({"tensors": index, "bytes": len(blob), "pieces": len(pieces),
                                        "max_len": args.max_len})))
    for i, piece in enumerate(pieces):
        (args.out / f"weights.{i:03d}").write_bytes(piece)
    log(args.out, f"saved {len(blob):,} bytes of fp16 weights in {len(pieces)} pieces; "
        f"{time.time() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
