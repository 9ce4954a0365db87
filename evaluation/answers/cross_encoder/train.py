"""Fine-tune all-MiniLM-L6-v2 as an answer-sentence cross-encoder on one GPU (the device machine).

Input: the folder made by prep.py. Three trainings run as three processes on the same GPU (a 6-layer
384-wide model at batch 64 leaves an H200 mostly idle, so they overlap well):

- `a`: SQuAD train rows of fold 0 + SelQA; scores the train rows of fold 1 (out-of-fold) and dev;
- `b`: fold 1 + SelQA; scores fold 0 rows and dev;
- `final`: all SQuAD train rows + SelQA; scores dev and test rows and saves its weights.

Model: BertForSequenceClassification (num_labels=1) from config.json; the encoder (and pooler)
starts from the int8-per-row weights of prep.py, the classification head fresh. Input
[CLS] question [SEP] sentence [SEP] (token types 0/1), WordPiece from tokenizer.json, truncated
to --max-len tokens (longest first). Loss: BCE on the logit; AdamW, linear warm-up then decay,
bf16 autocast on CUDA. Should the step time promise to run past --train-seconds, the schedule is
shortened at step 250 (timed over steps 50-250) so the learning rate still decays to 0 in time.

Output (--out): scores_a.npz / scores_b.npz (`rows`: indices into squad_train, `train`: their
logits, `dev`), scores_final.npz (`dev`, `test`, `index`: JSON of the weights layout),
weights.000.. (the final model's float tensors as one fp16 buffer cut into 16 MB pieces), log.txt.

Usage (from the repository root):
       python3 evaluation/answers/cross_encoder/train.py --data .ce --out $OUT   (all three, in parallel)
       python3 evaluation/answers/cross_encoder/train.py --data .ce --out DIR --limit 300 --epochs 1 --cpu
           (a CPU smoke test)
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROLES = ("a", "b", "final")
CHUNK = 16_000_000  # bytes per weights piece (the device returns files under 16 MiB)
CONFIG_KEYS = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
               "hidden_act", "hidden_dropout_prob", "attention_probs_dropout_prob", "max_position_embeddings",
               "type_vocab_size", "initializer_range", "layer_norm_eps", "pad_token_id")


def log(role: str, *parts) -> None:
    print(f"[{role} {time.strftime('%H:%M:%S')}]", *parts, flush=True)


def read_jsonl(path: Path, limit: int | None) -> list[dict]:
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


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


class Encoded:
    """Token ids of (question, sentence) pairs, padded to one width, with their lengths."""

    def __init__(self, tokenizer, rows: list[dict], max_len: int) -> None:
        encodings = tokenizer.encode_batch([(r["q"], r["s"]) for r in rows])
        self.lengths = np.array([len(e.ids) for e in encodings], dtype=np.int64)
        width = int(self.lengths.max()) if len(rows) else 1
        self.ids = np.zeros((len(rows), width), dtype=np.int64)
        self.types = np.zeros((len(rows), width), dtype=np.int64)
        for i, e in enumerate(encodings):
            self.ids[i, :len(e.ids)] = e.ids
            self.types[i, :len(e.ids)] = e.type_ids
        self.y = np.array([r.get("y", 0) for r in rows], dtype=np.float32)


def child(role: str, args) -> None:
    import torch
    from tokenizers import Tokenizer

    started = time.time()
    deadline = started + args.train_seconds
    device = torch.device("cuda" if torch.cuda.is_available() and not args.cpu else "cpu")
    cuda = device.type == "cuda"
    torch.manual_seed(17 + ROLES.index(role))
    rng = np.random.default_rng(17 + ROLES.index(role))
    data = args.data

    tokenizer = Tokenizer.from_file(str(data / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=args.max_len, strategy="longest_first")

    squad = read_jsonl(data / "squad_train.jsonl.gz", args.limit)
    selqa = read_jsonl(data / "selqa.jsonl.gz", args.limit)
    folds = np.array([r["f"] for r in squad])
    if role == "final":
        fit_rows = list(range(len(squad)))
        score_rows = np.array([], dtype=np.int64)
    else:
        fold = 0 if role == "a" else 1
        fit_rows = np.flatnonzero(folds == fold).tolist()
        score_rows = np.flatnonzero(folds != fold)
    fit = Encoded(tokenizer, [squad[i] for i in fit_rows] + selqa, args.max_len)
    held = Encoded(tokenizer, [squad[i] for i in score_rows], args.max_len)
    dev = Encoded(tokenizer, read_jsonl(data / "squad_dev.jsonl.gz", args.limit), args.max_len)
    test_path = data / "squad_test.jsonl.gz"
    test = Encoded(tokenizer, read_jsonl(test_path, args.limit), args.max_len) \
        if role == "final" and test_path.exists() else None
    log(role, f"device {device}; fit pairs {len(fit.y)} (positives {int(fit.y.sum())}), held-out rows "
        f"{len(held.y)}, dev rows {len(dev.y)}, test rows {0 if test is None else len(test.y)}; "
        f"longest pair {int(fit.lengths.max())} tokens, mean {fit.lengths.mean():.1f}; "
        f"truncated {(fit.lengths >= args.max_len).mean():.4f}; {time.time() - started:.1f} s")

    model = build_model(data).to(device)
    log(role, "attention:", getattr(model.config, "_attn_implementation", "?"))
    decay = [p for n, p in model.named_parameters() if not (n.endswith("bias") or "LayerNorm" in n)]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                                   {"params": no_decay, "weight_decay": 0.0}],
                                  lr=args.lr, fused=cuda)
    per_epoch = math.ceil(len(fit.y) / args.batch)
    plan = {"total": per_epoch * args.epochs}
    warmup = max(1, int(0.06 * plan["total"]))

    def lr_at(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (plan["total"] - step) / max(1, plan["total"] - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    ids_all = torch.from_numpy(fit.ids).to(device)
    types_all = torch.from_numpy(fit.types).to(device)
    y_all = torch.from_numpy(fit.y).to(device)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    step, t0, running = 0, time.time(), 0.0
    stop = False
    for epoch in range(args.epochs):
        order = rng.permutation(len(fit.y))
        for start in range(0, len(order), args.batch):
            if step >= plan["total"]:
                stop = True
                break
            rows = order[start:start + args.batch]
            width = int(fit.lengths[rows].max())
            index = torch.from_numpy(rows).to(device)
            ids = ids_all[index, :width]
            types = types_all[index, :width]
            mask = (ids != 0).long()
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=cuda):
                logits = model(input_ids=ids, attention_mask=mask, token_type_ids=types).logits.squeeze(-1)
            loss = loss_fn(logits.float(), y_all[index])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
            if step % 50 == 0:
                running = loss.item()
            if step == 50:
                t50 = time.time()  # the first steps are slow (kernel choice, allocator): time from here
            if step == 250:
                per_step = (time.time() - t50) / 200
                log(role, f"{per_step * 1000:.1f} ms a step (steps 50-250); plan {plan['total']} steps")
                affordable = int((deadline - time.time()) / per_step * 0.92) + step
                if affordable < plan["total"]:
                    log(role, f"{per_step * 1000:.1f} ms a step: the schedule shrinks from "
                        f"{plan['total']} to {affordable} steps")
                    plan["total"] = max(affordable, step + 1)
            if step % 500 == 0:
                log(role, f"epoch {epoch} step {step}/{plan['total']} loss {running:.4f} "
                    f"{(time.time() - t0) / step * 1000:.1f} ms/step")
            if time.time() > deadline:
                log(role, f"deadline: training stops at step {step} of {plan['total']}")
                stop = True
                break
        if stop:
            break
    log(role, f"trained {step} steps ({step / per_epoch:.2f} epochs) in {time.time() - t0:.1f} s")

    model.eval()

    @torch.no_grad()
    def score(enc: Encoded) -> np.ndarray:
        out = np.zeros(len(enc.y), dtype=np.float32)
        order = np.argsort(enc.lengths)
        for start in range(0, len(order), 512):
            rows = order[start:start + 512]
            width = int(enc.lengths[rows].max())
            ids = torch.from_numpy(enc.ids[rows, :width]).to(device)
            types = torch.from_numpy(enc.types[rows, :width]).to(device)
            with torch.autocast(device.type, dtype=torch.bfloat16, enabled=cuda):
                logits = model(input_ids=ids, attention_mask=(ids != 0).long(), token_type_ids=types).logits
            out[rows] = logits.float().squeeze(-1).cpu().numpy()
        return out

    def auc(scores: np.ndarray, y: np.ndarray) -> float:
        pos, neg = scores[y > 0], scores[y <= 0]
        if not len(pos) or not len(neg):
            return float("nan")
        ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1
        return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))

    dev_scores = score(dev)
    log(role, f"dev AUC {auc(dev_scores, dev.y):.4f}")
    out = args.out
    if role != "final":
        held_scores = score(held)
        log(role, f"held-out train AUC {auc(held_scores, held.y):.4f}")
        np.savez(out / f"scores_{role}.npz", rows=score_rows, train=held_scores, dev=dev_scores,
                 steps=np.array(step))
        log(role, "saved scores")
        return
    test_scores = score(test) if test is not None else np.zeros(0, dtype=np.float32)
    if test is not None:
        log(role, f"test AUC {auc(test_scores, test.y):.4f}")
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
    np.savez(out / "scores_final.npz", dev=dev_scores, test=test_scores, steps=np.array(step),
             index=np.array(json.dumps({"tensors": index, "bytes": len(blob), "pieces": len(pieces),
                                        "max_len": args.max_len})))
    for i, piece in enumerate(pieces):
        (out / f"weights.{i:03d}").write_bytes(piece)
    log(role, f"saved scores and {len(blob)} bytes of fp16 weights in {len(pieces)} pieces")


def parent(args) -> int:
    import tokenizers
    import torch
    import transformers

    log("main", f"python {sys.version.split()[0]}, torch {torch.__version__}, transformers "
        f"{transformers.__version__}, tokenizers {tokenizers.__version__}, cuda {torch.cuda.is_available()}"
        + (f" ({torch.cuda.get_device_name(0)})" if torch.cuda.is_available() else ""))
    args.out.mkdir(parents=True, exist_ok=True)
    logfile = open(args.out / "log.txt", "a", buffering=1)
    command = [sys.executable, "-u", str(Path(__file__).resolve()), "--data", str(args.data), "--out", str(args.out),
               "--max-len", str(args.max_len), "--lr", str(args.lr), "--batch", str(args.batch),
               "--epochs", str(args.epochs), "--train-seconds", str(args.train_seconds)]
    if args.limit is not None:
        command += ["--limit", str(args.limit)]
    if args.cpu:
        command += ["--cpu"]
    env = dict(os.environ, PYTHONUNBUFFERED="1", TOKENIZERS_PARALLELISM="true")
    if args.cpu:
        env["OMP_NUM_THREADS"] = "1"
    procs = {role: subprocess.Popen(command + ["--role", role], stdout=logfile, stderr=subprocess.STDOUT, env=env)
             for role in ROLES}
    limit = time.time() + args.kill_seconds
    codes = {}
    while len(codes) < len(procs):
        for role, proc in procs.items():
            if role not in codes and proc.poll() is not None:
                codes[role] = proc.returncode
                log("main", f"{role} exited {proc.returncode}")
        if time.time() > limit:
            for role, proc in procs.items():
                if role not in codes:
                    proc.kill()
                    codes[role] = "killed"
                    log("main", f"{role} killed at the time limit")
        time.sleep(1)
    logfile.close()
    print((args.out / "log.txt").read_text()[-6000:])
    return 0 if all(code == 0 for code in codes.values()) else 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path(".ce"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--role", choices=ROLES)
    parser.add_argument("--max-len", type=int, default=128)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None, help="rows per file (smoke tests)")
    parser.add_argument("--train-seconds", type=float, default=360.0,
                        help="training stops this long after a process starts; scoring follows")
    parser.add_argument("--kill-seconds", type=float, default=470.0)
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()
    if args.role:
        child(args.role, args)
    else:
        sys.exit(parent(args))


if __name__ == "__main__":
    main()
