"""Live knowledge base builds: each process notices a new `current` build and switches to it.

`sightline ingest` writes a new build and switches the KB's `current` symlink in one rename;
a serving process checks the symlinks at most every `interval` seconds (from the watch
thread, before requests, and in the gunicorn master before it forks), opens the new build
completely (checksums verified) and only then swaps it in under the loop lock, so no
request sees half of two builds. A damaged new build is refused and the old one keeps
serving; /readyz shows both. The old build is closed after the swap, which releases this
process's hold on it (pruning never deletes a build a live process holds).

A KB whose build was refused when the process started is served without (the others answer,
server/loop.py) and opened as soon as a new build is there.

Each check also compares every open build's files with what was opened (size, mtime, inode:
orchestration/kb/integrity.py): a build changed under a live process (a file truncated or
rewritten by hand) is listed in `changed` with the reason, and /readyz reports it as not ready.
Requests check the KBs they search themselves, so none reads a truncated mapping (SIGBUS).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from core.errors import SightlineError

log = logging.getLogger("sightline.builds")


class BuildWatcher:
    """Keeps one process's knowledge bases on their `current` builds.

    Args:
        retriever: the Retriever whose `knowledge_bases` mapping is swapped entry by entry.
        lock: the lock a request holds while it runs; swaps take it too.
        on_switch: called (under the lock) after a swap, e.g. to refresh Perception's sources.
        interval: seconds between checks (0: before every request).
    """

    def __init__(self, retriever: Any, lock: threading.RLock, on_switch: Callable[[], None] | None = None,
                 interval: float = 2.0) -> None:
        self.retriever = retriever
        self.lock = lock
        self.on_switch = on_switch
        self.interval = interval
        self.refused: dict[str, str] = {}   # kb name -> why its newer build was refused
        self.changed: dict[str, str] = {}   # kb name -> how its open build changed on disk since it was opened
        self._last_check = time.monotonic()
        self._check_lock = threading.Lock()

    def maybe_check(self) -> list[str]:
        """check() if `interval` has passed since the last one."""
        if time.monotonic() - self._last_check < self.interval:
            return []
        return self.check()

    def check(self) -> list[str]:
        """Switch every KB whose `current` moved to its new build; the names switched."""
        switched = []
        with self._check_lock:
            self._last_check = time.monotonic()
            for name, kb in list(self.retriever.knowledge_bases.items()):
                try:
                    if kb.ready and kb.current_changed() and self._switch(name, kb):
                        switched.append(name)
                    if not kb.ready and self._open(name, kb):
                        switched.append(name)
                    self._note_changes(name, self.retriever.knowledge_bases[name])
                except Exception as exc:  # noqa: BLE001 - a failed check must never fail a request
                    reason = f"checking for a new build failed ({type(exc).__name__}: {exc})"
                    if self.refused.get(name) != reason:
                        log.exception("build check failed", extra={"event": "kb_switch", "kb": name})
                    self.refused[name] = reason
        return switched

    def _note_changes(self, name: str, kb: Any) -> None:
        """Record (and log once) whether the KB's open build changed on disk since it was opened."""
        problem = kb.changed()
        if problem is None:
            self.changed.pop(name, None)
            return
        if self.changed.get(name) != problem:
            log.error("a served build changed on disk: its knowledge base is unavailable until it is rebuilt",
                      extra={"event": "kb_changed", "kb": name, "reason": problem})
        self.changed[name] = problem

    def _open(self, name: str, kb: Any) -> bool:
        """Open a KB that is not open (its build was refused at start): True once a new build opens.
        The build refused last time is not read again (the KB remembers it), so this costs a stat
        until `sightline ingest` writes a new one."""
        with self.lock:
            try:
                kb.warm_up()
            except SightlineError:
                return False
            if self.on_switch:
                self.on_switch()
        log.warning("knowledge base opened on a new build", extra={
            "event": "kb_switch", "kb": name, "result": "ok", "build_after": kb.describe().get("build_id"),
            "chunks": kb.describe().get("chunks")})
        return True

    def _switch(self, name: str, old: Any) -> bool:
        try:
            new = old.reopened()
        except SightlineError as exc:
            if self.refused.get(name) != exc.message:
                log.error("new knowledge base build refused; the previous build keeps serving",
                          extra={"event": "kb_switch", "kb": name, "result": "error", "reason": exc.message})
            self.refused[name] = exc.message
            return False
        with self.lock:
            self.retriever.knowledge_bases[name] = new
            if self.on_switch:
                self.on_switch()
        self.refused.pop(name, None)
        log.warning("knowledge base switched to a new build",
                    extra={"event": "kb_switch", "kb": name, "result": "ok",
                           "build_before": old.describe().get("build_id"),
                           "build_after": new.describe().get("build_id"),
                           "chunks": new.describe().get("chunks")})
        old.close()
        return True
