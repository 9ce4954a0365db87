"""What each configured knowledge base holds, read from its current build's manifest.

`sightline kb list` prints it. Nothing is opened or loaded: a manifest is a small JSON file,
so listing is instant and works while a service is serving the same builds.
"""

from __future__ import annotations

from typing import Any

from core.errors import IndexUnavailable

from . import layout
from .config import KBConfig
from .manifest import read_manifest


def describe_built(config: KBConfig) -> list[dict[str, Any]]:
    """One record per configured KB, in config order.

    Each has name, description, paths and `built` (False when no build exists or it is
    damaged, with `problem` saying what and how to fix it); a built one adds documents, chunks,
    skipped, built_at, embedder, dated (documents carrying a date), dated_share and fields
    (documents carrying each field with a meaning), when its build recorded them.
    """
    out = []
    for name, settings in config.knowledge_bases.items():
        record: dict[str, Any] = {"name": name, "description": settings.description,
                                  "paths": [str(p) for p in settings.paths], "built": False}
        kb_dir = config.kb_dir(name)
        build = layout.current_build(kb_dir)
        hint = f"build it with `sightline ingest {' '.join(record['paths']) or 'PATH'} --kb {name}`"
        if build is None:
            record["problem"] = f"never built; {hint}"
            out.append(record)
            continue
        try:
            manifest = read_manifest(build, hint, settings.backend)
        except IndexUnavailable as exc:
            record["problem"] = exc.message
            out.append(record)
            continue
        counts = manifest.get("counts", {})
        documents = counts.get("documents") or 0
        dated = manifest.get("dated_documents")
        record.update(built=True, build_id=build.name, documents=documents, chunks=counts.get("chunks"),
                      skipped=counts.get("skipped"), built_at=manifest.get("built_at"),
                      embedder=(manifest.get("embedder") or {}).get("name"), dated=dated,
                      dated_share=round(dated / documents, 3) if dated is not None and documents else None,
                      fields=manifest.get("fields"))
        out.append(record)
    return out


def format_table(records: list[dict[str, Any]]) -> str:
    """The records as a plain-text table, then one line of fields per built KB."""
    head = ("kb", "documents", "chunks", "built", "embedder", "dated")
    rows = [head]
    notes = []
    for r in records:
        if not r["built"]:
            rows.append((r["name"], "-", "-", "not built", "-", "-"))
            notes.append(f"{r['name']}: {r['problem']}")
            continue
        dated = "unknown" if r["dated"] is None else f"{r['dated']} ({r['dated_share']:.0%})"
        rows.append((r["name"], str(r["documents"]), str(r["chunks"]), (r["built_at"] or "?").replace("+00:00", "Z"),
                     r["embedder"] or "?", dated))
        if r["fields"] is None:
            notes.append(f"{r['name']}: fields not recorded by this build (rebuild with `sightline ingest "
                         f"--kb {r['name']} --rebuild` to see them)")
        else:
            carried = ", ".join(f"{k} {v}" for k, v in r["fields"].items() if v) or "none"
            notes.append(f"{r['name']}: fields carried: {carried}")
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return "\n".join(lines + [""] + notes)
