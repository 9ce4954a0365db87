"""What one caller is shown about a knowledge base (GET /kb, the MCP tool `list_knowledge_bases`)."""

from __future__ import annotations

from typing import Any

from .callers import Caller

# (kb, build, caller groups) -> (chunks, documents) that caller may see: counts only, never ids
_COUNTS: dict[tuple, tuple[int, int]] = {}


def describe_for(kb: Any, caller: Caller) -> dict[str, Any]:
    """A knowledge base as `caller` may see it: its description, with counts of what it may see only."""
    body = kb.describe()
    if kb.ready and kb.changed() is None:  # a build changed on disk is never read (its mapping may SIGBUS)
        key = (kb.name, str(kb.build_dir), caller.acl_groups)
        if key not in _COUNTS:
            if len(_COUNTS) > 256:
                _COUNTS.clear()
            _COUNTS[key] = kb.columns.visible_counts(caller.acl_groups, kb.chunk_ids)
        body["chunks"], body["documents"] = _COUNTS[key]
    return body
