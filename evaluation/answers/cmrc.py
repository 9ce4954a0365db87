"""CMRC 2018 (Chinese reading comprehension, ../shared/eval/cmrc2018, CC BY-SA 4.0) as rows for
the answer model: its dev and trial files' articles, split by title like SQuAD's
(`splits.split_of`), one document a paragraph in one KB per split (written under var/eval/cmrc/,
never into the repo)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from orchestration.kb.config import KBConfig
from orchestration.paths import REPO_ROOT

from ..builds import build_eval_kb, eval_loop
from .splits import SPLITS, split_of

CMRC_FILES = (Path("cmrc2018") / "cmrc2018_dev.squad-style.json.gz",
              Path("cmrc2018") / "cmrc2018_trial.squad-style.json.gz")
KB_OF = {split: f"cmrc_{split}" for split in SPLITS}
CORPUS_DIR = REPO_ROOT / "var" / "eval" / "cmrc"


def cmrc_articles(data_dir: Path, split: str) -> list[dict[str, Any]]:
    """The articles of one split (SQuAD layout; titles made unique by their file)."""
    out = []
    for path in CMRC_FILES:
        with gzip.open(data_dir / path, "rt", encoding="utf-8") as handle:
            for i, article in enumerate(json.load(handle)["data"]):
                title = f"{article.get('title') or 'untitled'} ({path.stem.split('.')[0]} {i})"
                if split_of(title) == split:
                    out.append(dict(article, title=title))
    return out


def write_cmrc_corpus(data_dir: Path, split: str) -> Path:
    """Every paragraph of the split as one JSONL document `<title>#<i>`; rewritten only when changed."""
    lines = [json.dumps({"id": f"{a['title']}#{i}", "title": a["title"].rsplit(" (", 1)[0], "text": p["context"],
                         "metadata": {"source": "cmrc2018"}}, ensure_ascii=False)
             for a in cmrc_articles(data_dir, split) for i, p in enumerate(a["paragraphs"])]
    path = CORPUS_DIR / f"{split}.corpus.jsonl"
    body = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path


def build_cmrc_loop(kb_config: KBConfig, data_dir: Path, split: str, progress: bool = True):
    """The split's KB (built when its corpus changed) and a warmed-up loop over it."""
    build_eval_kb(kb_config, KB_OF[split], [write_cmrc_corpus(data_dir, split)], progress)
    return eval_loop(kb_config, KB_OF[split])
