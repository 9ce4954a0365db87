"""Answer units by type for a set of documents, as a build stores them (issue 23).

    python -m evaluation.unit_counts [FOLDER ...]

Reads each folder with the ingest's readers, chunks every document as a build does (the default
chunk size and overlap) and counts the stored units by type (`orchestration/kb/units.py`), and
how many of them the composer may quote (`compose.sentences.chunk_candidates`, code included).
Default folders: the PEPs and the two sets of the real-documentation dev set.
"""

from __future__ import annotations

import argparse
import collections
from collections.abc import Sequence
from pathlib import Path

from orchestration.compose.sentences import chunk_candidates
from orchestration.kb.chunking import chunk_text
from orchestration.kb.documents import iter_documents
from orchestration.kb.units import UNIT_TYPES
from orchestration.retrieval.scored import ScoredChunk

from .datasets import DEFAULT_DATA
from .docsets import DOCSETS

DEFAULT_FOLDERS = (DEFAULT_DATA.parent / "docs-corpora" / "peps", DOCSETS / "poetry" / "pages",
                   DOCSETS / "restic" / "pages")
CHUNK_WORDS, OVERLAP_WORDS = 200, 30  # a knowledge base's defaults (orchestration/kb/config.py: KBSettings)


def count_units(folder: Path) -> dict[str, int]:
    """{"documents", "chunks", each unit type, "quotable"} for the documents under `folder`."""
    counts: collections.Counter[str] = collections.Counter()
    for doc in iter_documents([folder]):
        if not hasattr(doc, "text"):
            continue  # a skipped file
        counts["documents"] += 1
        for chunk in chunk_text(doc.text, CHUNK_WORDS, OVERLAP_WORDS):
            counts["chunks"] += 1
            counts.update(unit.type for unit in chunk.units)
            scored = ScoredChunk(chunk_id=f"{doc.id}#{chunk.position}", kb="", text=chunk.text, title=doc.title,
                                 metadata={"section": chunk.section}, units=chunk.units)
            counts["quotable"] += len(chunk_candidates(scored, 0, keep_code=True))
    return {key: counts[key] for key in ("documents", "chunks", *UNIT_TYPES, "quotable")}


def table(rows: Sequence[tuple[str, dict[str, int]]]) -> str:
    """A Markdown table of `count_units` results."""
    keys = ("documents", "chunks", *UNIT_TYPES, "quotable")
    lines = ["| corpus | " + " | ".join(k.replace("_", " ") for k in keys) + " |",
             "|---|" + "---:|" * len(keys)]
    lines += [f"| {name} | " + " | ".join(f"{counts[k]:,}" for k in keys) + " |" for name, counts in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.unit_counts", description=__doc__.split("\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, help="folders of documents (default: PEPs, Poetry, restic)")
    args = parser.parse_args(argv)
    folders = args.folders or [f for f in DEFAULT_FOLDERS if f.is_dir()]
    print(table([(folder.parent.name if folder.name == "pages" else folder.name, count_units(folder))
                 for folder in folders]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
