"""The trace store: the full trace of each answered question, kept for `/ui/trace/<id>`.

One JSON file per trace under `<data dir>/traces/`, named by the SHA-256 of the trace id (a
caller-chosen X-Request-ID never becomes a path), written to a temporary file and then linked
(or renamed) into place, so a gunicorn worker reads either no record or a whole one. The
directory and its files are private to the service's user (0700 / 0600): a trace quotes the
documents its caller could read.

Bounded: after a write the store deletes records older than `max_age_seconds`, then the oldest
ones until at most `max_entries` records of at most `max_bytes` bytes together remain. Each
process prunes at most once a second (listing 1,000 records costs ~3 ms; an answer should not
pay it every time), so the bounds may be passed by one second's writes. Workers prune
independently; a file another worker deleted first is skipped.

A record remembers who asked (`owner`: the caller's name, kind and groups, never a key) and is
shown only to that caller or the admin (`may_view`); an anonymous caller's record holds public
documents only and is shown to anyone who has its id. A record is never overwritten by another
owner: a caller that sends another caller's trace id as its X-Request-ID is answered, but its
trace is not kept.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("sightline.traces")
STALE_TEMP_SECONDS = 60.0  # a temporary file this old belongs to a writer that died
PRUNE_EVERY_SECONDS = 1.0  # a process prunes after a write at most this often


@dataclass(frozen=True)
class TraceLimits:
    """How much the store keeps.

    Attributes:
        max_entries: records kept at most; 0 turns the store off (nothing is written).
        max_bytes: bytes of all records together at most.
        max_age_seconds: a record older than this is deleted (and never shown).
    """

    max_entries: int = 1000
    max_bytes: int = 200 * 1024 * 1024
    max_age_seconds: float = 7 * 24 * 3600.0


@dataclass(frozen=True)
class StoredTrace:
    """One record as read back.

    Attributes:
        trace_id: the request's trace id.
        owner: who asked, as `Caller.to_dict()` wrote it: {name, kind, groups}.
        stored_at: seconds since the epoch when it was written.
        content: what the writer stored (the /rag body and what it quotes; server/trace_sources.py).
    """

    trace_id: str
    owner: dict[str, Any]
    stored_at: float
    content: dict[str, Any]


def may_view(owner: dict[str, Any], viewer: dict[str, Any] | None, admin: bool) -> bool:
    """Whether a viewer may see a record of `owner`.

    Promises: the admin sees every record; a record of an anonymous caller without groups
    (public documents only) is shown to any resolved viewer; any other record only to a viewer
    of the same name, kind and groups. `viewer` None (no caller could be resolved) sees only
    what the admin flag allows.
    """
    if admin:
        return True
    if viewer is None:
        return False
    if owner.get("kind") == "anonymous" and not owner.get("groups"):
        return True
    return (viewer.get("name"), viewer.get("kind"), sorted(viewer.get("groups") or ())) == (
        owner.get("name"), owner.get("kind"), sorted(owner.get("groups") or ()))


class TraceStore:
    """Records on disk, bounded by count, bytes and age.

    Args:
        directory: where the records live (created 0700 on the first write).
        limits: the bounds.
        clock: seconds since the epoch (tests inject one).
    """

    def __init__(self, directory: Path, limits: TraceLimits, clock: Callable[[], float] = time.time) -> None:
        self.directory = Path(directory)
        self.limits = limits
        self.clock = clock
        self._pruned_at = float("-inf")

    @property
    def enabled(self) -> bool:
        return self.limits.max_entries > 0

    def path_of(self, trace_id: str) -> Path:
        """The file of a trace id: its SHA-256 in hex, so no id can name another path."""
        return self.directory / f"{hashlib.sha256(trace_id.encode('utf-8')).hexdigest()}.json"

    def put(self, trace_id: str, owner: dict[str, Any], content: dict[str, Any]) -> bool:
        """Keep a record, then prune (unless this process pruned less than a second ago).

        Promises: True when the record is stored; False when the store is off or the id is held
        by a live record of another owner (that record is left as it was). A record of the same
        owner, or an expired or unreadable one, is replaced.
        """
        if not self.enabled:
            return False
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        now = self.clock()
        data = json.dumps({"trace_id": trace_id, "owner": owner, "stored_at": now, "content": content},
                          ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        target = self.path_of(trace_id)
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=self.directory)  # mode 0600
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.utime(tmp, (now, now))  # pruning reads ages from the files' times: the store's clock
            stored = self._place(tmp, target, trace_id, owner)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        if now - self._pruned_at >= PRUNE_EVERY_SECONDS:
            self.prune()
        return stored

    def _place(self, tmp: str, target: Path, trace_id: str, owner: dict[str, Any]) -> bool:
        """Move the written file to `target` unless another owner's live record is there."""
        try:
            os.link(tmp, target)  # atomic, and fails when the name exists
            return True
        except FileExistsError:
            pass
        existing = self._read(target)
        if existing is not None and existing.owner != owner:
            log.warning("trace not kept: its id is held by another caller's trace",
                        extra={"event": "trace_store", "result": "refused", "trace": trace_id})
            return False
        os.replace(tmp, target)
        return True

    def get(self, trace_id: str) -> StoredTrace | None:
        """The record of a trace id; None when there is none, it is unreadable or it has expired."""
        return self._read(self.path_of(trace_id))

    def _read(self, path: Path) -> StoredTrace | None:
        try:
            raw = json.loads(path.read_bytes())
            record = StoredTrace(raw["trace_id"], raw["owner"], float(raw["stored_at"]), raw["content"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if self.clock() - record.stored_at > self.limits.max_age_seconds:
            return None
        return record

    def prune(self) -> int:
        """Delete expired records, then the oldest beyond the count and byte bounds, and temporary
        files of writers that died; the number of records deleted."""
        now = self._pruned_at = self.clock()
        records: list[tuple[float, int, str]] = []
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return 0
        for entry in entries:
            try:
                stat = entry.stat()
            except FileNotFoundError:
                continue
            if entry.name.endswith(".tmp"):
                if now - stat.st_mtime > STALE_TEMP_SECONDS:
                    _remove(entry.path)
            elif entry.name.endswith(".json"):
                records.append((stat.st_mtime, stat.st_size, entry.path))
        records.sort(reverse=True)  # newest first
        kept = size = removed = 0
        for mtime, bytes_, path in records:
            if (now - mtime > self.limits.max_age_seconds or kept >= self.limits.max_entries
                    or size + bytes_ > self.limits.max_bytes):
                removed += _remove(path)
            else:
                kept, size = kept + 1, size + bytes_
        return removed


def _remove(path: str) -> int:
    """Delete a file another worker may have deleted already; 1 when this call deleted it."""
    try:
        os.remove(path)
        return 1
    except FileNotFoundError:
        return 0
