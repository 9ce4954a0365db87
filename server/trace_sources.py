"""What a stored trace quotes besides the /rag body: the text of the chunks it shows, and the
build each knowledge base answered from.

The /rag body cites units (a snippet each) but not the whole chunk; the trace page highlights
each claim's supporting span inside the chunk's text, so the chunk is read from the knowledge
base when the trace is stored, through the same ACL as retrieval (`acl_mask` of the caller's
groups): a chunk the caller may not read is never read into its trace, whatever id the body
names. Build ids (never counts: a KB's counts include documents the caller may not see) say
which build answered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

CLOSEST_SHOWN = 5  # chunks of a refusal's last attempt whose text the refusal shows


def shown_chunk_ids(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(kb, chunk id) of the chunks a trace page quotes: the answer's citations; for a refusal,
    the closest chunks of the last attempt."""
    refs = [(c["kb"], c["chunk_id"]) for c in body.get("citations") or []]
    attempts = body.get("attempts") or []
    if body.get("status") == "insufficient" and attempts:
        for candidate in (attempts[-1].get("candidates") or [])[:CLOSEST_SHOWN]:
            refs.append((candidate["kb"], candidate["chunk_id"]))
    return list(dict.fromkeys(refs))


def visible_chunks(knowledge_bases: dict[str, Any], refs: Iterable[tuple[str, str]],
                   acl_groups: Sequence[str] | None) -> dict[str, dict[str, Any]]:
    """{chunk id: {kb, title, text}} of the chunks among `refs` a caller with `acl_groups` may read.

    Promises: a chunk is included only when its KB has an intact open build and the ACL mask of
    `acl_groups` (None: every document, an unrestricted caller) lets the caller see its row;
    unknown ids and unreadable KBs are skipped, never an error.
    """
    by_kb: dict[str, list[str]] = {}
    for kb_name, chunk_id in refs:
        by_kb.setdefault(kb_name, []).append(chunk_id)
    out: dict[str, dict[str, Any]] = {}
    for kb_name, ids in by_kb.items():
        kb = knowledge_bases.get(kb_name)
        if kb is None or not kb.ready or kb.changed() is not None:
            continue
        visible = kb.columns.acl_mask(acl_groups)
        for chunk in kb.store.get_ids(ids):
            if visible is None or bool(visible[chunk.row]):
                out[chunk.chunk_id] = {"kb": kb_name, "title": chunk.title, "text": chunk.text}
    return out


def builds(knowledge_bases: dict[str, Any], names: Iterable[str]) -> dict[str, dict[str, Any]]:
    """{kb: {build_id, built_at}} of the named knowledge bases (no counts)."""
    out = {}
    for name in sorted(set(names)):
        kb = knowledge_bases.get(name)
        if kb is not None:
            described = kb.describe()
            out[name] = {"build_id": described.get("build_id"), "built_at": described.get("built_at")}
    return out


def trace_content(body: dict[str, Any], knowledge_bases: dict[str, Any],
                  acl_groups: Sequence[str] | None) -> dict[str, Any]:
    """What the store keeps for one answer: the full-trace body, the chunks its page quotes (as
    the caller may read them) and the builds of the knowledge bases its plans searched."""
    searched = {task["kb"] for attempt in body.get("attempts") or []
                for task in (attempt.get("plan") or {}).get("tasks", [])}
    return {"body": body, "chunks": visible_chunks(knowledge_bases, shown_chunk_ids(body), acl_groups),
            "builds": builds(knowledge_bases, searched)}
