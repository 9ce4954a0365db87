"""The PEP files as JSONL documents, read by the product's own reST reader.

Each PEP file (`pep-NNNN.rst`) is read exactly as `sightline ingest` reads it
(`orchestration.kb.documents.read_rst`: docutils for the body, the RFC 822 header for title,
metadata and the header sentences "PEP 8 – Author: ..."), so the set measures what a user who
points Sightline at the PEPs gets. One JSONL document per PEP:

  id        `pep-NNNN` (a citation's chunk id `pep-NNNN#k` names its PEP)
  title     `PEP N – <Title>`, as peps.python.org heads it
  text      the reader's clean text, opening with the header sentences
  metadata  the reader's (status, doc_type, published_at, author, superseded_by, ...) plus
            `source: peps`
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from orchestration.kb.documents import Document, read_rst


def pep_path(folder: Path, number: int) -> Path:
    return folder / f"pep-{number:04d}.rst"


def pep_document(path: Path) -> dict[str, Any]:
    """One PEP file as a JSONL document record {id, title, text, metadata}.

    Raises:
        ValueError: the reader skipped the file (the message says why).
    """
    match = re.fullmatch(r"pep-(\d+)", path.stem)
    doc_id = f"pep-{int(match.group(1)):04d}" if match else path.stem
    loaded = read_rst(path, doc_id)
    if not isinstance(loaded, Document):
        raise ValueError(f"{path}: skipped by the reST reader: {loaded}")
    return {"id": loaded.id, "title": loaded.title, "text": loaded.text,
            "metadata": {**loaded.metadata, "source": "peps"}}


def write_corpus(folder: Path, numbers: Iterable[int], path: Path) -> Path:
    """The given PEPs of `folder` as a JSONL corpus at `path`; rewritten only when it changed."""
    records = [pep_document(pep_path(folder, n)) for n in sorted(numbers)]
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != body:
        path.write_text(body, encoding="utf-8")
    return path


def cited_pep(chunk_id: str) -> int | None:
    """`pep-0008#3` -> 8; None for a chunk id of another corpus."""
    match = re.match(r"pep-(\d+)(?:#|$)", chunk_id)
    return int(match.group(1)) if match else None
